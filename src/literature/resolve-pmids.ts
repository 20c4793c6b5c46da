/**
 * PMCIDs and DOIs → PMIDs for the tools that work on PubMed records (pubmed_fetch, pubmed_cite),
 * through NCBI's PMC ID Converter (NCBI's limiter, like every NCBI call). The converter knows the
 * articles in PMC only: other ids are returned in `unresolvedIds`; when none resolves the call
 * fails with NOT_FOUND, saying how to find a DOI's record instead.
 */
import { NotFoundError } from "../errors.js";
import { excerpt, listSome } from "../excerpt.js";
import { convertIds } from "./reading.js";

export interface IdLists {
  pmids?: readonly string[];
  pmcids?: readonly string[];
  dois?: readonly string[];
}

export interface ResolvedPmids {
  /** Unique, in the order asked. */
  pmids: string[];
  /** Ids asked for that have no PMID (as given). */
  unresolvedIds: string[];
}

export async function resolvePmids(ids: IdLists, signal?: AbortSignal): Promise<ResolvedPmids> {
  if (ids.pmids !== undefined) return { pmids: [...new Set(ids.pmids)], unresolvedIds: [] };
  const field = ids.pmcids !== undefined ? "pmcids" : "dois";
  const list = ids.pmcids ?? ids.dois ?? [];
  const records = await convertIds(list, {
    signal,
    field,
    hint: field === "pmcids" ? "pmcid" : undefined,
  });
  const pmids = [...new Set(records.flatMap((r) => (r.pmid && !r.status ? [r.pmid] : [])))];
  const unresolvedIds = records.filter((r) => !r.pmid || r.status).map((r) => r.input);
  if (pmids.length === 0) {
    const hint =
      field === "dois"
        ? ' For a DOI outside PMC, pubmed_search with "<doi>"[doi] finds its PubMed record.'
        : "";
    throw new NotFoundError(
      `None of the ${field} has a PMID known to NCBI's PMC ID Converter (it knows articles in PMC only): ${listSome(
        unresolvedIds.map((id) => excerpt(id, 100)),
        ", ",
      )}.${hint}`,
      { unresolvedIds },
    );
  }
  return { pmids, unresolvedIds };
}
