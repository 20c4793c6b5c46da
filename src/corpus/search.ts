/**
 * rag_search: hybrid retrieval over the synced corpus. The dense leg (embedder) and the BM25 leg
 * (same tokenizer and parameters on every vector store) run side by side, their rankings are fused,
 * the best chunk of each paper is kept, and the evidence-quality boost is applied last.
 * Retracted papers never come back; each result carries its paper's other integrity notices
 * (corrections, expressions of concern), as current as the stored record.
 * See README "Retrieval quality" for the fusion measurements.
 * With no embedder (EMBEDDINGS_PROVIDER=none) the BM25 leg alone ranks and `sim` is null.
 */
import type { Embedder } from "../embeddings/embedder.js";
import { isLexicalOnly } from "../embeddings/none.js";
import { EmbeddingsError } from "../errors.js";
import type { Store } from "../store/db.js";
import { getChunks, getNotices } from "../store/docs.js";
import type { Notice } from "../ncbi/notices.js";
import type { ChunkPayload, Hit, VectorStore } from "../vectors/vector-store.js";
import { querySparseVector, tokenize } from "../retrieval/bm25.js";
import { bestPerPaper } from "../retrieval/rank.js";

export type Fusion = "rrf" | "convex";

export interface RagSearchInput {
  query: string;
  topK: number;
  qualityBias: boolean;
  /** Which legs to run: both (hybrid), or one alone for evaluation. */
  legs?: "hybrid" | "dense" | "lexical";
  fusion?: Fusion;
  /** Weight of the dense leg in convex fusion (evaluation knob; defaults to the measured best). */
  denseWeight?: number;
}

export interface RagResult {
  doc_id: string;
  uuid: string;
  sim: number | null;
  bm25: number | null;
  quality: number;
  score: number;
  title: string;
  text: string;
  /** The paper's integrity notices (docs/trust.md); empty when none is known. */
  notices: Notice[];
}

export interface SearchDeps {
  store: Store;
  vectors: VectorStore;
  embedder: Embedder;
  signal?: AbortSignal;
}

/** Reciprocal-rank-fusion constant (Cormack et al.'s 60). */
const RRF_K = 60;
/**
 * Fusion chosen on NFCorpus dev (README "Retrieval quality"): a convex combination of min-max
 * normalised leg scores, dense weight 0.2, beat reciprocal-rank fusion (nDCG@10 0.311 vs 0.295)
 * and keeps a score spread the quality multiplier can nudge without swamping relevance.
 */
const CONVEX_DENSE_WEIGHT = 0.2;
export const DEFAULT_FUSION: Fusion = "convex";
/** Candidates each leg returns. */
const LEG_DEPTH = 300;

interface Candidate {
  hit: Hit;
  sim: number | null;
  bm25: number | null;
  relevance: number;
}

/** A paper's best chunk as rag_search returns it, before its payload is read. */
interface Ranked {
  hit: Hit;
  sim: number | null;
  bm25: number | null;
  quality: number;
  score: number;
}

function fuse(
  dense: Hit[],
  lexical: Hit[],
  fusion: Fusion,
  denseWeight: number,
): Map<string, Candidate> {
  const out = new Map<string, Candidate>();
  const add = (hits: Hit[], leg: "sim" | "bm25", weight: (h: Hit, rank: number) => number) => {
    hits.forEach((hit, rank) => {
      const c = out.get(hit.id) ?? { hit, sim: null, bm25: null, relevance: 0 };
      c[leg] = hit.score;
      c.relevance += weight(hit, rank);
      if (!c.hit.payload && hit.payload) c.hit = hit;
      out.set(hit.id, c);
    });
  };
  if (fusion === "rrf") {
    add(dense, "sim", (_h, rank) => 1 / (RRF_K + rank + 1));
    add(lexical, "bm25", (_h, rank) => 1 / (RRF_K + rank + 1));
  } else {
    const norm = (hits: Hit[]) => {
      const max = Math.max(...hits.map((h) => h.score));
      const min = Math.min(...hits.map((h) => h.score));
      return (h: Hit) => (max > min ? (h.score - min) / (max - min) : 1);
    };
    const nd = norm(dense);
    const nl = norm(lexical);
    add(dense, "sim", (h) => denseWeight * nd(h));
    add(lexical, "bm25", (h) => (1 - denseWeight) * nl(h));
  }
  return out;
}

/** The distinct words of a query the lexical leg searches (stop words and punctuation are not). */
export function searchableTerms(query: string): number {
  return querySparseVector(tokenize(query)).indices.length;
}

export async function ragSearch(deps: SearchDeps, input: RagSearchInput): Promise<RagResult[]> {
  const lexicalOnly = isLexicalOnly(deps.embedder);
  const legs = input.legs ?? (lexicalOnly ? "lexical" : "hybrid");
  if (lexicalOnly && legs !== "lexical") {
    throw new EmbeddingsError("No embedding provider is configured: only the lexical leg can run.");
  }
  // A fixed depth, so a paper's score does not depend on top_k (normalisation sees the same
  // candidates), deep enough for 100 distinct papers when several chunks of one paper rank.
  const depth = LEG_DEPTH;
  // Payloads are read for the winners only (below), where the store allows it.
  const opts = { excludeRetracted: true, withPayload: false };
  const sparse = () => querySparseVector(tokenize(input.query));
  const fusion = input.fusion ?? DEFAULT_FUSION;
  let top: Ranked[];
  if (legs === "lexical" && fusion === "convex" && deps.vectors.rankSparse) {
    // The lexical leg alone, ranked where its index lives: only the winners come back.
    const rank = { topK: input.topK, qualityBias: input.qualityBias };
    top = (await deps.vectors.rankSparse(sparse(), depth, rank, opts)).map((r) => ({
      hit: r.hit,
      sim: null,
      bm25: r.hit.score,
      quality: r.hit.quality ?? 0,
      score: r.score,
    }));
  } else {
    const [dense, lexical] = await Promise.all([
      legs === "lexical"
        ? []
        : deps.embedder
            .embedQuery(input.query, deps.signal)
            .then((v) => deps.vectors.searchDense(v, depth, opts)),
      legs === "dense" ? [] : deps.vectors.searchSparse(sparse(), depth, opts),
    ]);
    const fused = fuse(
      dense,
      lexical,
      fusion,
      // The lexical leg alone: relevance is its normalised score.
      legs === "lexical" ? 0 : (input.denseWeight ?? CONVEX_DENSE_WEIGHT),
    );
    const candidates = [...fused.values()].map((c) => ({
      ...c,
      pmid: c.hit.pmid,
      quality: c.hit.payload?.quality ?? c.hit.quality ?? 0,
    }));
    top = bestPerPaper(candidates, input);
  }
  const missing = top.filter((c) => !c.hit.payload).map((c) => c.hit.id);
  const payloads = (await deps.vectors.payloads?.(missing)) ?? new Map<string, ChunkPayload>();
  for (const c of top) c.hit.payload ??= payloads.get(c.hit.id);
  const stillMissing = top.filter((c) => !c.hit.payload).map((c) => c.hit.id);
  // Notices a payload lacks (a Qdrant point written before payloads carried them) come from the
  // documents rows; every other result has them from its payload, with no read of its own.
  const unread = [...new Set(top.filter((c) => !c.hit.payload?.notices).map((c) => c.hit.pmid))];
  const [chunks, notices] = await Promise.all([
    getChunks(deps.store.db, stillMissing),
    getNotices(deps.store.db, unread),
  ]);
  const stored = new Map(chunks.map((c) => [c.id, c]));
  return top.map((c) => ({
    doc_id: `pmid:${c.hit.pmid}`,
    uuid: c.hit.id,
    sim: c.sim,
    bm25: c.bm25,
    quality: c.hit.payload?.quality ?? c.quality,
    score: c.score,
    title: c.hit.payload?.title ?? stored.get(c.hit.id)?.text.split("\n")[0] ?? "",
    text: c.hit.payload?.text ?? stored.get(c.hit.id)?.text ?? "",
    notices: c.hit.payload?.notices ?? notices.get(c.hit.pmid) ?? [],
  }));
}
