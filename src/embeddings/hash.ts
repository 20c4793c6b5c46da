/**
 * The offline embedder (EMBEDDINGS_PROVIDER=hash, opt-in): deterministic feature hashing, no
 * model, no network. It is lexical-flavoured — it matches shared words and word fragments, not
 * meaning — so the default without a Cohere key is no embedder at all (lexical only): on two
 * held-out sets this leg fused at 0.2 scored nDCG@10 −0.003 and −0.0002 against BM25 alone, for
 * about half of a sync's time. With a Cohere key the dense leg becomes semantic.
 *
 * Features per token (from the BM25 tokenizer, so stems and stopwords agree with the lexical leg):
 * the stem itself (weight 1) and its character 3- and 4-grams with boundary marks ("<hyp", "hyp",
 * …), which let morphological relatives and compounds meet ("cardiac" ~ "cardiomyopathy").
 * Weights are summed per feature, damped with log(1+w) and hashed with a random sign into
 * HASH_DIMENSION buckets (signed hashing keeps collisions unbiased); the vector is L2-normalised
 * so cosine = dot product. Word bigrams were tried and did not help.
 *
 * It has no idf, so it is the weaker leg and fusion should not weight it above BM25; the
 * measurements (nDCG@10 by dimension, alone and fused) are in docs/corpus.md.
 */
import { tokenize } from "../retrieval/bm25.js";
import type { Embedder } from "./embedder.js";

/** 768 buys +0.03 nDCG@10 over 384 for 3 KB per chunk; beyond that the gain flattens. */
export const HASH_DIMENSION = 768;
/** Bump the version whenever features or hashing change: stored vectors must then be rebuilt. */
export const HASH_MODEL = `hash-v1-${HASH_DIMENSION}`;

/** Total weight of one token's character n-grams, spread over them as w/√count. */
const CHAR_GRAM_WEIGHT = 1.5;

/** FNV-1a over UTF-16 code units, finished with the murmur3 avalanche so every bit is usable. */
function hash32(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function addFeature(features: Map<string, number>, key: string, weight: number): void {
  features.set(key, (features.get(key) ?? 0) + weight);
}

function features(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const token of tokenize(text)) {
    addFeature(out, `w:${token}`, 1);
    const marked = `<${token}>`;
    const grams: string[] = [];
    for (const n of [3, 4]) {
      for (let i = 0; i + n <= marked.length; i++) grams.push(marked.slice(i, i + n));
    }
    const w = CHAR_GRAM_WEIGHT / Math.sqrt(grams.length);
    for (const g of grams) addFeature(out, `c:${g}`, w);
  }
  return out;
}

/** The embedding of one text: a unit vector of HASH_DIMENSION numbers. */
export function hashEmbed(text: string, dimension = HASH_DIMENSION): number[] {
  const v = new Float64Array(dimension);
  for (const [key, weight] of features(text)) {
    const h = hash32(key, 0x811c9dc5);
    // Low bit = sign, the rest = bucket: independent bits of one well-mixed hash.
    v[(h >>> 1) % dimension]! += (h & 1 ? 1 : -1) * Math.log1p(weight);
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  // A text with no tokens (empty, or only stopwords) gets a fixed unit vector: cosine with a
  // zero vector is undefined in both vector stores.
  if (norm === 0) {
    v[0] = 1;
    norm = 1;
  }
  const inv = 1 / Math.sqrt(norm);
  return Array.from(v, (x) => x * inv);
}

export class HashEmbedder implements Embedder {
  readonly provider = "hash" as const;
  readonly model = HASH_MODEL;
  readonly dimension = HASH_DIMENSION;

  async embedDocuments(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const out: number[][] = [];
    for (const text of texts) {
      signal?.throwIfAborted();
      out.push(hashEmbed(text));
    }
    return out;
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<number[]> {
    signal?.throwIfAborted();
    return hashEmbed(text);
  }

  async health(): Promise<void> {}
}
