/**
 * The dense leg's in-memory index (src/vectors/memory/dense-index.ts) under churn: chunks added, replaced
 * and removed in random order (a removed chunk's row is filled by the last one, the matrix grows
 * past its first room), as vectors or as the bytes the table stores (pgvector's `vector_send`,
 * Postgres's `array_send` of a float4[]), checked after every step against a model searched by
 * brute force.
 */
import { describe, expect, it } from "@jest/globals";
import {
  DenseIndex,
  decodeStoredVector,
  type DenseRow,
  type StoredForm,
} from "../../src/vectors/memory/dense-index.js";
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

/** The bytes Postgres sends for this vector in that form. */
function stored(v: Float32Array, form: StoredForm): Uint8Array {
  if (form === "vector") {
    const bytes = Buffer.alloc(4 + v.length * 4);
    bytes.writeUInt16BE(v.length, 0);
    v.forEach((x, i) => bytes.writeFloatBE(x, 4 + i * 4));
    return bytes;
  }
  // One dimension, no nulls, element type float4 (oid 700), lower bound 1; then (4, value) pairs.
  const bytes = Buffer.alloc(20 + v.length * 8);
  [1, 0, 700, v.length, 1].forEach((x, i) => bytes.writeInt32BE(x, i * 4));
  v.forEach((x, i) => {
    bytes.writeInt32BE(4, 20 + i * 8);
    bytes.writeFloatBE(x, 24 + i * 8);
  });
  return bytes;
}

/** As the driver hands bytes over: a view into a larger buffer. */
function wrapped(bytes: Uint8Array): Uint8Array {
  const larger = new Uint8Array(bytes.length + 3);
  larger.set(bytes, 3);
  return larger.subarray(3);
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
      // A third of the steps as vectors, the rest as stored bytes (what a load reads).
      const form = (["vector", "float4[]"] as const)[step % 3];
      if (form) {
        index.apply([], removed);
        for (const { vector, ...chunk } of rows) {
          index.applyStored(chunk, vector && wrapped(stored(vector, form)), form);
        }
      } else index.apply(rows, removed);
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

  it("loads stored bytes into a matrix sized up front, skipping bytes of another size", async () => {
    const rand = random(11);
    const index = await DenseIndex.create(DIM, 3000);
    const model = new Map<string, DenseRow>();
    for (let i = 0; i < 3000; i++) {
      const vector = Float32Array.from({ length: DIM }, () => rand() - 0.5);
      const row = { id: `c${i}`, pmid: `p${i}`, retracted: i % 7 === 0, quality: 1, vector };
      // Every 50th row holds a vector of another dimension: not searchable.
      const bytes = stored(i % 50 === 0 ? vector.subarray(1) : vector, "vector");
      index.applyStored(row, bytes, "vector");
      if (i % 50 !== 0) model.set(row.id, row);
    }
    expect(index.size).toBe(model.size);
    const q = Float32Array.from({ length: DIM }, () => rand() - 0.5);
    const want = expected(model, q, 10, true);
    const hits = index.search(q, 10, true);
    expect(hits.map((h) => h.id)).toEqual(want.map((w) => w.id));
    expect(hits[0]?.score).toBeCloseTo(want[0]!.score, 5);
  });

  it("decodes both stored forms, and nothing from bytes of another shape", () => {
    const v = Float32Array.of(0.5, -1.25, 3e-8);
    for (const form of ["vector", "float4[]"] as const) {
      const bytes = stored(v, form);
      expect(Array.from(decodeStoredVector(wrapped(bytes), form)!)).toEqual(Array.from(v));
      expect(decodeStoredVector(bytes.subarray(0, bytes.length - 1), form)).toBeNull();
      expect(decodeStoredVector(bytes.subarray(0, 2), form)).toBeNull();
    }
    // A float4[] with a null element (length -1) or of two dimensions is no vector.
    const withNull = Buffer.from(stored(v, "float4[]"));
    withNull.writeInt32BE(-1, 28);
    expect(decodeStoredVector(withNull, "float4[]")).toBeNull();
    const twoDims = Buffer.from(stored(v, "float4[]"));
    twoDims.writeInt32BE(2, 0);
    expect(decodeStoredVector(twoDims, "float4[]")).toBeNull();
  });
});
