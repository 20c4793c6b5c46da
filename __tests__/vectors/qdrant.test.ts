import { afterAll, describe, expect, it, jest } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { VectorStoreError } from "../../src/errors.js";
import { createVectorStore } from "../../src/vectors/index.js";
import { QdrantVectorStore } from "../../src/vectors/qdrant/adapter.js";
import {
  loadQdrantSpec,
  QDRANT_SPEC_PATH,
  startFakeQdrant,
  type FakeQdrant,
} from "../helpers/fake-qdrant.js";
import { startGate } from "../helpers/corpus.js";
import { CORPUS, DIMENSION, points } from "./harness.js";
import { vectorStoreBehaviour } from "./suite.js";

const spec = loadQdrantSpec();
const describeSpec = spec ? describe : describe.skip;
if (!spec)
  process.stderr.write(`note: skipping the Qdrant adapter suites: ${QDRANT_SPEC_PATH} is absent\n`);

const collectionName = () => `chunks_${randomBytes(4).toString("hex")}`;
const noDb = { db: undefined as never, hasPgvector: false };

describeSpec("qdrant adapter against the spec-validating test double", () => {
  let fake: FakeQdrant;
  let name: string;
  const store = vectorStoreBehaviour(async () => {
    fake = await startFakeQdrant(spec!);
    name = collectionName();
    const s = await createVectorStore(
      { vectorStore: "qdrant", qdrant: { url: fake.url, apiKey: undefined, collection: name } },
      noDb,
    );
    expect(s).toBeInstanceOf(QdrantVectorStore);
    return { store: s, close: () => fake.stop() };
  });

  afterAll(() => {
    // Every request the adapter made, and every answer the double gave, matched the spec.
    expect(fake.violations).toEqual([]);
    expect(fake.unsupported).toEqual([]);
  });

  it("created a named cosine vector, an idf sparse vector and the payload indexes", () => {
    const create = fake.requests.find((r) => r.operationId === "create_collection")!;
    expect(create.path).toBe(`/collections/${name}`);
    // The layout of src/vectors/qdrant/layout.ts; __tests__/vectors/qdrant-layout.test.ts has more.
    expect(create.body).toEqual({
      vectors: { dense: { size: DIMENSION, distance: "Cosine", on_disk: true } },
      sparse_vectors: { bm25: { modifier: "idf", index: { on_disk: true } } },
      hnsw_config: { m: 16, ef_construct: 100 },
      quantization_config: { scalar: { type: "int8", quantile: 0.99, always_ram: true } },
      on_disk_payload: true,
    });
    // A collection made with the layout needs no update.
    expect(fake.requests.filter((r) => r.operationId === "update_collection")).toEqual([]);
    expect(fake.collections.get(name)!.payloadSchema).toEqual({
      pmid: "keyword",
      retracted: "bool",
      pdat_year: "integer",
    });
  });

  it("writes with wait=true, stores the payload in snake_case and queries with a filter", async () => {
    await store().searchDense(CORPUS[0]!.dense, 3, { excludeRetracted: true });
    const upsert = fake.requests.filter((r) => r.operationId === "upsert_points").at(-1)!;
    expect(upsert.query).toBe("?wait=true");
    const stored = fake.collections.get(name)!.points.get(CORPUS[1]!.id)!;
    expect(stored.payload).toEqual({
      pmid: "1002",
      chunk_id: "a0",
      title: CORPUS[1]!.payload.title,
      text: CORPUS[1]!.payload.text,
      quality: 3,
      retracted: false,
      pdat_year: null,
      version: 1,
      notices: [],
    });
    // A paper's notices are stored as the corpus gives them.
    expect(fake.collections.get(name)!.points.get(CORPUS[3]!.id)!.payload.notices).toEqual([
      { type: "correction", notice_pmid: "2003", date: "2021-05-04" },
    ]);
    const query = fake.requests.filter((r) => r.operationId === "query_points").at(-1)!;
    expect(query.body).toMatchObject({
      using: "dense",
      limit: 3,
      with_payload: true,
      filter: { must: [{ key: "retracted", match: { value: false } }] },
    });
    const del = fake.requests.find((r) => r.operationId === "delete_points")!;
    expect(del.query).toBe("?wait=true");
  });

  it("reads only pmid and quality of a search's candidates when their payloads may wait", async () => {
    const hits = await store().searchDense(CORPUS[0]!.dense, 3, { withPayload: false });
    const query = fake.requests.filter((r) => r.operationId === "query_points").at(-1)!;
    expect(query.body).toMatchObject({ with_payload: { include: ["pmid", "quality"] } });
    await store().payloads!(hits.map((h) => h.id));
    const read = fake.requests.filter((r) => r.operationId === "get_points").at(-1)!;
    expect(read.path).toBe(`/collections/${name}/points`);
    expect(read.body).toEqual({
      ids: hits.map((h) => h.id),
      with_payload: true,
      with_vector: false,
    });
  });

  it("refuses to reuse a collection made for another vector size", async () => {
    const other = new QdrantVectorStore({ url: fake.url, collection: name });
    await expect(other.ensure(DIMENSION * 2)).rejects.toThrow(
      /holds 768-number vectors but the embedder makes 1536/,
    );
  });
});

describeSpec("qdrant adapter failures", () => {
  it("reports an unreachable Qdrant with what to do", async () => {
    const fake = await startFakeQdrant(spec!);
    const store = new QdrantVectorStore({ url: fake.url, collection: collectionName() });
    await store.ensure(DIMENSION);
    await store.upsert(points(CORPUS.slice(0, 2)));
    await fake.stop();
    for (const call of [
      () => store.count(),
      () => store.health(),
      () => store.searchDense(CORPUS[0]!.dense, 2),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VectorStoreError);
      expect((err as Error).message).toBe(
        `Qdrant at ${fake.url} is not reachable; start it or unset QDRANT_URL to use the embedded pgvector store.`,
      );
    }
    expect(fake.violations).toEqual([]);
  });

  it("tries once more after a connection reset (an idle keep-alive closed under it), not twice", async () => {
    const fake = await startFakeQdrant(spec!);
    const gate = await startGate(fake.url);
    try {
      const store = new QdrantVectorStore({ url: gate.url, collection: collectionName() });
      await store.ensure(DIMENSION);
      await store.upsert(points(CORPUS.slice(0, 2)));
      let resets = 0;
      gate.fail("hangup", (r) => r.path.includes("/points/delete") && ++resets === 1);
      await expect(store.deletePmids([CORPUS[0]!.pmid])).resolves.toBeUndefined();
      expect(await store.count()).toBe(1);
      // A service that keeps resetting is reported after the second try.
      gate.fail("hangup", (r) => r.path.includes("/points/delete"));
      const deletes = () => gate.requests.filter((r) => r.path.includes("/points/delete")).length;
      const before = deletes();
      await expect(store.deletePmids([CORPUS[1]!.pmid])).rejects.toThrow(/is not reachable/);
      expect(deletes() - before).toBe(2);
    } finally {
      await gate.close();
      await fake.stop();
    }
  });

  it("reports a rejected API key without echoing it", async () => {
    const fake = await startFakeQdrant(spec!, { apiKey: "right-key" });
    // The client warns on stderr that a key travels over plain http; expected here.
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const store = new QdrantVectorStore({
        url: fake.url,
        apiKey: "wrong-key-123",
        collection: "c",
      });
      const err = (await store.health().catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(VectorStoreError);
      expect(err.message).toMatch(/rejected the request \(HTTP 401\); check QDRANT_API_KEY/);
      expect(err.message).not.toContain("wrong-key-123");
      const ok = new QdrantVectorStore({ url: fake.url, apiKey: "right-key", collection: "c" });
      await expect(ok.health()).resolves.toBeUndefined();
    } finally {
      warn.mockRestore();
      await fake.stop();
    }
  });

  it("passes Qdrant's own error text through for a bad request", async () => {
    const fake = await startFakeQdrant(spec!);
    try {
      const store = new QdrantVectorStore({ url: fake.url, collection: "missing" });
      await expect(store.deletePmids(["1"])).rejects.toThrow(
        /could not delete chunk vectors \(HTTP 404\): Not found: Collection `missing` doesn't exist!/,
      );
      expect(fake.violations).toEqual([]);
    } finally {
      await fake.stop();
    }
  });
});

/**
 * The same behaviour suite against a real Qdrant when QDRANT_URL is set, e.g.
 * `docker compose up -d qdrant && QDRANT_URL=http://127.0.0.1:6333 npm test -- __tests__/vectors`.
 */
const realUrl = process.env.QDRANT_URL;
if (!realUrl) process.stderr.write("note: skipping the real-Qdrant suite: QDRANT_URL is not set\n");
(realUrl ? describe : describe.skip)("qdrant adapter against a real Qdrant (QDRANT_URL)", () => {
  vectorStoreBehaviour(async () => {
    const s = await createVectorStore(
      {
        vectorStore: "qdrant",
        qdrant: {
          url: realUrl ?? "",
          apiKey: process.env.QDRANT_API_KEY,
          collection: collectionName(),
        },
      },
      noDb,
    );
    return { store: s, close: async () => undefined };
  });
});
