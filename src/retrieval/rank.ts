/**
 * How rag_search turns scored chunks into papers: the best chunk of each paper by score — its
 * relevance, nudged by the paper's evidence quality when asked — best first, `topK` papers.
 * search.ts ranks fused legs with it; the BM25 thread ranks the lexical leg alone with rankLeg
 * where the index lives (lexical-worker.ts), so only the winners cross between threads. Pure and
 * import-free: that thread loads it.
 */

export interface PaperRank {
  topK: number;
  /** Multiply relevance by (1 + quality / 10). */
  qualityBias: boolean;
}

export interface Scored {
  pmid: string;
  relevance: number;
  /** The paper's evidence-quality total (0–9). */
  quality: number;
}

/**
 * The best candidate of each paper (the first seen wins a tie), ordered by score, highest first
 * (ties keep the order the papers were first seen in), at most `topK`.
 */
export function bestPerPaper<C extends Scored>(
  candidates: Iterable<C>,
  rank: PaperRank,
): (C & { score: number })[] {
  const best = new Map<string, C & { score: number }>();
  for (const c of candidates) {
    const score = rank.qualityBias ? c.relevance * (1 + c.quality / 10) : c.relevance;
    const current = best.get(c.pmid);
    if (!current || score > current.score) best.set(c.pmid, { ...c, score });
  }
  return [...best.values()].sort((a, b) => b.score - a.score).slice(0, rank.topK);
}

/**
 * A leg ranked alone, as convex fusion leaves it: relevance is the hit's score min–max normalised
 * over all the leg's hits (1 when they are all equal). The ranked hits keep their own score.
 */
export function rankLeg<H extends { pmid: string; score: number; quality: number }>(
  hits: readonly H[],
  rank: PaperRank,
): { hit: H; score: number }[] {
  let max = -Infinity;
  let min = Infinity;
  for (const h of hits) {
    if (h.score > max) max = h.score;
    if (h.score < min) min = h.score;
  }
  const candidates = hits.map((hit) => ({
    hit,
    pmid: hit.pmid,
    quality: hit.quality,
    relevance: max > min ? (hit.score - min) / (max - min) : 1,
  }));
  return bestPerPaper(candidates, rank).map((c) => ({ hit: c.hit, score: c.score }));
}
