/**
 * Where chunk vectors live: Qdrant for deployments, pgvector (or its real[] fallback) in the
 * metadata Postgres for the zero-set-up default. Both adapters store a dense vector and the BM25
 * sparse vector of src/retrieval/bm25.ts per chunk and score them identically:
 * dense = cosine similarity (higher is better), sparse = Σ idf(N, df)·weight over the query terms.
 */
import type { Kysely } from "kysely";
import type { SparseVector } from "../retrieval/bm25.js";
import type { PaperRank } from "../retrieval/rank.js";
import type { Notice } from "../ncbi/notices.js";

export interface ChunkPayload {
  title: string;
  text: string;
  /** The document's quality total (0–9). */
  quality: number;
  retracted: boolean;
  pdatYear: number | null;
  /** The document version these vectors were made from. */
  version: number;
  /**
   * The paper's integrity notices at that version, a copy of its documents row's (as `quality`
   * and `retracted` are), so rag_search reads them with the payload. Undefined on a Qdrant point
   * written before payloads carried them: rag_search then reads the documents row.
   */
  notices?: Notice[];
}

export interface ChunkPoint {
  /** uuid5(namespace, "<pmid>:<chunkId>"), stable across re-syncs. */
  id: string;
  pmid: string;
  chunkId: string;
  dense: number[];
  sparse: SparseVector;
  payload: ChunkPayload;
}

export interface Hit {
  id: string;
  pmid: string;
  score: number;
  payload?: ChunkPayload;
  /** The document's quality total, when the payload was not read (SearchOptions.withPayload). */
  quality?: number;
}

export interface SearchOptions {
  /** Leave out chunks of retracted papers. */
  excludeRetracted?: boolean;
  /**
   * false: the store may leave out the payload (text, title) of hits and give only
   * `quality`, when it can read the payload of the few hits kept later (pgvector). Default true.
   */
  withPayload?: boolean;
}

/**
 * Replaces every chunk of `pmids` by `points` inside the caller's transaction `trx`; returns what
 * to call once that transaction has committed (the in-memory indexes take the rows then).
 */
export type TransactionWriter = (
  trx: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- any store schema
  pmids: string[],
  points: ChunkPoint[],
) => Promise<() => void>;

export interface VectorStore {
  readonly kind: "qdrant" | "pgvector";
  /**
   * True where this store keeps each chunk's id, PMID, chunk id, text and version in the metadata
   * database (pgvector's chunk_vectors): the chunks table is then not written (each chunk's text
   * stored once). False where that table is the chunks' local copy (Qdrant).
   */
  readonly keepsChunks: boolean;
  /** Creates the collection/tables for vectors of this size; fails if they exist with another. */
  ensure(dimension: number): Promise<void>;
  /** Drops every stored vector and recreates the store for this size (reindex). */
  reset(dimension: number): Promise<void>;
  /** Inserts or replaces points by id. */
  upsert(points: ChunkPoint[], signal?: AbortSignal): Promise<void>;
  /** Removes every chunk of these documents. */
  deletePmids(pmids: string[]): Promise<void>;
  /**
   * Where the vectors live in the metadata database `db` (pgvector): a writer for transactions on
   * it, so documents, chunks and vectors commit together. Undefined otherwise (Qdrant, or tables
   * in another database): write with deletePmids and upsert.
   */
  writerIn?(db: unknown): TransactionWriter | undefined;
  searchDense(vector: number[], limit: number, opts?: SearchOptions): Promise<Hit[]>;
  searchSparse(query: SparseVector, limit: number, opts?: SearchOptions): Promise<Hit[]>;
  /**
   * The sparse leg's first `limit` hits ranked into papers as rag_search ranks that leg alone
   * (corpus/rank.ts rankLeg), where the store can do it beside its index: each paper's best
   * chunk, without payload, with its rank score. pgvector ranks in the BM25 index's thread, so
   * only the winners cross.
   */
  rankSparse?(
    query: SparseVector,
    limit: number,
    rank: PaperRank,
    opts?: SearchOptions,
  ): Promise<{ hit: Hit; score: number }[]>;
  /** The payload of these chunks (those a search returned without it), where the store has it. */
  payloads?(ids: string[]): Promise<Map<string, ChunkPayload>>;
  /** Number of stored chunks. */
  count(): Promise<number>;
  /** Resolves when the store answers; throws VectorStoreError otherwise. */
  health(): Promise<void>;
  close(): Promise<void>;
}
