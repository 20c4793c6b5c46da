/**
 * One EFetch batch of the sync, in two steps the pipeline (./pipeline.ts) can overlap:
 * `prepareBatch` is the CPU work on the reply (parse, documents, content hashes, chunks, tokens)
 * and needs no store; `upsertBatch` and `indexBatch` write it.
 */
import { parseEFetchFast } from "../eutils/parse/efetch.js";
import { upsertDocuments, type DocumentInput, type UpsertResult } from "../store/docs.js";
import { documentInputFromArticle } from "./document.js";
import {
  chunkRecord,
  indexDocuments,
  indexItems,
  type IndexDeps,
  type TokenChunk,
} from "./indexer.js";

export interface PreparedBatch {
  docs: DocumentInput[];
  /** Each document's chunks by PMID (for a PMID listed twice, the last record's, as upserted). */
  chunks: Map<string, TokenChunk[]>;
}

export function prepareBatch(body: string, now: Date): PreparedBatch {
  const docs = parseEFetchFast(body).map((a) => documentInputFromArticle(a, now));
  return { docs, chunks: new Map(docs.map((d) => [d.pmid, chunkRecord(d.record)])) };
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
