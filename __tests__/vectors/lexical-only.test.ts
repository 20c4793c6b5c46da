/**
 * Both adapters without an embedder (dimension 0, EMBEDDINGS_PROVIDER=none): pgvector keeps the
 * embedding column null, Qdrant gets a sparse-only collection (validated against its OpenAPI
 * description by the test double); the BM25 leg scores as everywhere else and the dense leg
 * refuses with a message that says why.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { querySparseVector, tokenize } from "../../src/retrieval/bm25.js";
import { PgVectorStore } from "../../src/vectors/pgvector/adapter.js";
import { QdrantVectorStore } from "../../src/vectors/qdrant/adapter.js";
import type { VectorStore } from "../../src/vectors/vector-store.js";
import { loadQdrantSpec, startFakeQdrant, type FakeQdrant } from "../helpers/fake-qdrant.js";
import { CORPUS, QUERIES, expectedBm25, openPglite, points, type DbHandle } from "./harness.js";

const spec = loadQdrantSpec();
const lexicalPoints = () => points(CORPUS).map((p) => ({ ...p, dense: [] }));

async function expectBm25(store: VectorStore): Promise<void> {
  expect(await store.count()).toBe(CORPUS.length);
  for (const query of QUERIES) {
    const want = [...expectedBm25(CORPUS, query)].sort((a, b) => b[1] - a[1]);
    const got = await store.searchSparse(querySparseVector(tokenize(query)), 50);
    expect(got.map((h) => h.score)).toEqual(want.map(([, s]) => expect.closeTo(s, 4)));
  }
  await expect(store.searchDense([], 5)).rejects.toThrow(/lexical only/);
}

describe("pgvector adapter, lexical only", () => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openPglite();
  });
  afterAll(async () => {
    await handle.close();
  });

  it("stores postings and no vectors, and scores BM25", async () => {
    const store = new PgVectorStore(handle.db, true);
    await store.ensure(0);
    await store.upsert(lexicalPoints());
    const { rows } = await sql<{ n: number }>`select count(embedding)::int as n
      from chunk_vectors`.execute(handle.db);
    expect(rows[0]?.n).toBe(0);
    await expectBm25(store);
  });
});

(spec ? describe : describe.skip)("qdrant adapter, lexical only", () => {
  let fake: FakeQdrant;
  beforeAll(async () => {
    fake = await startFakeQdrant(spec!);
  });
  afterAll(async () => {
    await fake.stop();
    expect(fake.violations).toEqual([]);
  });

  it("creates a sparse-only collection, stores sparse vectors only, and scores BM25", async () => {
    const name = `lexical_${randomBytes(4).toString("hex")}`;
    const store = new QdrantVectorStore({ url: fake.url, collection: name });
    await store.ensure(0);
    expect(fake.requests.find((r) => r.operationId === "create_collection")?.body).toEqual({
      sparse_vectors: { bm25: { modifier: "idf", index: { on_disk: true } } },
      on_disk_payload: true,
    });
    await store.upsert(lexicalPoints());
    const upsert = fake.requests.find((r) => r.operationId === "upsert_points")!.body as {
      points: { vector: Record<string, unknown> }[];
    };
    expect(upsert.points.every((p) => Object.keys(p.vector).join() === "bm25")).toBe(true);
    await expectBm25(store);
    // Reopened (another process): the collection fits a lexical-only corpus, not a dense one.
    await expect(
      new QdrantVectorStore({ url: fake.url, collection: name }).ensure(0),
    ).resolves.toBe(undefined);
    await expect(
      new QdrantVectorStore({ url: fake.url, collection: name }).ensure(768),
    ).rejects.toThrow(/no cosine vector named "dense"/);
  });
});
