/**
 * resource://pubmed/corpus — what the local evidence corpus holds: document and chunk counts, the
 * embedder its vectors were made with, and each saved query's checkpoint.
 */
import { isoDateTime } from "../eutils/dates.js";
import { getCorpus } from "../state.js";
import { defineResource } from "./resource.js";

export const corpusResource = defineResource({
  uri: "resource://pubmed/corpus",
  name: "corpus",
  description:
    "The local evidence corpus as JSON: documents, chunks, vectors, embedding provider/model/" +
    "dimension, stores in use, and the checkpoint of every synced query_key.",
  mimeType: "application/json",
  read: async () => {
    const corpus = await getCorpus();
    const db = corpus.store.db;
    // Store modules load with the store, not at start-up (issue 11); one after the other, as
    // Jest's ESM loader cannot link modules two concurrent imports share.
    const { listCheckpoints } = await import("../store/checkpoints.js");
    const { countChunks, countDocuments } = await import("../store/docs.js");
    const [documents, chunks, vectors, checkpoints] = await Promise.all([
      countDocuments(db),
      countChunks(db),
      corpus.vectors.count(),
      listCheckpoints(db),
    ]);
    return JSON.stringify(
      {
        documents,
        chunks,
        vectors,
        embedding: {
          provider: corpus.embedder.provider,
          model: corpus.embedder.model,
          dimension: corpus.embedder.dimension,
        },
        // lexical: BM25 alone (no embedder, sim null); hybrid: BM25 fused with the dense leg.
        retrieval: corpus.embedder.dimension === 0 ? "lexical" : "hybrid",
        stores: { metadata: corpus.store.kind, vectors: corpus.vectors.kind },
        embeddingMismatch: corpus.mismatch ?? corpus.syncRefusal,
        checkpoints: checkpoints.map((c) => ({
          query_key: c.queryKey,
          last_edat: isoDateTime(c.lastEdat),
          last_mdat: isoDateTime(c.lastMdat),
        })),
      },
      null,
      2,
    );
  },
});
