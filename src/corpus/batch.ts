/**
 * One EFetch batch of the sync, in two steps the pipeline (./pipeline.ts) can overlap:
 * `prepareBatch` is the CPU work on the reply (parse, documents, content hashes, chunks, tokens)
 * and needs no store; `storeBatch` writes it.
 */
import { readEFetchArticles } from "../eutils/parse/efetch.js";
import { isLexicalOnly } from "../embeddings/none.js";
import { upsertDocuments, type PreparedDocument, type UpsertResult } from "../store/docs.js";
import { inTransaction } from "../store/tx.js";
import { documentInputFromArticle } from "./document.js";
import {
  chunkPoints,
  chunkRecord,
  indexDocuments,
  indexItems,
  type IndexChunk,
  type IndexDeps,
  type IndexItem,
  writeChunkRows,
} from "./indexer.js";

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

/** Prepares EFetch replies' batches: on the calling thread, or in a thread (prepare-thread.ts). */
export interface BatchPreparer {
  /** Gets ready before the first reply (starts a thread); optional work, never required. */
  warm(): void;
  /** `body`: an EFetch reply, as text or as its UTF-8 bytes. */
  prepare(body: EFetchBody, now: Date): Promise<PreparedBatch>;
}

/** Prepares on the calling thread. */
export const inlinePreparer: BatchPreparer = {
  warm: () => undefined,
  prepare: async (body, now) => prepareBatch(body, now),
};

/** An EFetch reply as text, or as UTF-8 bytes (decoded as `Response.text()` decodes them). */
export type EFetchBody = string | Uint8Array;

export function prepareBatch(body: EFetchBody, now: Date): PreparedBatch {
  const docs: PreparedDocument[] = [];
  const chunks = new Map<string, IndexChunk[]>();
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  // Record by record, so each record's parse tree and Article die young.
  readEFetchArticles(text, (article) => {
    const { record: _article, ...doc } = documentInputFromArticle(article, now);
    docs.push(doc);
    chunks.set(article.pmid, chunkRecord(article));
  });
  return { docs, chunks };
}

/**
 * Stores a prepared batch and indexes what it wrote; returns each document's outcome. Where no
 * embedding is made (lexical only, the default) and the vectors live in the store's database
 * (pgvector), it is one transaction: the documents are written already marked indexed, with their
 * chunks and postings (one commit and one row version per document instead of four commits and
 * two versions); the chunks are pgvector's rows alone (writeChunkRows). Otherwise the documents
 * first, then the index (indexItems).
 */
export async function storeBatch(deps: IndexDeps, batch: PreparedBatch): Promise<UpsertResult[]> {
  const { store, vectors, embedder, signal } = deps;
  const writer = isLexicalOnly(embedder) ? vectors.writerIn?.(store.db) : undefined;
  if (!writer) {
    const results = await upsertDocuments(store.db, batch.docs);
    await indexItems(deps, writtenItems(batch, results));
    await indexDocuments(deps, skippedPmids(results));
    return results;
  }
  signal?.throwIfAborted();
  let committed: (() => void) | undefined;
  const results = await inTransaction(store.db, async (trx) => {
    const results = await upsertDocuments(trx, batch.docs, { indexed: true });
    const items = writtenItems(batch, results);
    await writeChunkRows(trx, vectors, items);
    committed = await writer(
      trx,
      items.map((i) => i.doc.pmid),
      chunkPoints(items),
    );
    return results;
  });
  committed?.();
  // Skipped documents are indexed too when an earlier run stored but never indexed them.
  await indexDocuments(deps, skippedPmids(results));
  return results;
}

/** The inserted and updated documents of the batch, at their new versions, with their chunks. */
function writtenItems(batch: PreparedBatch, results: UpsertResult[]): IndexItem[] {
  const byPmid = new Map(batch.docs.map((d) => [d.pmid, d]));
  return results.flatMap((r) => {
    const doc = r.outcome === "skipped" ? undefined : byPmid.get(r.pmid);
    return doc ? [{ doc, version: r.version, chunks: batch.chunks.get(r.pmid) ?? [] }] : [];
  });
}

function skippedPmids(results: UpsertResult[]): string[] {
  return results.filter((r) => r.outcome === "skipped").map((r) => r.pmid);
}
