/**
 * The dense leg of the pgvector adapter answers from an in-memory exact scan (USearch's
 * exactSearch over a matrix loaded from the rows): its top-k is the exact cosine top-k, with exact
 * scores, no retracted chunk when they are excluded, and a full leg even so; re-syncs and deletions
 * (whose rows the last row fills) show at once, also to a second adapter on the same database
 * (another replica). On PGlite and PostgreSQL (real[] storage).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { v5 as uuidv5 } from "uuid";
import { log } from "../../src/log.js";
import { PgVectorStore } from "../../src/vectors/pgvector/adapter.js";
import type { ChunkPoint, Hit } from "../../src/vectors/vector-store.js";
import { cosine } from "./cosine.js";
import { describePostgres, openPglite, openPostgres, type DbHandle } from "./harness.js";

beforeAll(() => {
  log.silent = true;
});
afterAll(() => {
  log.silent = false;
});

const DIM = 96;
const PAPERS = 1500; // two chunks each
const NAMESPACE = "0b9a3f52-6c1e-4a8d-9f27-5d3e1c7a4b60";

/** mulberry32: the same vectors on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}
const rand = random(12);
const vec = () => Array.from({ length: DIM }, rand);

function point(pmid: string, chunk: number, dense: number[], retracted = false): ChunkPoint {
  return {
    id: uuidv5(`${pmid}:${chunk}`, NAMESPACE),
    pmid,
    chunkId: String(chunk),
    dense,
    sparse: { indices: [], values: [] },
    payload: {
      title: pmid,
      text: "",
      quality: 1,
      retracted,
      pdatYear: null,
      version: 1,
      notices: [],
    },
  };
}

/** Papers 100000…; every 25th retracted. */
const CHUNKS = Array.from({ length: PAPERS }, (_, p) =>
  [0, 1].map((c) => point(String(100_000 + p), c, vec(), p % 25 === 0)),
).flat();
const QUERIES = Array.from({ length: 40 }, vec);

function exactTop(chunks: ChunkPoint[], q: number[], k: number, retracted = false): ChunkPoint[] {
  return chunks
    .filter((c) => retracted || !c.payload.retracted)
    .map((c) => ({ c, s: cosine(c.dense, q) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => x.c);
}

const dense = (s: PgVectorStore, q: number[], k: number): Promise<Hit[]> =>
  s.searchDense(q, k, { excludeRetracted: true, withPayload: false });

function mirrorSuite(open: () => Promise<DbHandle>, exclusive: boolean) {
  const localWrites = exclusive ? { gen: 0, resets: 0 } : undefined;
  let handle: DbHandle;
  let a: PgVectorStore;
  let b: PgVectorStore;
  let live: ChunkPoint[] = CHUNKS;

  beforeAll(async () => {
    handle = await open();
    a = new PgVectorStore(handle.db, handle.hasPgvector, localWrites);
    b = new PgVectorStore(handle.db, handle.hasPgvector, localWrites);
    await a.ensure(DIM);
    await b.ensure(DIM);
    await a.upsert(CHUNKS);
  }, 60_000);
  afterAll(async () => {
    await handle.close();
  });

  it("finds the exact cosine top 10 with exact scores, with and without retracted chunks", async () => {
    for (const q of QUERIES) {
      // Unfiltered, the scan is asked for exactly 10 (the filter widens it by the retracted).
      const all = await a.searchDense(q, 10, { withPayload: false });
      expect(all.map((h) => h.id)).toEqual(exactTop(CHUNKS, q, 10, true).map((c) => c.id));
      const hits = await dense(a, q, 10);
      expect(hits.map((h) => h.id)).toEqual(exactTop(CHUNKS, q, 10).map((c) => c.id));
      const byId = new Map(CHUNKS.map((c) => [c.id, c]));
      for (const h of hits) {
        const c = byId.get(h.id)!;
        expect(c.payload.retracted).toBe(false);
        expect(h.pmid).toBe(c.pmid);
        expect(h.score).toBeCloseTo(cosine(c.dense, q), 4);
        expect(h.quality).toBe(1);
      }
      expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((x, y) => y - x));
    }
    expect(a.denseIndexSize).toBe(CHUNKS.length);
  });

  it("fills a deep leg with live chunks only, and returns payloads when asked", async () => {
    const hits = await a.searchDense(QUERIES[0]!, 300, { excludeRetracted: true });
    expect(hits).toHaveLength(300);
    expect(hits.every((h) => h.payload?.retracted === false)).toBe(true);
    const retracted = CHUNKS.find((c) => c.payload.retracted)!;
    const [own] = await a.searchDense(retracted.dense, 10, {});
    expect(own?.id).toBe(retracted.id);
    expect(own?.payload).toEqual(retracted.payload);
  });

  it("reflects a re-synced paper and a deletion, in this adapter and in another", async () => {
    await dense(b, QUERIES[1]!, 10); // b loads its index before the writes
    const [target] = exactTop(CHUNKS, QUERIES[2]!, 1);
    const moved = CHUNKS.find((c) => c.pmid !== target!.pmid && !c.payload.retracted)!;
    // The paper is synced again: its chunk 0 now sits on the query, chunk 1 is gone.
    await a.deletePmids([moved.pmid]);
    const resynced = point(
      moved.pmid,
      0,
      QUERIES[2]!.map((x) => x * 3),
    );
    await a.upsert([resynced]);
    live = [...CHUNKS.filter((c) => c.pmid !== moved.pmid), resynced];
    for (const s of [a, b]) {
      const hits = await dense(s, QUERIES[2]!, 10);
      expect(hits[0]!.id).toBe(resynced.id);
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      expect(hits.filter((h) => h.pmid === moved.pmid)).toHaveLength(1);
      expect(s.denseIndexSize).toBe(live.length);
    }
    // Deleted: neither adapter returns it, even for its own vector.
    await b.deletePmids([target!.pmid]);
    live = live.filter((c) => c.pmid !== target!.pmid);
    const want = exactTop(live, target!.dense, 10).map((c) => c.id);
    for (const s of [a, b]) {
      const hits = await dense(s, target!.dense, 10);
      expect(hits.map((h) => h.id)).toEqual(want);
      expect(s.denseIndexSize).toBe(live.length);
    }
  });

  it("sees a retraction written by the other adapter", async () => {
    // A chunk's own vector (doubled) is its own nearest.
    const top = live.find((c) => !c.payload.retracted && c.pmid !== live[0]!.pmid)!;
    const q = top.dense.map((x) => x * 2);
    expect((await dense(b, q, 1))[0]?.id).toBe(top.id);
    await a.upsert([{ ...top, payload: { ...top.payload, retracted: true } }]);
    expect((await dense(b, q, 10)).map((h) => h.id)).not.toContain(top.id);
    const own = (await b.searchDense(q, 10, { withPayload: false })).find((h) => h.id === top.id);
    expect(own?.score).toBeCloseTo(1, 5);
  });

  it("starts empty after the other adapter resets the tables", async () => {
    await a.reset(DIM);
    expect(await dense(b, QUERIES[0]!, 10)).toEqual([]);
    await a.upsert(CHUNKS.slice(2, 6));
    expect((await dense(b, CHUNKS[3]!.dense, 1))[0]!.id).toBe(CHUNKS[3]!.id);
    expect(b.denseIndexSize).toBe(4);
  });
}

describe("in-memory dense leg on PGlite (vector storage, one writer process)", () => {
  mirrorSuite(openPglite, true);
});

describePostgres("in-memory dense leg on PostgreSQL (real[] storage, replicas)", () => {
  mirrorSuite(openPostgres, false);
});
