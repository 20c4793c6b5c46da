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
 *
 * A day with more records than ESearch pages through (or than a call may take) is split by PMID
 * range: `(<window>) AND (lo:hi[uid])`.
 */
import type { ESearchParams } from "../ncbi/eutils.js";
import { entrezDay, type Day } from "./windows.js";

export type WalkKind = "arrivals" | "revisions";

export interface DayRange {
  from: Day;
  to: Day;
}

/** Inclusive PMID bounds of part of one day's window. */
export interface PmidRange {
  lo: number;
  hi: number;
}

/**
 * Above every PMID (eight digits today): the range a day's split starts from. Each halving costs
 * one count-only search for the half that turns out empty: about 20 for a day whose PMIDs sit
 * within a million of each other.
 */
export const PMID_CEILING = 999_999_999;

/** The halves of a PMID range (lo < hi). */
export function splitPmids(r: PmidRange): [PmidRange, PmidRange] {
  const mid = r.lo + Math.floor((r.hi - r.lo) / 2);
  return [
    { lo: r.lo, hi: mid },
    { lo: mid + 1, hi: r.hi },
  ];
}

/** PubMed's create-date range syntax: `"2024/01/01"[crdt] : "2024/01/31"[crdt]`. */
export function createDateRange(r: DayRange): string {
  return `"${entrezDay(r.from)}"[crdt] : "${entrezDay(r.to)}"[crdt]`;
}

/**
 * ESearch parameters (term and dates) for one window of a walk. `arrivals` is the range the
 * arrivals walk of the same sync covers, left out of a revisions window; `pmids` narrows a
 * one-day window to part of its records.
 */
export function windowSearch(
  kind: WalkKind,
  term: string,
  window: DayRange,
  arrivals?: DayRange,
  pmids?: PmidRange,
): Pick<ESearchParams, "term" | "datetype" | "mindate" | "maxdate"> {
  const part = (t: string) => (pmids ? `(${t}) AND (${pmids.lo}:${pmids.hi}[uid])` : t);
  if (kind === "arrivals") return { term: part(`(${term}) AND (${createDateRange(window)})`) };
  return {
    term: part(arrivals ? `(${term}) NOT (${createDateRange(arrivals)})` : term),
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
