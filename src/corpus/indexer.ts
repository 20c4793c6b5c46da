/**
 * Stored documents → chunks → embeddings → vector store, then mark them indexed. Shared by the
 * sync (after each batch with embeddings or Qdrant, and for documents a crash left stored but
 * unindexed) and by reindex; the default corpus stores a batch in one transaction (batch.ts).
 */
import type { Embedder } from "../embeddings/embedder.js";
import { isLexicalOnly } from "../embeddings/none.js";
import type { Article } from "../ncbi/types.js";
import type { Store } from "../store/db.js";
import {
  deleteChunksOf,
  getDocuments,
  listUnindexed,
  listUnindexedOf,
  markIndexed,
  replaceChunksOf,
  type ChunkInput,
  type DocumentInput,
} from "../store/docs.js";
import type { ChunkPoint, VectorStore } from "../vectors/vector-store.js";
import { chunkRecord, type IndexChunk } from "./prepare.js";

export interface IndexDeps {
  store: Store;
  vectors: VectorStore;
  embedder: Embedder;
  signal?: AbortSignal;
}

/** What indexing needs of a document: the stored row's fields, its version, its chunks. */
export interface IndexItem {
  doc: Pick<DocumentInput, "pmid" | "title" | "quality" | "isRetracted" | "pdatYear" | "notices">;
  version: number;
  chunks: IndexChunk[];
}

/** Indexes these documents where their stored version is not yet indexed; returns how many. */
export async function indexDocuments(deps: IndexDeps, pmids: string[]): Promise<number> {
  const unindexed = await listUnindexedOf(deps.store.db, pmids);
  if (unindexed.length === 0) return 0;
  const docs = (await getDocuments(deps.store.db, unindexed)).filter(
    (d) => d.indexedVersion !== d.version,
  );
  return indexItems(
    deps,
    docs.map((d) => ({ doc: d, version: d.version, chunks: chunkRecord(d.record as Article) })),
  );
}

/**
 * Writes the chunks, vectors and postings of these documents at these versions, then marks them
 * indexed (only where the stored version is still that one). Returns how many documents.
 */
export async function indexItems(deps: IndexDeps, items: IndexItem[]): Promise<number> {
  const { store, vectors, embedder, signal } = deps;
  if (items.length === 0) return 0;
  const points = chunkPoints(items);
  await writeChunkRows(store.db, vectors, items);
  // Lexical only (EMBEDDINGS_PROVIDER=none): no embedding call, points carry no dense vector.
  const dense = isLexicalOnly(embedder)
    ? []
    : await embedder.embedDocuments(
        points.map((p) => p.payload.text),
        signal,
      );
  // A revised record may have fewer chunks than before: drop the old points first.
  await vectors.deletePmids(items.map((i) => i.doc.pmid));
  await vectors.upsert(
    points.map((p, i) => ({ ...p, dense: Array.from(dense[i] ?? []) })),
    signal,
  );
  await markIndexed(
    store.db,
    items.map((i) => ({ pmid: i.doc.pmid, version: i.version })),
  );
  return items.length;
}

/**
 * The chunks table's rows of these documents, in one transaction of `db` (or the caller's):
 * replaced, or removed where the vector store keeps the chunks (pgvector), so each chunk's text is
 * stored once.
 */
export async function writeChunkRows(
  db: Store["db"],
  vectors: VectorStore,
  items: IndexItem[],
): Promise<void> {
  if (vectors.keepsChunks) {
    await deleteChunksOf(
      db,
      items.map((i) => i.doc.pmid),
    );
  } else await replaceChunksOf(db, chunkRows(items));
}

/** The chunk rows of these documents at these versions. */
export function chunkRows(items: IndexItem[]): { pmid: string; chunks: ChunkInput[] }[] {
  return items.map(({ doc, version, chunks }) => ({
    pmid: doc.pmid,
    chunks: chunks.map((c) => ({
      id: c.id,
      chunkId: c.chunkId,
      ord: c.ord,
      section: c.section,
      text: c.text,
      tokenCount: c.tokenCount,
      version,
    })),
  }));
}

/** The vector-store points of these documents' chunks, with no dense vector yet. */
export function chunkPoints(items: IndexItem[]): ChunkPoint[] {
  return items.flatMap(({ doc, version, chunks }) =>
    chunks.map((c) => ({
      id: c.id,
      pmid: doc.pmid,
      chunkId: c.chunkId,
      dense: [],
      sparse: c.sparse,
      payload: {
        title: doc.title,
        text: c.text,
        quality: doc.quality.total,
        retracted: excludedFromSearch(doc),
        pdatYear: doc.pdatYear,
        version,
        notices: doc.notices,
      },
    })),
  );
}

/**
 * Whether rag_search leaves the paper out: retracted by its record's own flag, or by any
 * retraction notice it carries (a record "retracted and republished" names only its notice).
 */
function excludedFromSearch(doc: Pick<DocumentInput, "isRetracted" | "notices">): boolean {
  return doc.isRetracted || doc.notices.some((n) => n.type === "retraction");
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
