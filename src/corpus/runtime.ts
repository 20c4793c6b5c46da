/**
 * Opens the corpus stores (metadata, vectors, embedder) from the configuration, once, and checks
 * that the corpus was built with the embedder now configured. Two departures are tolerated or
 * explained rather than failed:
 * - vectors stored, `none` configured: rag_search runs its lexical leg (the postings need no
 *   embedder); a sync refuses, as it would leave new chunks without vectors;
 * - built lexical only (`none`), an embedder configured now: sync and search refuse until
 *   `pubmed-mcp reindex` embeds the stored documents.
 */
import type { Config } from "../config.js";
import { createEmbedder } from "../embeddings/index.js";
import type { Embedder } from "../embeddings/embedder.js";
import { log } from "../log.js";
import { openStore, type Store } from "../store/db.js";
import { markAllUnindexed } from "../store/docs.js";
import { getMeta, setMeta } from "../store/meta.js";
import { createVectorStore } from "../vectors/index.js";
import type { VectorStore } from "../vectors/vector-store.js";
import type { BatchPreparer } from "./batch.js";
import { PrepareThread } from "./prepare-thread.js";

export interface EmbeddingMeta {
  provider: string;
  model: string;
  dimension: number;
}

export interface Corpus {
  store: Store;
  vectors: VectorStore;
  embedder: Embedder;
  /** Set when the stored vectors were made by another embedder; sync and search refuse then. */
  mismatch: string | null;
  /** Set when only a sync must refuse (vectors stored, no embedder configured). */
  syncRefusal: string | null;
  /** Set when a sync's replies are prepared in a thread (OpenCorpusOptions.prepareThread). */
  preparer?: BatchPreparer;
  close(): Promise<void>;
}

const META_KEY = "embedding";

export function embeddingMeta(embedder: Embedder): EmbeddingMeta {
  return { provider: embedder.provider, model: embedder.model, dimension: embedder.dimension };
}

export interface OpenCorpusOptions {
  /** The BM25 index in a thread of its own (the corpus worker's choice: see lexical-thread.ts). */
  lexicalThread?: boolean;
  /** A sync's EFetch replies prepared in a thread of their own (likewise: prepare-thread.ts). */
  prepareThread?: boolean;
}

export async function openCorpus(config: Config, opts: OpenCorpusOptions = {}): Promise<Corpus> {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    vectorExtension: config.vectorStore === "pgvector",
    templateDir: config.cacheDir,
  });
  try {
    const embedder = createEmbedder(config.embeddings);
    const vectors = await createVectorStore(config, store, { lexicalThread: opts.lexicalThread });
    const current = embeddingMeta(embedder);
    const stored = await getMeta<EmbeddingMeta>(store.db, META_KEY);
    if (!stored) await setMeta(store.db, META_KEY, current);
    const { mismatch, syncRefusal } = compare(stored ?? current, current);
    if (!mismatch) {
      // Vectors kept under a lexical-only configuration keep their tables' shape.
      await vectors.ensure(syncRefusal ? (stored?.dimension ?? 0) : current.dimension);
      if (!syncRefusal) await requeueLostVectors(store, vectors);
    }
    const preparer = opts.prepareThread ? new PrepareThread() : undefined;
    return {
      store,
      vectors,
      embedder,
      mismatch,
      syncRefusal,
      ...(preparer && { preparer }),
      close: async () => {
        await preparer?.close();
        await vectors.close();
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/**
 * An empty vector store under documents marked indexed was reset or replaced (a new Qdrant
 * volume, a deleted collection): mark them unindexed so the next sync rebuilds their vectors,
 * instead of leaving them stored, "indexed" and unsearchable for ever.
 * Guarded by __tests__/corpus/failures.test.ts ("Qdrant replaced by an empty instance").
 */
async function requeueLostVectors(store: Store, vectors: VectorStore): Promise<void> {
  if ((await vectors.count()) > 0) return;
  const documents = await markAllUnindexed(store.db);
  const message =
    "the vector store is empty under indexed documents; the next sync re-indexes them";
  if (documents > 0) log.warn(message, { documents });
}

function compare(
  stored: EmbeddingMeta,
  current: EmbeddingMeta,
): { mismatch: string | null; syncRefusal: string | null } {
  const same =
    stored.provider === current.provider &&
    stored.model === current.model &&
    stored.dimension === current.dimension;
  if (same) return { mismatch: null, syncRefusal: null };
  if (current.dimension === 0) {
    return {
      mismatch: null,
      syncRefusal:
        `The corpus was indexed with ${describe(stored)} and EMBEDDINGS_PROVIDER=none is configured: ` +
        "rag_search runs its lexical leg only, and a sync would leave new chunks without vectors. " +
        `Set EMBEDDINGS_PROVIDER=${stored.provider} to sync again, or run \`pubmed-mcp reindex\` to make the corpus lexical only.`,
    };
  }
  if (stored.dimension === 0) {
    return {
      mismatch:
        `The corpus was built lexical only (EMBEDDINGS_PROVIDER=none) and holds no vectors, but ${describe(current)} is configured. ` +
        "Run `pubmed-mcp reindex` to embed the stored documents, or set EMBEDDINGS_PROVIDER=none.",
      syncRefusal: null,
    };
  }
  return {
    mismatch:
      `The corpus was indexed with ${describe(stored)}, but ${describe(current)} is configured. ` +
      "Run `pubmed-mcp reindex` to rebuild the vectors from the stored documents, or restore the previous embedding settings.",
    syncRefusal: null,
  };
}

function describe(m: EmbeddingMeta): string {
  if (m.dimension === 0) return "no embeddings (lexical only)";
  return `${m.provider}/${m.model} (${m.dimension} dimensions)`;
}

export { META_KEY as EMBEDDING_META_KEY };
