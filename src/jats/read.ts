/**
 * How full text is read for the answers (PMC's EFetch db=pmc, Europe PMC's fullTextXML): parseJats,
 * here or off the MCP loop. The live thread offers to read long articles when it is loaded
 * (src/live/live-thread.ts, a part above this one: issue 45, an article's JATS costs 30–90 ms of
 * CPU, the longest some 1 s); until then, and in processes without it, the parse runs here. The
 * same document or the same error either way.
 */
import { parseJats } from "./parse.js";
import type { JatsDocument } from "./types.js";

/** parseJats of `xml` (`service` names the sender in errors); `signal` gives up waiting for it. */
export type JatsReader = (
  xml: string,
  service: string,
  signal?: AbortSignal,
) => Promise<JatsDocument>;

let reader: JatsReader = async (xml, service) => parseJats(xml, service);

/** From now on JATS replies are read by `read` (the live thread: parseJats, off the loop). */
export function readJatsWith(read: JatsReader): void {
  reader = read;
}

/** A JATS reply as its articles and PMC's per-id errors. */
export function readJats(
  xml: string,
  service: string,
  signal?: AbortSignal,
): Promise<JatsDocument> {
  return reader(xml, service, signal);
}
