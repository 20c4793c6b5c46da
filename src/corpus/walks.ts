/**
 * The two walks of a sync over [checkpoint − overlap_days, now]
 * (docs/architecture.md#a-sync-pubmed_sync_delta):
 *
 * - arrivals, by create date (CRDT) in the term. PubMed sets a record's Entrez date (EDAT) to its
 *   publication date when it enters more than a year after publication, so an EDAT window misses
 *   such records; their create date is when they really arrived.
 * - revisions, by modification date (`datetype=mdat`): retractions, corrections, new MeSH of
 *   records created before the arrivals window. Records created inside it are left out with NOT,
 *   since the arrivals walk of the same sync already fetches them in their current state.
 */
import type { ESearchParams } from "../ncbi/eutils.js";
import { entrezDay, type Day } from "./windows.js";

export type WalkKind = "arrivals" | "revisions";

export interface DayRange {
  from: Day;
  to: Day;
}

/** PubMed's create-date range syntax: `"2024/01/01"[crdt] : "2024/01/31"[crdt]`. */
export function createDateRange(r: DayRange): string {
  return `"${entrezDay(r.from)}"[crdt] : "${entrezDay(r.to)}"[crdt]`;
}

/**
 * ESearch parameters (term and dates) for one window of a walk. `arrivals` is the range the
 * arrivals walk of the same sync covers, left out of a revisions window.
 */
export function windowSearch(
  kind: WalkKind,
  term: string,
  window: DayRange,
  arrivals?: DayRange,
): Pick<ESearchParams, "term" | "datetype" | "mindate" | "maxdate"> {
  if (kind === "arrivals") return { term: `(${term}) AND (${createDateRange(window)})` };
  return {
    term: arrivals ? `(${term}) NOT (${createDateRange(arrivals)})` : term,
    datetype: "mdat",
    mindate: entrezDay(window.from),
    maxdate: entrezDay(window.to),
  };
}

/** How a warning or a progress message names a walk's date. */
export const DATE_NAME: Record<WalkKind, string> = {
  arrivals: "create date",
  revisions: "modification date",
};
