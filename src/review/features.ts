/**
 * The screening model's features (src/review/screener.ts): a record's words and MeSH headings as
 * one sparse TF-IDF vector, and the BM25 relevance of a record to the review's question.
 *
 * A record contributes three blocks, each L2-normalised on its own and then scaled, so a record
 * with a long abstract or with many headings does not drown the other blocks:
 *  - text: stemmed unigrams and adjacent-pair bigrams of title + abstract (the tokenizer of
 *    src/retrieval/bm25.ts: stopwords dropped, Porter stems), title words counted twice;
 *  - mesh: "m:" + each heading, and "m:" + its descriptor when it carries a qualifier;
 *  - pubTypes: "p:" + each publication type.
 * Weights are sublinear tf (1 + ln tf) × smoothed idf (ln((N + 1) / (df + 1)) + 1, as
 * scikit-learn's). The idf changes as records are added, so vectors are rebuilt lazily from the
 * stored counts after an `add`.
 */
import { BM25_AVG_DOC_LEN, idf, tfPart, tokenize } from "../retrieval/bm25.js";

export interface ScreenDoc {
  id: string;
  title: string;
  abstract: string;
  mesh: string[];
  pubTypes: string[];
}

/**
 * Block scales, set by principle and not tuned: text is the main signal, MeSH (a curated summary
 * of the same content) a little less, publication types (coarse) a nudge.
 */
export const BLOCK_WEIGHTS = { text: 1, mesh: 0.8, pubTypes: 0.3 } as const;
type Block = keyof typeof BLOCK_WEIGHTS;

/**
 * Features of fewer records are left out of the vectors: a feature of one record cannot carry
 * what was learnt to any other, and most bigrams are such (fewer features: a cheaper retrain).
 */
const MIN_DF = 2;

/** A sparse vector: distinct feature ids (in no particular order), weights beside them. */
export interface Sparse {
  idx: Int32Array;
  val: Float64Array;
}

/** Stemmed tokens of a text, unigrams then bigrams ("a_b" of adjacent kept tokens). */
export function textTerms(text: string): string[] {
  const words = tokenize(text);
  const out = words.slice();
  for (let i = 1; i < words.length; i++) out.push(`${words[i - 1]}_${words[i]}`);
  return out;
}

/** The raw feature counts of a record, per block. */
function rawCounts(doc: ScreenDoc): Record<Block, Map<string, number>> {
  const text = new Map<string, number>();
  const abstract = /^\s*NA\s*$/.test(doc.abstract) ? "" : doc.abstract;
  for (const t of [...textTerms(doc.title), ...textTerms(doc.title), ...textTerms(abstract)]) {
    text.set(t, (text.get(t) ?? 0) + 1);
  }
  const mesh = new Map<string, number>();
  for (const heading of doc.mesh) {
    const h = heading.replace(/\*/g, "").trim().toLowerCase();
    if (!h) continue;
    mesh.set(`m:${h}`, 1);
    const slash = h.indexOf("/");
    if (slash > 0) mesh.set(`m:${h.slice(0, slash)}`, 1);
  }
  const pubTypes = new Map<string, number>();
  for (const p of doc.pubTypes) if (p.trim()) pubTypes.set(`p:${p.trim().toLowerCase()}`, 1);
  return { text, mesh, pubTypes };
}

interface Row {
  /** Per block: feature ids and raw counts. */
  blocks: { block: Block; ids: number[]; counts: number[] }[];
  /** BM25 side of the relevance score: stemmed unigram → tf part. */
  bm25: Map<string, number>;
}

/** The feature space of one screening: vocabulary, document frequencies, and the vectors. */
export class FeatureSpace {
  private readonly vocab = new Map<string, number>();
  private df: number[] = [];
  private readonly rows: Row[] = [];
  /** Unigram document frequencies for BM25 relevance. */
  private readonly wordDf = new Map<string, number>();
  private cache: Sparse[] | undefined;

  get size(): number {
    return this.rows.length;
  }

  get dimension(): number {
    return this.vocab.size;
  }

  add(doc: ScreenDoc): void {
    const counts = rawCounts(doc);
    const blocks: Row["blocks"] = [];
    for (const block of Object.keys(BLOCK_WEIGHTS) as Block[]) {
      const ids: number[] = [];
      const values: number[] = [];
      for (const [term, n] of counts[block]) {
        const id = this.idOf(term);
        this.df[id] = (this.df[id] ?? 0) + 1;
        ids.push(id);
        values.push(n);
      }
      blocks.push({ block, ids, counts: values });
    }
    const words = tokenize(`${doc.title} ${doc.title} ${doc.abstract}`);
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    const bm25 = new Map<string, number>();
    for (const [w, n] of tf) {
      bm25.set(w, tfPart(n, words.length, BM25_AVG_DOC_LEN));
      this.wordDf.set(w, (this.wordDf.get(w) ?? 0) + 1);
    }
    this.rows.push({ blocks, bm25 });
    this.cache = undefined;
  }

  /** Every record's TF-IDF vector, in the order added (rebuilt after an `add`). */
  vectors(): Sparse[] {
    this.cache ??= this.rows.map((row) => this.vectorOf(row.blocks));
    return this.cache;
  }

  /**
   * The vector of a free text (the review's question and criteria) in the same space, text block
   * only; terms the records never use are dropped. Empty when nothing is left.
   */
  textVector(text: string): Sparse {
    const counts = new Map<number, number>();
    for (const t of textTerms(text)) {
      const id = this.vocab.get(t);
      if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return this.vectorOf([
      { block: "text", ids: [...counts.keys()], counts: [...counts.values()] },
    ]);
  }

  /** BM25 of the question's distinct stemmed words against every record, in the order added. */
  relevance(question: string): Float64Array {
    const terms = [...new Set(tokenize(question))];
    const N = this.rows.length;
    const weights = terms.map((t) => idf(N, this.wordDf.get(t) ?? 0));
    const out = new Float64Array(N);
    this.rows.forEach((row, i) => {
      let s = 0;
      terms.forEach((t, k) => (s += (weights[k] as number) * (row.bm25.get(t) ?? 0)));
      out[i] = s;
    });
    return out;
  }

  private idOf(term: string): number {
    let id = this.vocab.get(term);
    if (id === undefined) {
      id = this.vocab.size;
      this.vocab.set(term, id);
      this.df.push(0);
    }
    return id;
  }

  private vectorOf(blocks: Row["blocks"]): Sparse {
    const N = this.rows.length;
    const size = blocks.reduce((n, b) => n + b.ids.length, 0);
    let idx = new Int32Array(size);
    let val = new Float64Array(size);
    let at = 0;
    for (const { block, ids, counts } of blocks) {
      const start = at;
      let sum = 0;
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k] as number;
        if ((this.df[id] ?? 0) < MIN_DF) continue;
        const tf = 1 + Math.log(counts[k] as number);
        const w = tf * (Math.log((N + 1) / ((this.df[id] ?? 0) + 1)) + 1);
        idx[at] = id;
        val[at++] = w;
        sum += w * w;
      }
      const scale = BLOCK_WEIGHTS[block] / (Math.sqrt(sum) || 1);
      for (let k = start; k < at; k++) val[k] = (val[k] as number) * scale;
    }
    idx = idx.slice(0, at);
    val = val.slice(0, at);
    let sum = 0;
    for (const v of val) sum += v * v;
    const norm = Math.sqrt(sum) || 1;
    for (let k = 0; k < at; k++) val[k] = (val[k] as number) / norm;
    // Blocks use disjoint features and a block's ids are distinct: no sorting or merging needed.
    return { idx, val };
  }
}

/** x · θ for a sparse x and a dense θ. */
export function dot(x: Sparse, theta: Float64Array): number {
  let s = 0;
  for (let k = 0; k < x.idx.length; k++)
    s += (x.val[k] as number) * (theta[x.idx[k] as number] ?? 0);
  return s;
}
