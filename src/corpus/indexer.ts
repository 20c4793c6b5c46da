/**
 * Stored documents → chunks → embeddings → vector store, then mark them indexed. Shared by the
 * sync (after each batch, and for documents a crash left stored but unindexed) and by reindex.
 */
import type { Embedder } from "../embeddings/embedder.js";
import { isLexicalOnly } from "../embeddings/none.js";
import type { Article } from "../eutils/types.js";
import type { Store } from "../store/db.js";
import {
  getDocuments,
  listUnindexed,
  markIndexed,
  replaceChunksOf,
  type ChunkInput,
} from "../store/docs.js";
import type { ChunkPoint, VectorStore } from "../vectors/vector-store.js";
import { docSparseVector, tokenize } from "./bm25.js";
import { chunkArticle } from "./chunk.js";

export interface IndexDeps {
  store: Store;
  vectors: VectorStore;
  embedder: Embedder;
  signal?: AbortSignal;
}

/** Indexes these documents where their stored version is not yet indexed; returns how many. */
export async function indexDocuments(deps: IndexDeps, pmids: string[]): Promise<number> {
  const { store, vectors, embedder, signal } = deps;
  const docs = (await getDocuments(store.db, pmids)).filter((d) => d.indexedVersion !== d.version);
  if (docs.length === 0) return 0;
  const points: Omit<ChunkPoint, "dense">[] = [];
  const rows: { pmid: string; chunks: ChunkInput[] }[] = [];
  for (const doc of docs) {
    const chunks = chunkArticle(doc.record as Article).map((c) => ({
      ...c,
      tokens: tokenize(c.text),
    }));
    rows.push({
      pmid: doc.pmid,
      chunks: chunks.map((c) => ({
        id: c.id,
        chunkId: c.chunkId,
        ord: c.ord,
        section: c.section,
        text: c.text,
        tokenCount: c.tokens.length,
        version: doc.version,
      })),
    });
    for (const c of chunks) {
      points.push({
        id: c.id,
        pmid: doc.pmid,
        chunkId: c.chunkId,
        sparse: docSparseVector(c.tokens),
        payload: {
          title: doc.title,
          text: c.text,
          quality: doc.quality.total,
          retracted: doc.isRetracted,
          pdatYear: doc.pdatYear,
          version: doc.version,
        },
      });
    }
  }
  // One transaction for the batch's chunk rows, not one per document.
  await replaceChunksOf(store.db, rows);
  // Lexical only (EMBEDDINGS_PROVIDER=none): no embedding call, points carry no dense vector.
  const dense = isLexicalOnly(embedder)
    ? []
    : await embedder.embedDocuments(
        points.map((p) => p.payload.text),
        signal,
      );
  // A revised record may have fewer chunks than before: drop the old points first.
  await vectors.deletePmids(docs.map((d) => d.pmid));
  await vectors.upsert(
    points.map((p, i) => ({ ...p, dense: Array.from(dense[i] ?? []) })),
    signal,
  );
  await markIndexed(
    store.db,
    docs.map((d) => ({ pmid: d.pmid, version: d.version })),
  );
  return docs.length;
}

/** Indexes every stored-but-unindexed document (crash or vector-store failure recovery). */
export async function indexPending(deps: IndexDeps, batchSize = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const pending = await listUnindexed(deps.store.db, batchSize);
    if (pending.length === 0) return total;
    const n = await indexDocuments(
      deps,
      pending.map((p) => p.pmid),
    );
    total += n;
    if (n === 0) return total; // nothing indexable (e.g. re-versioned meanwhile): next run retries
  }
}
