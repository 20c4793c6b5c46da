/**
 * Checks the Qdrant test double itself: it must reject what real Qdrant's spec rejects, answer in
 * the spec's shapes, and compute idf the way Qdrant documents it — otherwise the adapter tests
 * that rely on it prove nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  callFake,
  loadQdrantSpec,
  startFakeQdrant,
  type FakeQdrant,
} from "../helpers/fake-qdrant.js";

const spec = loadQdrantSpec();

(spec ? describe : describe.skip)("fake Qdrant", () => {
  let fake: FakeQdrant;
  const call = (method: string, path: string, body?: unknown) => callFake(fake, method, path, body);
  const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

  beforeAll(async () => {
    fake = await startFakeQdrant(spec!);
    await call("PUT", "/collections/t", {
      vectors: { dense: { size: 2, distance: "Cosine" } },
      sparse_vectors: { bm25: { modifier: "idf" } },
    });
    await call("PUT", "/collections/t/points?wait=true", {
      points: [
        {
          id: id(1),
          vector: { dense: [3, 4], bm25: { indices: [7, 9], values: [1, 2] } },
          payload: { retracted: false },
        },
        {
          id: id(2),
          vector: { dense: [1, 0], bm25: { indices: [7], values: [0.5] } },
          payload: { retracted: true },
        },
        {
          id: id(3),
          vector: { dense: [0, 1], bm25: { indices: [8], values: [1] } },
          payload: { retracted: false },
        },
      ],
    });
  });
  afterAll(() => fake.stop());

  it("answers valid requests with bodies that validate against the response schemas", async () => {
    const before = fake.violations.length;
    expect((await call("GET", "/collections/t")).status).toBe(200);
    expect((await call("GET", "/collections/t/exists")).body.result).toEqual({ exists: true });
    expect(
      (await call("POST", "/collections/t/points/count", { exact: true })).body.result,
    ).toEqual({ count: 3 });
    expect(fake.violations.slice(before)).toEqual([]);
  });

  it("rejects bodies and query strings the spec does not allow, and records them", async () => {
    const before = fake.violations.length;
    const bad = [
      await call("POST", "/collections/t/points/query", {
        query: { indices: [-1], values: [1] },
        using: "bm25",
      }),
      await call("POST", "/collections/t/points/query", { query: [1, 0], filter: { muts: [] } }),
      await call("PUT", "/collections/t/points", {
        points: [{ id: "not-a-uuid", vector: [1, 0] }],
      }),
      await call("PUT", "/collections/t/points?wait=perhaps", { points: [] }),
      await call("PUT", "/collections/t/index", { field_schema: "keyword" }),
    ];
    expect(bad.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    expect(bad[0]!.body.status.error).toMatch(/uint32|>= 0/);
    expect(fake.violations.slice(before).map((v) => [v.operationId, v.where])).toEqual([
      ["query_points", "request"],
      ["query_points", "request"],
      ["upsert_points", "request"],
      ["upsert_points", "query"],
      ["create_field_index", "request"],
    ]);
    fake.violations.splice(before);
  });

  it("scores sparse queries with Qdrant's idf and dense ones by cosine, honouring filters", async () => {
    const idf = (N: number, df: number) => Math.log((N - df + 0.5) / (df + 0.5) + 1);
    const sparse = await call("POST", "/collections/t/points/query", {
      query: { indices: [7, 9], values: [1, 1] },
      using: "bm25",
      with_payload: false,
    });
    expect(sparse.body.result.points.map((p: { id: string }) => p.id)).toEqual([id(1), id(2)]);
    expect(sparse.body.result.points[0].score).toBeCloseTo(idf(3, 2) * 1 + idf(3, 1) * 2, 10);
    expect(sparse.body.result.points[1].score).toBeCloseTo(idf(3, 2) * 0.5, 10);
    const dense = await call("POST", "/collections/t/points/query", {
      query: [1, 0],
      using: "dense",
      filter: { must: [{ key: "retracted", match: { value: false } }] },
    });
    expect(dense.body.result.points.map((p: { score: number }) => p.score)).toEqual([0.6, 0]);
    expect(fake.violations).toEqual([]);
  });

  it("answers 501 for what it does not implement, so tests cannot pass by accident", async () => {
    const res = await call("POST", "/collections/t/points/scroll", {});
    expect(res.status).toBe(501);
    expect(fake.unsupported).toEqual(["operation scroll_points"]);
    fake.unsupported.length = 0;
  });
});
