/**
 * PMC's full text: EFetch db=pmc through NCBI's façade (src/ncbi/eutils.ts efetchPmc, under NCBI's
 * limiter, retries and cache), its JATS `<pmc-articleset>` read here (./read.ts: a long article
 * off the MCP loop) into articles, with `notFullText` set when the body is missing or withheld,
 * and PMC's per-id `<error>`s.
 */
import type { Eutils } from "../ncbi/eutils.js";
import { readJats } from "./read.js";
import type { JatsDocument } from "./types.js";

/** One EFetch for all `pmcids` ("PMC3040717", "pmc3040717" or "3040717"; VALIDATION otherwise). */
export async function fetchPmcFullText(
  eutils: Eutils,
  pmcids: string | readonly string[],
  signal?: AbortSignal,
): Promise<JatsDocument> {
  const reply = await eutils.efetchPmc(pmcids, { signal });
  return readJats(reply.body, "PMC", signal);
}
