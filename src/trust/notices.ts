/**
 * Integrity notices with Crossref's beside PubMed's and Europe PMC's (docs/trust.md), through
 * this process's Crossref client: asked only when the operator opted in (CROSSREF_MAILTO or
 * CROSSREF_BASE_URL set: src/config.ts), otherwise nothing is sent and nothing is said. The
 * requests and the reading of Crossref's replies are src/crossref's.
 */
import { crossrefLookUp, doiKey, type CrossrefNotices } from "../crossref/crossref.js";
import { mergeNotices, type Notice } from "../ncbi/notices.js";
import { getConfig, getCrossref } from "../state.js";

/**
 * Crossref's notices about `dois`. Never throws for Crossref's failures (5xx, timeouts, hang-ups,
 * malformed replies): the result says it was not consulted. An abort of `signal` is rethrown.
 */
export function crossrefNotices(
  dois: readonly string[],
  signal?: AbortSignal,
): Promise<CrossrefNotices> {
  return lookUp(dois, signal, "PubMed");
}

/**
 * Each record's notices with Crossref's for its DOI merged in (one per event: mergeNotices), and
 * Crossref's warning when it failed. `from` names the other sources in that warning.
 */
export async function withCrossrefNotices(
  records: readonly { doi?: string | null; notices: readonly Notice[] }[],
  signal: AbortSignal | undefined,
  from: string,
): Promise<{ notices: Notice[][]; warning?: string }> {
  const found = await lookUp(
    records.map((r) => r.doi ?? ""),
    signal,
    from,
  );
  const notices = records.map((r) => {
    const key = doiKey(r.doi);
    const extra = key === undefined ? [] : (found.notices.get(key) ?? []);
    return extra.length === 0 ? [...r.notices] : mergeNotices([...r.notices, ...extra]);
  });
  return found.warning === undefined ? { notices } : { notices, warning: found.warning };
}

async function lookUp(
  dois: readonly string[],
  signal: AbortSignal | undefined,
  from: string,
): Promise<CrossrefNotices> {
  const client = getCrossref();
  if (client === undefined) return { notices: new Map(), consulted: false };
  return crossrefLookUp(client, dois, { signal, from, deadlineMs: getConfig().ncbi.deadlineMs });
}
