/**
 * The two adapters must be interchangeable: for the same corpus, the sparse leg returns the same
 * BM25 scores and the dense leg the same cosine similarities, in the same order.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { querySparseVector, tokenize } from "../../src/retrieval/bm25.js";
import { hashEmbed } from "../../src/embeddings/hash.js";
import { PgVectorStore } from "../../src/vectors/pgvector/adapter.js";
import { QdrantVectorStore } from "../../src/vectors/qdrant/adapter.js";
import type { Hit } from "../../src/vectors/vector-store.js";
import { loadQdrantSpec, startFakeQdrant, type FakeQdrant } from "../helpers/fake-qdrant.js";
import { CORPUS, DIMENSION, QUERIES, openPglite, points, type DbHandle } from "./harness.js";

const spec = loadQdrantSpec();

(spec ? describe : describe.skip)("pgvector and qdrant adapters agree", () => {
  let handle: DbHandle;
  let fake: FakeQdrant;
  let pgv: PgVectorStore;
  let qd: QdrantVectorStore;

  beforeAll(async () => {
    handle = await openPglite();
    fake = await startFakeQdrant(spec!);
    pgv = new PgVectorStore(handle.db, true);
    qd = new QdrantVectorStore({ url: fake.url, collection: "parity" });
    for (const s of [pgv, qd]) {
      await s.ensure(DIMENSION);
      await s.upsert(points(CORPUS));
      await s.deletePmids(["1008"]); // N and df must follow deletions alike
    }
  });
  afterAll(async () => {
    await handle.close();
    await fake.stop();
    expect(fake.violations).toEqual([]);
  });

  const same = (a: Hit[], b: Hit[], digits: number) => {
    expect(a.map((h) => h.id)).toEqual(b.map((h) => h.id));
    a.forEach((h, i) => expect(h.score).toBeCloseTo(b[i]!.score, digits));
    expect(a.map((h) => h.payload)).toEqual(b.map((h) => h.payload));
  };

  it.each(QUERIES)("sparse BM25 for %j is identical", async (query) => {
    const q = querySparseVector(tokenize(query));
    for (const opts of [{}, { excludeRetracted: true }]) {
      same(await pgv.searchSparse(q, 10, opts), await qd.searchSparse(q, 10, opts), 4);
    }
  });

  it.each(QUERIES)("dense cosine for %j is identical", async (query) => {
    const v = hashEmbed(query);
    same(await pgv.searchDense(v, 6), await qd.searchDense(v, 6), 5);
  });

  it("counts the same", async () => {
    expect(await pgv.count()).toBe(CORPUS.length - 1);
    expect(await qd.count()).toBe(CORPUS.length - 1);
  });
});
