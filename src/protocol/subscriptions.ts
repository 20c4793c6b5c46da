/**
 * resources/subscribe and resources/unsubscribe, and `notifications/resources/updated` when a
 * writing tool call (pubmed_sync_delta, corpus_checkpoint_set) may have changed the corpus.
 *
 * Any URI may be subscribed (the spec and the conformance suite expect an unknown one to be
 * accepted). Updates are sent for resource://pubmed/corpus after every such call, and for
 * resource://pubmed/paper/{pmid} when that paper's stored version changed (or it appeared).
 * Other resources never change (help) or change with every NCBI call (info, stats), so their
 * subscribers get nothing. Without the corpus toolset (MCP_TOOLSETS) a paper URI is accepted but
 * never looked up, so a subscription does not open the corpus store the operator left off.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import { log } from "../log.js";
import { paperVersions } from "../worker/corpus-api.js";
import { invalidParams } from "./errors.js";

export const CORPUS_URI = "resource://pubmed/corpus";
const PAPER_URI = /^resource:\/\/pubmed\/paper\/(\d{1,9})$/;

const corpusListeners = new Set<() => void>();

/** Tells every subscribed session that the corpus may have changed. */
export function corpusChanged(): void {
  for (const l of corpusListeners) l();
}

/** Stored version of each of `pmids` (absent: null); an unusable store counts as absent. */
async function versions(pmids: string[]): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>(pmids.map((p) => [p, null]));
  try {
    for (const [pmid, version] of Object.entries(await paperVersions(pmids))) {
      out.set(pmid, version);
    }
  } catch (err) {
    log.debug("paper versions unavailable", { error: String(err) });
  }
  return out;
}

const subscribeRequest = (method: string) =>
  z.object({ method: z.literal(method), params: z.looseObject({ uri: z.unknown() }) });

function uriOf(request: { method: string; params: { uri: unknown } }): string {
  const uri = request.params.uri;
  if (typeof uri !== "string" || uri === "") {
    throw invalidParams(`${request.method} needs params.uri, the URI of a resource.`);
  }
  return uri;
}

export function installSubscriptions(server: Server, corpusOffered: boolean): () => void {
  const uris = new Set<string>();
  /** pmid → the version last reported for the subscribed paper URI. */
  const papers = new Map<string, number | null>();
  let listening = false;

  const send = (uri: string) => server.sendResourceUpdated({ uri }).catch(() => undefined); // the client left

  const onChange = async () => {
    if (uris.has(CORPUS_URI)) await send(CORPUS_URI);
    if (papers.size === 0) return;
    for (const [pmid, version] of await versions([...papers.keys()])) {
      if (!papers.has(pmid) || papers.get(pmid) === version) continue;
      papers.set(pmid, version);
      await send(`resource://pubmed/paper/${pmid}`);
    }
  };
  const listener = () => void onChange();
  const listen = (on: boolean) => {
    if (on === listening) return;
    listening = on;
    if (on) corpusListeners.add(listener);
    else corpusListeners.delete(listener);
  };

  server.setRequestHandler(subscribeRequest("resources/subscribe"), async (request) => {
    const uri = uriOf(request);
    uris.add(uri);
    const pmid = corpusOffered ? PAPER_URI.exec(uri)?.[1] : undefined;
    if (pmid && !papers.has(pmid)) papers.set(pmid, (await versions([pmid])).get(pmid) ?? null);
    listen(true);
    return {};
  });
  server.setRequestHandler(subscribeRequest("resources/unsubscribe"), (request) => {
    const uri = uriOf(request);
    uris.delete(uri);
    const pmid = PAPER_URI.exec(uri)?.[1];
    if (pmid) papers.delete(pmid);
    listen(uris.size > 0);
    return {};
  });
  return () => listen(false);
}
