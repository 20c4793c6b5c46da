/**
 * MeSH by term or UI (pubmed_mesh): ESearch db=mesh finds the UIDs (a UI searches [mhui]),
 * ESummary db=mesh version=2.0 describes them (src/ncbi/parse/mesh.ts reads the records). No
 * ESummary call when nothing is found.
 */
import { meshSearchTerm, type MeshSummary } from "../ncbi/parse/mesh.js";
import { getEutils } from "../state.js";

export interface MeshLookup extends MeshSummary {
  /** Descriptors ESearch found for the term (records holds at most `maxRecords` of them). */
  totalFound: number;
  /** How NCBI read the term, when it says. */
  queryTranslation?: string;
  /** NCBI's warnings (e.g. a phrase not found). */
  warnings: string[];
}

export interface MeshOptions {
  signal?: AbortSignal;
  /** Records described (ESummary ids), 1–20; default 5. */
  maxRecords?: number;
  maxEntryTerms?: number;
}

export async function meshLookup(term: string, opts: MeshOptions = {}): Promise<MeshLookup> {
  const eutils = getEutils();
  const retmax = Math.min(Math.max(opts.maxRecords ?? 5, 1), 20);
  const { value: search } = await eutils.esearch(
    { db: "mesh", term: meshSearchTerm(term), retmax },
    { signal: opts.signal },
  );
  const base = {
    totalFound: search.count,
    warnings: search.warnings,
    ...(search.queryTranslation ? { queryTranslation: search.queryTranslation } : {}),
  };
  if (search.ids.length === 0) return { ...base, records: [], errors: [] };
  const { value: summary } = await eutils.meshSummary(search.ids, {
    signal: opts.signal,
    maxEntryTerms: opts.maxEntryTerms,
  });
  return { ...base, ...summary };
}
