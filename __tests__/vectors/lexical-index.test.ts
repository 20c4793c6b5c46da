/**
 * The in-memory BM25 index against a from-scratch reference: after adds, replacements and
 * removals large enough to fold the delta into the block and to drop dead slots several times,
 * every query scores every live chunk exactly as Σ idf(N, df)·weight computed over the live set,
 * in the SQL order (score descending, then id), with the retracted filter.
 */
import { describe, expect, it } from "@jest/globals";
import { idf } from "../../src/retrieval/bm25.js";
import {
  LexicalIndex,
  packPostings,
  type LexicalRow,
} from "../../src/vectors/memory/lexical-index.js";

/** A deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Doc {
  row: LexicalRow;
  terms: Map<number, number>;
}

/** Terms drawn from a skewed vocabulary (some frequent, most rare), uint32 ids incl. the top bit. */
function makeDoc(rnd: () => number, n: number, vocabulary: number, most = 140): Doc {
  const terms = new Map<number, number>();
  const size = Math.min(most, 20 + Math.floor(rnd() * 120));
  for (let k = 0; k < size; k++) {
    const t = Math.floor(Math.pow(rnd(), 2) * vocabulary);
    terms.set((t * 2654435761) >>> 0, Math.fround(0.2 + rnd() * 1.8));
  }
  const indices = [...terms.keys()].sort((a, b) => a - b);
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  return {
    terms,
    row: {
      id,
      pmid: String(1000 + Math.floor(n / 2)),
      retracted: rnd() < 0.05,
      quality: Math.floor(rnd() * 10),
      postings: packPostings({ indices, values: indices.map((t) => terms.get(t)!) }),
    },
  };
}

function reference(live: Map<string, Doc>, query: number[], excludeRetracted: boolean) {
  const n = live.size;
  const scores = new Map<string, number>();
  for (const t of query) {
    const holders = [...live.values()].filter((d) => d.terms.has(t));
    if (holders.length === 0) continue;
    const w = idf(n, holders.length);
    for (const d of holders) {
      scores.set(d.row.id, (scores.get(d.row.id) ?? 0) + w * d.terms.get(t)!);
    }
  }
  return [...scores]
    .filter(([id]) => !(excludeRetracted && live.get(id)!.row.retracted))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

describe("LexicalIndex", () => {
  it.each(["apply", "build"])(
    "scores exactly like BM25 over the live chunks through updates, removals and rebuilds (first load by %s)",
    (how) => {
      const rnd = random(42);
      const vocabulary = 3000;
      let index = new LexicalIndex();
      const live = new Map<string, Doc>();
      let next = 0;
      const check = () => {
        expect(index.size).toBe(live.size);
        for (let q = 0; q < 12; q++) {
          const pool = [...live.values()];
          const terms = [...pool[Math.floor(rnd() * pool.length)]!.terms.keys()];
          const pick = () => terms[Math.floor(rnd() * terms.length)]!;
          const query = [...new Set(Array.from({ length: 1 + (q % 4) }, pick))].sort(
            (a, b) => a - b,
          );
          const excludeRetracted = q % 2 === 0;
          const limit = q % 3 === 0 ? 5 : 300;
          const got = index.search(
            { indices: query, values: query.map(() => 1) },
            limit,
            excludeRetracted,
          );
          const want = reference(live, query, excludeRetracted).slice(0, limit);
          expect(got.map((h) => h.id)).toEqual(want.map(([id]) => id));
          got.forEach((h, i) => {
            expect(h.score).toBeCloseTo(want[i]![1], 10);
            expect(h.pmid).toBe(live.get(h.id)!.row.pmid);
            expect(h.quality).toBe(live.get(h.id)!.row.quality);
          });
        }
      };
      // Bulk load past the delta threshold (≈ 80 postings a chunk): folds into the block.
      const first = Array.from({ length: 1500 }, () => makeDoc(rnd, next++, vocabulary));
      if (how === "build") index = LexicalIndex.build(first.map((d) => d.row));
      else index.apply(first.map((d) => d.row));
      for (const d of first) live.set(d.row.id, d);
      check();
      // Rounds of replacements (same ids, new postings), removals and new chunks.
      for (let round = 0; round < 6; round++) {
        const ids = [...live.keys()];
        const replaced = ids
          .filter(() => rnd() < 0.15)
          .map((id) => makeDoc(rnd, Number(id.slice(-12)), vocabulary));
        const removed = ids.filter(() => rnd() < 0.1);
        const added = Array.from({ length: 200 }, () => makeDoc(rnd, next++, vocabulary));
        index.apply(
          [...replaced, ...added].map((d) => d.row),
          removed,
        );
        for (const id of removed) live.delete(id);
        for (const d of [...replaced, ...added]) live.set(d.row.id, d);
        check();
      }
      expect(index.bytes).toBeGreaterThan(0);
    },
  );

  it("scores a corpus of several stretches of slots (scored a stretch at a time) as one pass would", () => {
    // 70,000 chunks: three stretches of 32,768 slots; frequent terms, so every query's runs cross
    // them all. Then removals (dead slots: the checked path) and additions (the delta's runs).
    const rnd = random(7);
    const live = new Map<string, Doc>();
    const first = Array.from({ length: 70_000 }, (_, n) => makeDoc(rnd, n, 400, 8));
    const index = LexicalIndex.build(first.map((d) => d.row));
    for (const d of first) live.set(d.row.id, d);
    const check = () => {
      for (let q = 0; q < 6; q++) {
        // A random chunk's first term, from one to three chunks.
        const pick = () => [...first[Math.floor(rnd() * first.length)]!.terms.keys()][0]!;
        const query = [...new Set(Array.from({ length: 1 + (q % 3) }, pick))].sort((a, b) => a - b);
        const got = index.search({ indices: query, values: query.map(() => 1) }, 300, q % 2 === 0);
        const want = reference(live, query, q % 2 === 0).slice(0, 300);
        expect(got.length).toBeGreaterThan(0);
        expect(got.map((h) => h.id)).toEqual(want.map(([id]) => id));
        got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]![1], 10));
      }
    };
    check();
    const removed = [...live.keys()].filter(() => rnd() < 0.01);
    const added = Array.from({ length: 2000 }, (_, k) => makeDoc(rnd, 70_000 + k, 400, 8));
    index.apply(
      added.map((d) => d.row),
      removed,
    );
    for (const id of removed) live.delete(id);
    for (const d of added) live.set(d.row.id, d);
    check();
  });

  it("packs postings as the store keeps them: big-endian int32 term, float32 weight", () => {
    const packed = packPostings({ indices: [1, 0x80000001, 7], values: [0.5, -2, 1e-3] });
    expect(packed.subarray(0, 16).toString("hex")).toBe("000000013f00000080000001c0000000");
    const view = new DataView(packed.buffer, packed.byteOffset, packed.length);
    expect(packed.length).toBe(24);
    expect(view.getInt32(16, false)).toBe(7);
    expect(view.getFloat32(20, false)).toBe(Math.fround(1e-3));
    expect(packPostings({ indices: [], values: [] }).length).toBe(0);
  });

  it("breaks score ties by chunk id, also where the limit cuts through them", () => {
    const postings = packPostings({ indices: [5, 9], values: [1, 0.5] });
    // Ids inserted in scrambled order; every chunk scores the same on term 5.
    const ids = [7, 2, 9, 0, 4, 8, 1, 6, 3, 5].map(
      (n) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    );
    const index = LexicalIndex.build(
      ids.map((id, i) => ({ id, pmid: String(i), retracted: false, quality: 0, postings })),
    );
    const sorted = [...ids].sort();
    for (const limit of [1, 4, 10, 20]) {
      const got = index.search({ indices: [5], values: [1] }, limit, true);
      expect(got.map((h) => h.id)).toEqual(sorted.slice(0, limit));
      expect(new Set(got.map((h) => h.score)).size).toBe(got.length > 0 ? 1 : 0);
    }
  });

  it("returns nothing for unknown terms and an empty index", () => {
    const index = new LexicalIndex();
    expect(index.search({ indices: [7], values: [1] }, 10, true)).toEqual([]);
    const d = makeDoc(random(1), 1, 50);
    index.apply([d.row]);
    expect(index.search({ indices: [123456789], values: [1] }, 10, false)).toEqual([]);
    index.apply([], [d.row.id]);
    expect(index.size).toBe(0);
  });
});
