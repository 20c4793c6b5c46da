/**
 * The behaviour every VectorStore must show, run against each adapter and backend.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "@jest/globals";
import { docSparseVector, querySparseVector, tokenize } from "../../src/retrieval/bm25.js";
import { hashEmbed } from "../../src/embeddings/hash.js";
import { VectorStoreError } from "../../src/errors.js";
import type { Hit, VectorStore } from "../../src/vectors/vector-store.js";
import {
  CORPUS,
  DIMENSION,
  QUERIES,
  chunk,
  expectedBm25,
  points,
  type TestChunk,
} from "./harness.js";

export interface Opened {
  store: VectorStore;
  close(): Promise<void>;
}

const PMIDS = [...new Set(CORPUS.map((c) => c.pmid))];

function expectBm25(hits: Hit[], chunks: TestChunk[], query: string, limit: number): void {
  const expected = [...expectedBm25(chunks, query)].sort((a, b) => b[1] - a[1]);
  expect(hits.length).toBe(Math.min(limit, expected.length));
  hits.forEach((h, i) => {
    expect(h.score).toBeCloseTo(expected[i]![1], 4);
    expect(h.score).toBeCloseTo(expectedBm25(chunks, query).get(h.id)!, 4);
  });
}

/** Registers the shared tests in the current describe block; `get` yields the opened store. */
export function vectorStoreBehaviour(open: () => Promise<Opened>): () => VectorStore {
  let opened: Opened;
  const store = () => opened.store;

  beforeAll(async () => {
    opened = await open();
    await opened.store.ensure(DIMENSION);
  });
  afterAll(async () => {
    await opened?.close();
  });
  beforeEach(async () => {
    await store().deletePmids([...PMIDS, "2001"]);
    await store().upsert(points(CORPUS));
  });

  it("counts what was upserted and answers health checks", async () => {
    expect(await store().count()).toBe(CORPUS.length);
    await expect(store().health()).resolves.toBeUndefined();
    await expect(store().ensure(DIMENSION)).resolves.toBeUndefined();
  });

  it("ranks the nearest chunk first by cosine similarity, with its payload", async () => {
    for (const c of [CORPUS[0]!, CORPUS[3]!, CORPUS[6]!]) {
      const hits = await store().searchDense(c.dense, 5);
      expect(hits).toHaveLength(5);
      expect(hits[0]).toEqual({
        id: c.id,
        pmid: c.pmid,
        score: expect.any(Number),
        payload: c.payload,
      });
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      for (let i = 1; i < hits.length; i++)
        expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
    }
    const q = hashEmbed("statin muscle pain");
    const cos = (v: number[]) => v.reduce((s, x, i) => s + x * q[i]!, 0);
    const hits = await store().searchDense(q, CORPUS.length);
    for (const h of hits)
      expect(h.score).toBeCloseTo(cos(CORPUS.find((c) => c.id === h.id)!.dense), 5);
  });

  it("scores the sparse leg as BM25 = Σ idf(N, df)·tfPart", async () => {
    for (const query of QUERIES) {
      const hits = await store().searchSparse(querySparseVector(tokenize(query)), 4);
      expectBm25(hits, CORPUS, query, 4);
      expect(hits[0]!.payload).toEqual(CORPUS.find((c) => c.id === hits[0]!.id)!.payload);
    }
    expect(await store().searchSparse({ indices: [], values: [] }, 5)).toEqual([]);
  });

  it("leaves payloads out when a search allows it, with each hit's quality, and reads them by id", async () => {
    const q = querySparseVector(tokenize(QUERIES[0]!));
    const pairs: [Hit[], Hit[]][] = [
      [await store().searchSparse(q, 4), await store().searchSparse(q, 4, { withPayload: false })],
      [
        await store().searchDense(CORPUS[0]!.dense, 4),
        await store().searchDense(CORPUS[0]!.dense, 4, { withPayload: false }),
      ],
    ];
    for (const [full, lean] of pairs) {
      expect(lean.map((h) => [h.id, h.pmid])).toEqual(full.map((h) => [h.id, h.pmid]));
      lean.forEach((h, i) => {
        expect(h.score).toBeCloseTo(full[i]!.score, 6);
        expect(h.payload).toBeUndefined();
        expect(h.quality).toBe(full[i]!.payload!.quality);
      });
      const absent = "00000000-0000-4000-8000-00000000dead";
      const read = await store().payloads!([...lean.map((h) => h.id), absent]);
      expect([...read.keys()].sort()).toEqual(lean.map((h) => h.id).sort());
      for (const h of full) expect(read.get(h.id)).toEqual(h.payload);
    }
    expect(await store().payloads!([])).toEqual(new Map());
  });

  it("leaves retracted papers out when asked", async () => {
    const retracted = CORPUS.find((c) => c.payload.retracted)!;
    expect((await store().searchDense(retracted.dense, 3))[0]!.id).toBe(retracted.id);
    const dense = await store().searchDense(retracted.dense, CORPUS.length, {
      excludeRetracted: true,
    });
    expect(dense).toHaveLength(CORPUS.length - 1);
    expect(dense.map((h) => h.id)).not.toContain(retracted.id);
    const q = querySparseVector(tokenize("homeopathy influenza"));
    expect((await store().searchSparse(q, 5)).map((h) => h.id)).toEqual([retracted.id]);
    expect(await store().searchSparse(q, 5, { excludeRetracted: true })).toEqual([]);
  });

  it("deletes every chunk of the given papers and updates N", async () => {
    await store().deletePmids(["1002", "1005"]);
    const left = CORPUS.filter((c) => c.pmid !== "1002" && c.pmid !== "1005");
    expect(await store().count()).toBe(left.length);
    const hits = await store().searchSparse(
      querySparseVector(tokenize("metformin insulin diabetes")),
      10,
    );
    expect(hits.map((h) => h.pmid)).not.toContain("1002");
    expectBm25(hits, left, "metformin insulin diabetes", 10);
    await store().deletePmids([]);
    await store().deletePmids(["9999"]);
    expect(await store().count()).toBe(left.length);
  });

  it("replaces a point re-upserted under the same id, without duplicates", async () => {
    const old = CORPUS[4]!;
    const text = "Vitamin D deficiency and rickets in children";
    const tokens = tokenize(text);
    const replaced: TestChunk = {
      ...old,
      tokens,
      dense: hashEmbed(text),
      sparse: docSparseVector(tokens),
      payload: { ...old.payload, text, version: 2 },
    };
    await store().upsert(points([replaced, CORPUS[0]!]));
    expect(await store().count()).toBe(CORPUS.length);
    const hits = await store().searchDense(replaced.dense, 2);
    expect(hits[0]).toMatchObject({ id: old.id, payload: { text, version: 2 } });
    const corpus = CORPUS.map((c) => (c.id === old.id ? replaced : c));
    for (const query of ["rickets children vitamin", "bone mineral density"]) {
      const sparse = await store().searchSparse(querySparseVector(tokenize(query)), 5);
      expectBm25(sparse, corpus, query, 5);
    }
    // The same id twice in one call: the last one wins.
    await store().upsert(points([old, replaced]));
    expect(await store().count()).toBe(CORPUS.length);
    expect((await store().searchDense(replaced.dense, 1))[0]!.payload?.version).toBe(2);
  });

  it("keeps titles and texts in any script exactly, several chunks in one write", async () => {
    // Multi-byte characters between ASCII ones: each text's place in a batch is counted in bytes.
    const written = [
      chunk(
        "2001",
        "u0",
        "Café-au-lait macules",
        "β-blockers, 中文摘要 and ✓ marks 😀 in one text",
      ),
      chunk("2001", "u1", "Plain", "plain ascii text after a multi-byte one"),
      chunk("2001", "u2", "Ünïcödé “quotes”", `backslash \\ {braces} "double" 'single', comma`),
    ];
    await store().upsert(points(written));
    for (const c of written) {
      const hit = (await store().searchDense(c.dense, CORPUS.length + 3)).find(
        (h) => h.id === c.id,
      );
      expect(hit?.payload).toEqual(c.payload);
    }
    expectBm25(
      await store().searchSparse(querySparseVector(tokenize("blockers ascii braces")), 3),
      [...CORPUS, ...written],
      "blockers ascii braces",
      3,
    );
  });

  it("adds new papers and counts them", async () => {
    const extra = {
      ...CORPUS[0]!,
      id: "0b6b0f53-3c1f-5d0e-9d6e-5b2f4c1a9e01",
      pmid: "2001",
      chunkId: "a0",
    };
    await store().upsert(points([extra]));
    expect(await store().count()).toBe(CORPUS.length + 1);
    const hits = await store().searchDense(extra.dense, 2);
    expect(hits.map((h) => h.pmid).sort()).toEqual(["1001", "2001"]);
  });

  it("refuses malformed points and a different dimension with VectorStoreError", async () => {
    const bad = { ...CORPUS[0]!, dense: [1, 2, 3] };
    await expect(store().upsert(points([bad]))).rejects.toThrow(VectorStoreError);
    const dup = { ...CORPUS[0]!, sparse: { indices: [5, 5], values: [1, 1] } };
    await expect(store().upsert(points([dup]))).rejects.toThrow(/sparse vector is malformed/);
    await expect(store().searchDense([1, 2], 3)).rejects.toThrow(VectorStoreError);
    await expect(store().ensure(DIMENSION + 1)).rejects.toThrow(/768.*769|769.*768/);
    expect(await store().count()).toBe(CORPUS.length);
  });

  it("reset drops every vector and takes a new dimension (reindex)", async () => {
    await store().reset(16);
    expect(await store().count()).toBe(0);
    const small = { ...CORPUS[0]!, dense: Array.from({ length: 16 }, (_, i) => (i === 3 ? 1 : 0)) };
    await store().upsert(points([small]));
    expect(await store().count()).toBe(1);
    expect((await store().searchDense(small.dense, 1))[0]!.id).toBe(small.id);
    await expect(store().ensure(DIMENSION)).rejects.toThrow(VectorStoreError);
    // Back to the suite's size, for the adapter-specific tests that follow.
    await store().reset(DIMENSION);
    await store().upsert(points(CORPUS));
    expect(await store().count()).toBe(CORPUS.length);
  });

  return store;
}
