/**
 * One EFetch batch of the sync, in two steps the pipeline (./pipeline.ts) can overlap:
 * `prepareBatch` (./prepare.ts) is the CPU work on the reply and needs no store; `storeBatch`
 * writes what it gives.
 */
import { isLexicalOnly } from "../embeddings/none.js";
import { upsertDocuments, type UpsertResult } from "../store/docs.js";
import { inTransaction } from "../store/tx.js";
import {
  chunkPoints,
  indexDocuments,
  indexItems,
  type IndexDeps,
  type IndexItem,
  writeChunkRows,
} from "./indexer.js";
import { prepareBatch, type EFetchBody, type PreparedBatch } from "./prepare.js";

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
