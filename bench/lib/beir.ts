/**
 * BEIR-layout retrieval evaluation (corpus.jsonl, queries.jsonl, qrels/test.tsv) through the real
 * corpus path: documents → store → chunks → vectors, then rag_search's ranking per leg.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { documentInputFromArticle } from "../../src/corpus/document.js";
import { indexPending } from "../../src/corpus/indexer.js";
import { ragSearch, type Fusion, type RagSearchInput } from "../../src/corpus/search.js";
import { createEmbedder } from "../../src/embeddings/index.js";
import { emptyArticle, type Article } from "../../src/ncbi/types.js";
import { openStore, type Store } from "../../src/store/db.js";
import { upsertDocuments } from "../../src/store/docs.js";
import { createVectorStore } from "../../src/vectors/index.js";
import type { VectorStore } from "../../src/vectors/vector-store.js";
import type { Embedder } from "../../src/embeddings/embedder.js";

export interface BeirSet {
  docs: { id: string; title: string; text: string }[];
  queries: { id: string; text: string }[];
  /** query id → doc id → grade */
  qrels: Map<string, Map<string, number>>;
}

function jsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
}

export function loadBeir(dir: string): BeirSet {
  const docs = jsonl<{ _id: string; title?: string; text?: string }>(join(dir, "corpus.jsonl")).map(
    (d) => ({ id: d._id, title: d.title ?? "", text: d.text ?? "" }),
  );
  const qrels = new Map<string, Map<string, number>>();
  for (const line of readFileSync(join(dir, "qrels", "test.tsv"), "utf8")
    .split("\n")
    .slice(1)) {
    const [q, d, s] = line.trim().split("\t");
    if (!q || !d || s === undefined) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)?.set(d, Number(s));
  }
  const queries = jsonl<{ _id: string; text: string }>(join(dir, "queries.jsonl"))
    .map((q) => ({ id: q._id, text: q.text }))
    .filter((q) => qrels.has(q.id));
  return { docs, queries, qrels };
}

/** Benchmark documents carry only text: PMIDs are their positions, everything else empty. */
function article(pmid: string, title: string, text: string): Article {
  return {
    ...emptyArticle(pmid),
    title,
    abstractText: text,
    abstractSections: [{ label: null, nlmCategory: null, text }],
  };
}

export interface IndexedSet {
  store: Store;
  vectors: VectorStore;
  embedder: Embedder;
  /** pmid → BEIR doc id */
  docIds: string[];
  close(): Promise<void>;
}

/** `scratch`: an empty or freshly migrated PGlite directory to use (removed on close). */
export async function indexBeir(set: BeirSet, scratch?: string): Promise<IndexedSet> {
  const dataDir = scratch ?? mkdtempSync(join(tmpdir(), "pmcp-beir-"));
  const store = await openStore({ dataDir });
  const vectors = await createVectorStore(
    { vectorStore: "pgvector", qdrant: { url: undefined, apiKey: undefined, collection: "x" } },
    store,
  );
  const embedder = createEmbedder({
    provider: "hash",
    cohereApiKey: undefined,
    cohereBaseUrl: undefined,
    cohereModel: "",
  });
  await vectors.ensure(embedder.dimension);
  const docIds = set.docs.map((d) => d.id);
  for (let i = 0; i < set.docs.length; i += 500) {
    const batch = set.docs
      .slice(i, i + 500)
      .map((d, j) => documentInputFromArticle(article(String(i + j + 1), d.title, d.text)));
    await upsertDocuments(store.db, batch);
  }
  await indexPending({ store, vectors, embedder });
  return {
    store,
    vectors,
    embedder,
    docIds,
    close: async () => {
      await vectors.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Scores {
  ndcg10: number;
  recall100: number;
}

export async function evaluate(
  set: BeirSet,
  indexed: IndexedSet,
  legs: RagSearchInput["legs"],
  fusion?: Fusion,
  denseWeight?: number,
): Promise<Scores> {
  let ndcg = 0;
  let recall = 0;
  for (const q of set.queries) {
    const results = await ragSearch(indexed, {
      query: q.text,
      topK: 100,
      qualityBias: false,
      legs,
      fusion,
      denseWeight,
    });
    const ranked = results.map((r) => indexed.docIds[Number(r.doc_id.slice(5)) - 1] ?? "");
    const rels = set.qrels.get(q.id) ?? new Map<string, number>();
    ndcg += ndcgAt(ranked, rels, 10);
    const relevant = [...rels.values()].filter((g) => g > 0).length;
    recall += relevant
      ? ranked.slice(0, 100).filter((d) => (rels.get(d) ?? 0) > 0).length / relevant
      : 0;
  }
  return { ndcg10: ndcg / set.queries.length, recall100: recall / set.queries.length };
}

/** nDCG with linear gains, as trec_eval / pytrec_eval compute it for BEIR. */
export function ndcgAt(ranked: string[], rels: Map<string, number>, k: number): number {
  const dcg = ranked.slice(0, k).reduce((s, d, i) => s + (rels.get(d) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...rels.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}
