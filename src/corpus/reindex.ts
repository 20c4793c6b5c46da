/**
 * `pubmed-mcp reindex`: rebuilds every chunk vector from the stored documents with the embedder
 * now configured (or, with EMBEDDINGS_PROVIDER=none, the lexical postings alone), and records its
 * provider/model/dimension — the way out of a dimension or model
 * mismatch, which sync and rag_search otherwise refuse.
 */
import { setMeta } from "../store/meta.js";
import { markAllUnindexed } from "../store/docs.js";
import { indexPending } from "./indexer.js";
import { EMBEDDING_META_KEY, embeddingMeta, type Corpus } from "./runtime.js";

export async function reindexCorpus(
  corpus: Corpus,
): Promise<{ documents: number; embedding: string }> {
  const meta = embeddingMeta(corpus.embedder);
  await corpus.vectors.reset(meta.dimension);
  await markAllUnindexed(corpus.store.db);
  await setMeta(corpus.store.db, EMBEDDING_META_KEY, meta);
  corpus.mismatch = null;
  corpus.syncRefusal = null;
  const documents = await indexPending(corpus);
  await corpus.store.maintain({ checkpoint: true, analyze: true });
  const embedding =
    meta.dimension === 0
      ? "none (lexical only)"
      : `${meta.provider}/${meta.model} (${meta.dimension} dimensions)`;
  return { documents, embedding };
}
