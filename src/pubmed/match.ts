/**
 * pubmed_match_citations: ECitMatch, one line per citation, answered per key.
 */
import { getEutils } from "../state.js";

export interface CitationQuery {
  journal: string;
  year: string;
  volume: string;
  firstPage: string;
  authorName: string;
  key: string;
}

export interface MatchOutput {
  results: { key: string; pmid: string | null; status: "matched" | "not_found" | "ambiguous" }[];
}

export async function matchCitations(
  citations: CitationQuery[],
  signal: AbortSignal,
): Promise<MatchOutput> {
  // NCBI gets our own keys (k0, k1, …): a user key with "|" or edge spaces would not survive
  // the bdata line format, so answers are mapped back by position.
  const lines = citations.map((c, i) => ({ ...c, key: `k${i}` }));
  const { value: answers } = await getEutils().ecitmatch(lines, { signal });
  const byKey = new Map(answers.map((line) => [line.key, line.answer.trim()]));
  return {
    results: citations.map(({ key }, i) => {
      const answer = byKey.get(`k${i}`) ?? "";
      if (/^\d+$/.test(answer)) return { key, pmid: answer, status: "matched" as const };
      if (/^AMBIGUOUS/i.test(answer)) return { key, pmid: null, status: "ambiguous" as const };
      return { key, pmid: null, status: "not_found" as const };
    }),
  };
}
