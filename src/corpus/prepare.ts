/**
 * The CPU work on one EFetch reply of the sync — parsing, documents, content hashes, chunks, BM25
 * tokens — which needs no store; batch.ts writes what it gives. The prepare thread
 * (prepare-worker.ts) loads this module, not batch.ts: no database driver or query builder to load
 * while the sync's first requests are out.
 */
import { readEFetchArticles } from "../ncbi/parse/efetch.js";
import type { Article } from "../ncbi/types.js";
import type { PreparedDocument } from "../store/docs.js";
import { docTerms, type SparseVector } from "../retrieval/bm25.js";
import { chunkArticle, type Chunk } from "./chunk.js";
import { documentInputFromArticle } from "./document.js";

/** A chunk with what indexing needs of its BM25 tokens: their count and its sparse vector. */
export type IndexChunk = Chunk & { tokenCount: number; sparse: SparseVector };

/** Chunks of a record, tokenised once for both the chunk rows and the BM25 postings. */
export function chunkRecord(record: Article): IndexChunk[] {
  return chunkArticle(record).map((c) => ({ ...c, ...docTerms(c.text) }));
}

/**
 * A batch ready to store: plain data (strings, numbers, arrays, a Map), so it can be prepared in
 * another thread and posted here whole (./prepare-thread.ts).
 */
export interface PreparedBatch {
  /** The documents with their records as JSON (no Article objects: nothing reads them). */
  docs: PreparedDocument[];
  /** Each document's chunks by PMID (for a PMID listed twice, the last record's, as upserted). */
  chunks: Map<string, IndexChunk[]>;
}

/** An EFetch reply as text, or as UTF-8 bytes (decoded as `Response.text()` decodes them). */
export type EFetchBody = string | Uint8Array;

export function prepareBatch(body: EFetchBody, now: Date): PreparedBatch {
  const docs: PreparedDocument[] = [];
  const chunks = new Map<string, IndexChunk[]>();
  // Record by record, so each record's parse tree and Article die young; bytes are read as they
  // are, not decoded whole (xml-reader.ts).
  readEFetchArticles(body, (article) => {
    const { record: _article, ...doc } = documentInputFromArticle(article, now);
    docs.push(doc);
    chunks.set(article.pmid, chunkRecord(article));
  });
  return { docs, chunks };
}
