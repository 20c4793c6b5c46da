/**
 * One EFetch batch of the sync, in two steps the pipeline (./pipeline.ts) can overlap:
 * `prepareBatch` is the CPU work on the reply (parse, documents, content hashes, chunks, tokens)
 * and needs no store; `upsertBatch` and `indexBatch` write it.
 */
import { readEFetchArticles } from "../eutils/parse/efetch.js";
import { upsertDocuments, type PreparedDocument, type UpsertResult } from "../store/docs.js";
import { encodeRecord } from "../store/record-codec.js";
import { documentInputFromArticle } from "./document.js";
import {
  chunkRecord,
  indexDocuments,
  indexItems,
  type IndexDeps,
  type IndexChunk,
} from "./indexer.js";

/**
 * A batch ready to store: plain data (strings, numbers, arrays, a Map), so it can be prepared in
 * another thread and posted here whole (./prepare-thread.ts).
 */
export interface PreparedBatch {
  /** The documents with their records encoded as stored (no Article objects: nothing reads them). */
  docs: PreparedDocument[];
  /** Each document's chunks by PMID (for a PMID listed twice, the last record's, as upserted). */
  chunks: Map<string, IndexChunk[]>;
}

/** Prepares EFetch replies' batches: on the calling thread, or in a thread (prepare-thread.ts). */
export interface BatchPreparer {
  /** Gets ready before the first reply (starts a thread); optional work, never required. */
  warm(): void;
  prepare(body: string, now: Date): Promise<PreparedBatch>;
}

/** Prepares on the calling thread. */
export const inlinePreparer: BatchPreparer = {
  warm: () => undefined,
  prepare: async (body, now) => prepareBatch(body, now),
};

export function prepareBatch(body: string, now: Date): PreparedBatch {
  const docs: PreparedDocument[] = [];
  const chunks = new Map<string, IndexChunk[]>();
  // Record by record, so each record's parse tree and Article die young.
  readEFetchArticles(body, (article) => {
    const { record: _article, recordJson, ...doc } = documentInputFromArticle(article, now);
    docs.push({ ...doc, recordBytes: encodeRecord(recordJson) });
    chunks.set(article.pmid, chunkRecord(article));
  });
  return { docs, chunks };
}

/** Upserts the batch's documents: inserted, updated or skipped by content hash and LR. */
export function upsertBatch(deps: IndexDeps, batch: PreparedBatch): Promise<UpsertResult[]> {
  return upsertDocuments(deps.store.db, batch.docs);
}

/**
 * Indexes every document of the upserted batch whose stored version is not indexed: inserted and
 * updated ones from the prepared chunks (the stored row is what was just written), skipped ones
 * that an earlier run stored but never indexed from the store, as before.
 */
export async function indexBatch(
  deps: IndexDeps,
  batch: PreparedBatch,
  results: UpsertResult[],
): Promise<void> {
  const byPmid = new Map(batch.docs.map((d) => [d.pmid, d]));
  const written = results.filter((r) => r.outcome !== "skipped");
  await indexItems(
    deps,
    written.flatMap((r) => {
      const doc = byPmid.get(r.pmid);
      return doc ? [{ doc, version: r.version, chunks: batch.chunks.get(r.pmid) ?? [] }] : [];
    }),
  );
  const skipped = results.filter((r) => r.outcome === "skipped").map((r) => r.pmid);
  await indexDocuments(deps, skipped);
}
