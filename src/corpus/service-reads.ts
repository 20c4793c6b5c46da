/**
 * The corpus reads behind resources and notifications (resource://pubmed/corpus, paper
 * completions, paper versions for subscriptions) and the readiness probes. Like service.ts they
 * run where the stores are open, on the stores passed in: in the corpus worker (src/worker/ops.ts).
 */
import { isoDateTime } from "../ncbi/dates.js";
import { checkpointsModule, docsModule } from "./modules.js";
import type { Corpus } from "./runtime.js";

/** What resource://pubmed/corpus shows. */
export async function corpusSummary(corpus: Corpus) {
  const db = corpus.store.db;
  // One after the other, as Jest's ESM loader cannot link modules two concurrent imports share.
  const { listCheckpoints } = await checkpointsModule();
  const { countChunks, countDocuments } = await docsModule();
  const [documents, vectors, checkpoints] = await Promise.all([
    countDocuments(db),
    corpus.vectors.count(),
    listCheckpoints(db),
  ]);
  // Where the vector store keeps the chunks (pgvector), each of its rows is one.
  const chunks = corpus.vectors.keepsChunks ? vectors : await countChunks(db);
  return {
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
  };
}

/** PMIDs in the local corpus that start with `prefix`, in numeric order. */
export async function pmidsStartingWith(
  { store }: Corpus,
  prefix: string,
  limit: number,
): Promise<string[]> {
  if (!/^\d{0,9}$/.test(prefix)) return [];
  const rows = await store.db
    .selectFrom("documents")
    .select("pmid")
    .where("pmid", "like", `${prefix}%`)
    .orderBy((eb) => eb.fn("length", ["pmid"]))
    .orderBy("pmid")
    .limit(limit)
    .execute();
  return rows.map((r) => r.pmid);
}

/** Stored version of each of `pmids` (absent: null). */
export async function paperVersions(
  { store }: Corpus,
  pmids: string[],
): Promise<Record<string, number | null>> {
  const out: Record<string, number | null> = Object.fromEntries(pmids.map((p) => [p, null]));
  const { getDocuments } = await docsModule();
  for (const d of await getDocuments(store.db, pmids)) out[d.pmid] = d.version;
  return out;
}

export type Probe = "metadata_store" | "vector_store" | "embedder";

export async function probe(corpus: Corpus, name: Probe): Promise<void> {
  if (name === "metadata_store") await corpus.store.ping();
  else if (name === "vector_store") await corpus.vectors.health();
  else await corpus.embedder.health();
}
