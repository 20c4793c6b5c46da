/**
 * What crosses between the corpus worker and the BM25 index's thread (lexical-thread.ts). Rows
 * travel packed: one fresh buffer holds every row's postings, transferred, not copied. A row's
 * own `postings` from the pg driver is often a view of Node's shared 8 KB buffer pool, and a
 * structured clone copies a view's whole buffer.
 */
import type { Served } from "../../net/channel.js";
import type { PaperRank } from "../../retrieval/rank.js";
import type { LexicalHit, LexicalRow } from "./lexical-index.js";

export interface PackedRows {
  ids: string[];
  pmids: string[];
  retracted: Uint8Array;
  quality: Float32Array;
  /** Row r's postings end at ends[r] in `postings` and start where row r − 1's end. */
  ends: Uint32Array;
  postings: Uint8Array;
}

/** A search: the query's sparse vector as two arrays, and what to answer. */
export interface LexicalQuery {
  indices: number[];
  values: number[];
  limit: number;
  excludeRetracted: boolean;
  /** Rank the hits into papers here (rankLeg) and answer the winners with their ranks. */
  rank?: PaperRank;
}

/** Hits as columns: a structured clone of two string arrays and two typed arrays is cheap. */
export interface PackedHits {
  ids: string[];
  pmids: string[];
  scores: Float64Array;
  quality: Float32Array;
}

export interface LexicalAnswer {
  hits: PackedHits;
  /** With `rank` asked: each hit's rank score. */
  ranks?: Float64Array;
}

/**
 * What the thread answers (../../net/channel.ts), in the order sent: a new index is loadStart,
 * pages of rows, then loadEnd, which builds it (the old one answers until then).
 */
export type LexicalApi = {
  loadStart(): void;
  loadRows(rows: PackedRows): void;
  loadEnd(): void;
  apply(update: { rows: PackedRows; removed: readonly string[] }): void;
  /** A failure is a plain Error: the thread does not load ../../errors.ts. */
  search(query: LexicalQuery, served: Served): LexicalAnswer;
};

export function packHits(hits: readonly LexicalHit[]): PackedHits {
  return {
    ids: hits.map((h) => h.id),
    pmids: hits.map((h) => h.pmid),
    scores: Float64Array.from(hits, (h) => h.score),
    quality: Float32Array.from(hits, (h) => h.quality),
  };
}

export function unpackHits(p: PackedHits): LexicalHit[] {
  return p.ids.map((id, i) => ({
    id,
    pmid: p.pmids[i]!,
    score: p.scores[i]!,
    quality: p.quality[i]!,
  }));
}

export function packRows(rows: readonly LexicalRow[]): PackedRows {
  const ends = new Uint32Array(rows.length);
  let total = 0;
  rows.forEach((r, i) => (ends[i] = total += r.postings.length));
  const postings = new Uint8Array(total);
  rows.forEach((r, i) => postings.set(r.postings, ends[i]! - r.postings.length));
  return {
    ids: rows.map((r) => r.id),
    pmids: rows.map((r) => r.pmid),
    retracted: Uint8Array.from(rows, (r) => (r.retracted ? 1 : 0)),
    quality: Float32Array.from(rows, (r) => r.quality),
    ends,
    postings,
  };
}

/** The buffers a packed message can hand over instead of copying. */
export function transferList(p: PackedRows): ArrayBuffer[] {
  return [p.retracted.buffer, p.quality.buffer, p.ends.buffer, p.postings.buffer] as ArrayBuffer[];
}

export function unpackRows(p: PackedRows): LexicalRow[] {
  return p.ids.map((id, i) => ({
    id,
    pmid: p.pmids[i]!,
    retracted: p.retracted[i] === 1,
    quality: p.quality[i]!,
    postings: p.postings.subarray(i === 0 ? 0 : p.ends[i - 1], p.ends[i]),
  }));
}
