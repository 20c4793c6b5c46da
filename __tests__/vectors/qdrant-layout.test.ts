/**
 * The Qdrant collection layout for millions of chunks (src/vectors/qdrant/layout.ts), checked
 * against the spec-validating test double, whose closed objects turn a misspelt field into a 400:
 * what a new collection is made with, the payload indexes behind every filter, the search params
 * of the dense leg, and the in-place upgrade of a collection an older version made.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { QdrantVectorStore } from "../../src/vectors/qdrant/adapter.js";
import { createBody } from "../../src/vectors/qdrant/layout.js";
import {
  callFake,
  loadQdrantSpec,
  startFakeQdrant,
  type FakeQdrant,
} from "../helpers/fake-qdrant.js";
import { CORPUS, DIMENSION, points } from "./harness.js";

const spec = loadQdrantSpec();
const INT8 = { scalar: { type: "int8", quantile: 0.99, always_ram: true } };
/** The collection bodies version 0.x made, before the layout. */
const OLD_BODY = {
  vectors: { dense: { size: DIMENSION, distance: "Cosine" } },
  sparse_vectors: { bm25: { modifier: "idf" } },
};

(spec ? describe : describe.skip)("qdrant collection layout", () => {
  let fake: FakeQdrant;
  const call = (method: string, path: string, body?: unknown) => callFake(fake, method, path, body);
  const name = () => `layout_${randomBytes(4).toString("hex")}`;
  const ops = (from: number) => fake.requests.slice(from).map((r) => r.operationId);
  const bodiesOf = (op: string, from = 0) =>
    fake.requests
      .slice(from)
      .filter((r) => r.operationId === op)
      .map((r) => r.body);

  /** A collection as an older version left it: no layout, only the pmid index, three points. */
  async function oldCollection(extra: Record<string, unknown> = {}): Promise<string> {
    const c = name();
    expect((await call("PUT", `/collections/${c}`, { ...OLD_BODY, ...extra })).status).toBe(200);
    const index = { field_name: "pmid", field_schema: "keyword" };
    expect((await call("PUT", `/collections/${c}/index?wait=true`, index)).status).toBe(200);
    await new QdrantVectorStore({ url: fake.url, collection: c }).upsert(
      points(CORPUS.slice(0, 3)),
    );
    return c;
  }

  beforeAll(async () => {
    fake = await startFakeQdrant(spec!);
  });
  afterAll(async () => {
    await fake.stop();
  });

  it("makes a new collection with originals and payload on disk, int8 in RAM, and every filter indexed", async () => {
    const c = name();
    const store = new QdrantVectorStore({ url: fake.url, collection: c });
    await store.ensure(DIMENSION);
    expect(bodiesOf("create_collection").at(-1)).toEqual({
      vectors: { dense: { size: DIMENSION, distance: "Cosine", on_disk: true } },
      sparse_vectors: { bm25: { modifier: "idf", index: { on_disk: true } } },
      hnsw_config: { m: 16, ef_construct: 100 },
      quantization_config: INT8,
      on_disk_payload: true,
    });
    await store.upsert(points(CORPUS));
    await store.deletePmids([CORPUS[0]!.pmid]);
    await store.searchDense(CORPUS[1]!.dense, 5, { excludeRetracted: true });
    await store.searchSparse(CORPUS[1]!.sparse, 5, { excludeRetracted: true });
    // Every payload key any request filtered by has an index (a filter on an unindexed field
    // scans every point's payload from disk).
    const keys = new Set(
      fake.requests
        .flatMap((r) => JSON.stringify(r.body ?? {}).match(/"key":"[^"]+"/g) ?? [])
        .map((k) => k.slice(7, -1)),
    );
    expect([...keys].sort()).toEqual(["pmid", "retracted"]);
    const schema = fake.collections.get(c)!.payloadSchema;
    for (const key of keys) expect([key, schema[key]]).toEqual([key, expect.any(String)]);
    expect(schema).toEqual({ pmid: "keyword", retracted: "bool", pdat_year: "integer" });
    expect(fake.violations).toEqual([]);
  });

  it("asks the dense leg for a rescored, oversampled int8 shortlist; the sparse leg for none", async () => {
    const store = new QdrantVectorStore({ url: fake.url, collection: name() });
    await store.ensure(DIMENSION);
    await store.upsert(points(CORPUS));
    const from = fake.requests.length;
    await store.searchDense(CORPUS[0]!.dense, 300);
    await store.searchDense(CORPUS[0]!.dense, 3);
    await store.searchSparse(CORPUS[0]!.sparse, 300);
    const [deep, shallow, sparse] = bodiesOf("query_points", from) as Record<string, unknown>[];
    const quantization = { rescore: true, oversampling: 1.5 };
    expect(deep!.params).toEqual({ hnsw_ef: 450, quantization });
    expect(shallow!.params).toEqual({ hnsw_ef: 128, quantization });
    expect(sparse!.params).toBeUndefined();
    expect(fake.violations).toEqual([]);
  });

  it("brings an older collection to the layout in place, and a second start changes nothing", async () => {
    const c = await oldCollection({ on_disk_payload: false });
    const before = structuredClone([...fake.collections.get(c)!.points.values()]);
    let from = fake.requests.length;
    await new QdrantVectorStore({ url: fake.url, collection: c }).ensure(DIMENSION);
    expect(ops(from)).toEqual([
      "collection_exists",
      "get_collection",
      "update_collection",
      "create_field_index",
      "create_field_index",
    ]);
    expect(bodiesOf("update_collection", from)).toEqual([
      {
        vectors: { dense: { on_disk: true } },
        quantization_config: INT8,
        params: { on_disk_payload: true },
        sparse_vectors: { bm25: { modifier: "idf", index: { on_disk: true } } },
      },
    ]);
    expect(bodiesOf("create_field_index", from)).toEqual([
      { field_name: "retracted", field_schema: "bool" },
      { field_name: "pdat_year", field_schema: "integer" },
    ]);
    // What Qdrant now reports is the layout a new collection is made with.
    const info = fake.collections.get(c)!;
    const fresh = createBody(DIMENSION);
    expect(info.dense).toEqual(fresh.vectors);
    expect(info.sparse).toEqual(fresh.sparse_vectors);
    expect([info.config.quantization, info.config.onDiskPayload]).toEqual([INT8, true]);

    // The next start (another replica, a restart) reads and leaves it.
    from = fake.requests.length;
    const again = new QdrantVectorStore({ url: fake.url, collection: c });
    await again.ensure(DIMENSION);
    expect(ops(from)).toEqual(["collection_exists", "get_collection"]);
    expect([...fake.collections.get(c)!.points.values()]).toEqual(before);
    expect(await again.count()).toBe(3);
    const hits = await again.searchDense(CORPUS[1]!.dense, 1);
    expect(hits.map((h) => h.id)).toEqual([CORPUS[1]!.id]);
    expect(fake.violations).toEqual([]);
  });

  it("keeps an operator's own quantization (binary, for a smaller host)", async () => {
    const binary = { binary: { always_ram: true } };
    const c = await oldCollection({ quantization_config: binary, on_disk_payload: true });
    const from = fake.requests.length;
    await new QdrantVectorStore({ url: fake.url, collection: c }).ensure(DIMENSION);
    expect(bodiesOf("update_collection", from)).toEqual([
      {
        vectors: { dense: { on_disk: true } },
        sparse_vectors: { bm25: { modifier: "idf", index: { on_disk: true } } },
      },
    ]);
    expect(fake.collections.get(c)!.config.quantization).toEqual(binary);
  });

  it("refuses a collection of another vector size before changing anything", async () => {
    const c = await oldCollection();
    const from = fake.requests.length;
    const store = new QdrantVectorStore({ url: fake.url, collection: c });
    await expect(store.ensure(DIMENSION * 2)).rejects.toThrow(
      `Qdrant collection "${c}" holds 768-number vectors but the embedder makes 1536. Run \`pubmed-mcp reindex\` into a new QDRANT_COLLECTION, or delete the collection.`,
    );
    expect(ops(from)).toEqual(["collection_exists", "get_collection"]);
    expect(fake.collections.get(c)!.points.size).toBe(3);
  });

  it("answers 400 to a misspelt or mistyped layout field, so a wrong body fails these tests", async () => {
    const c = name();
    const before = fake.violations.length;
    const bad = [
      await call("PUT", `/collections/${c}`, { ...createBody(DIMENSION), on_disk_paylod: true }),
      await call("PUT", `/collections/${c}`, {
        ...createBody(DIMENSION),
        quantization_config: { scalar: { type: "int4", always_ram: true } },
      }),
      await call("PATCH", `/collections/${c}`, { hnsw_config: { m: 16, ef_construc: 64 } }),
      await call("POST", `/collections/${c}/points/query`, {
        query: [1, 0],
        params: { hnsw_ef: 128, quantization: { rescore: true, oversample: 2 } },
      }),
      await call("PUT", `/collections/${c}/index`, { field_name: "pmid", field_schema: "keywrd" }),
    ];
    expect(bad.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    const found = fake.violations.slice(before);
    expect(found.map((v) => v.operationId)).toEqual([
      "create_collection",
      "create_collection",
      "update_collection",
      "query_points",
      "create_field_index",
    ]);
    const unknown = (i: number) =>
      found[i]!.errors.flatMap((e) =>
        e.message === "must NOT have additional properties"
          ? [(e.params as { additionalProperty: string }).additionalProperty]
          : [],
      );
    expect(unknown(0)).toContain("on_disk_paylod");
    expect(unknown(2)).toContain("ef_construc");
    expect(unknown(3)).toContain("oversample");
    expect(fake.collections.has(c)).toBe(false);
    fake.violations.splice(before);
  });
});
