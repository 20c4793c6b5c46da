/**
 * The dense leg's in-memory index (src/vectors/dense-index.ts) under churn: chunks added, replaced
 * and removed in random order (a removed chunk's row is filled by the last one, the matrix grows
 * past its first room), checked after every step against a model searched by brute force.
 */
import { describe, expect, it } from "@jest/globals";
import { DenseIndex, decodeVectorSend, type DenseRow } from "../../src/vectors/dense-index.js";
import { cosine } from "./cosine.js";

const DIM = 24;

/** mulberry32: the same run every time. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function expected(
  model: Map<string, DenseRow>,
  q: Float32Array,
  k: number,
  dropRetracted: boolean,
) {
  return [...model.values()]
    .filter((r) => !(dropRetracted && r.retracted))
    .map((r) => ({ id: r.id, score: cosine(r.vector!, q) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

describe("DenseIndex", () => {
  it("answers as an exact search of what is live, through adds, replacements and removals", async () => {
    const rand = random(7);
    const vector = () => Float32Array.from({ length: DIM }, () => rand() - 0.5);
    const index = await DenseIndex.create(DIM);
    const model = new Map<string, DenseRow>();
    let next = 0;
    let peak = 0;
    for (let step = 0; step < 60; step++) {
      const live = [...model.keys()];
      const rows: DenseRow[] = [];
      // More adds than removals early on, so the index outgrows its first 1,024 rows.
      for (let i = 0; i < 60; i++) {
        const replace = live.length > 0 && rand() < 0.3;
        const id = replace ? live[Math.floor(rand() * live.length)]! : `c${next++}`;
        rows.push({
          id,
          pmid: `p${id}`,
          retracted: rand() < 0.1,
          quality: Math.round(rand() * 100) / 10,
          // A row without a vector of the index's size is not searchable (it still replaces).
          vector: rand() < 0.05 ? null : vector(),
        });
      }
      const removed = step < 30 ? [] : live.filter(() => rand() < 0.15);
      index.apply(rows, removed);
      for (const id of removed) model.delete(id);
      for (const r of rows) {
        model.delete(r.id);
        if (r.vector) model.set(r.id, r);
      }
      expect(index.size).toBe(model.size);
      peak = Math.max(peak, index.size);
      const q = vector();
      for (const dropRetracted of [false, true]) {
        const hits = index.search(q, 10, dropRetracted);
        const want = expected(model, q, 10, dropRetracted);
        expect(hits.map((h) => h.id)).toEqual(want.map((w) => w.id));
        for (const [i, h] of hits.entries()) {
          const row = model.get(h.id)!;
          expect(h.score).toBeCloseTo(want[i]!.score, 5);
          expect(h.pmid).toBe(row.pmid);
          expect(h.quality).toBeCloseTo(row.quality, 5);
        }
      }
    }
    expect(peak).toBeGreaterThan(1024);
    expect(index.size).toBeLessThan(peak);
  });

  it("gives a full leg past the retracted, and nothing when empty or asked for none", async () => {
    const index = await DenseIndex.create(2);
    expect(index.search(Float32Array.of(1, 0), 5, false)).toEqual([]);
    const rows: DenseRow[] = Array.from({ length: 6 }, (_, i) => ({
      id: `c${i}`,
      pmid: `p${i}`,
      retracted: i < 3,
      quality: 1,
      vector: Float32Array.of(1, i / 10),
    }));
    index.apply(rows, []);
    expect(index.search(Float32Array.of(1, 0), 3, true).map((h) => h.id)).toEqual([
      "c3",
      "c4",
      "c5",
    ]);
    expect(index.search(Float32Array.of(1, 0), 3, false).map((h) => h.id)).toEqual([
      "c0",
      "c1",
      "c2",
    ]);
    expect(index.search(Float32Array.of(1, 0), 0, false)).toEqual([]);
    // A query viewing a larger buffer at an offset is read from its own numbers.
    const shared = Float32Array.of(9, 9, 0, 1);
    expect(index.search(shared.subarray(2), 1, false)[0]?.id).toBe("c5");
    index.apply([], ["c0", "c5", "missing"]);
    expect(index.size).toBe(4);
    expect(index.search(Float32Array.of(1, 0), 10, false).map((h) => h.id)).toEqual([
      "c1",
      "c2",
      "c3",
      "c4",
    ]);
  });

  it("reads pgvector's binary vectors (vector_send), and nothing from bytes of another shape", () => {
    const bytes = Buffer.alloc(4 + 3 * 4);
    bytes.writeUInt16BE(3, 0);
    [0.5, -1.25, 3e-8].forEach((x, i) => bytes.writeFloatBE(x, 4 + i * 4));
    // As the driver hands them over: a view into a larger buffer.
    const larger = new Uint8Array(bytes.length + 2);
    larger.set(bytes, 2);
    const wrapped = larger.subarray(2);
    expect(Array.from(decodeVectorSend(wrapped)!)).toEqual([0.5, -1.25, Math.fround(3e-8)]);
    expect(decodeVectorSend(bytes.subarray(0, 12))).toBeNull();
    expect(decodeVectorSend(bytes.subarray(0, 2))).toBeNull();
  });
});
