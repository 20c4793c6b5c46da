/**
 * The dense leg two ways on one embedded store, in one run: the adapter's in-memory exact scan
 * (USearch's exactSearch over the vectors a fresh adapter loads from the rows; an HNSW graph before
 * 2026-11-28) and pgvector's HNSW inside PGlite (the index
 * and the query the adapter used before: built with 512 MB maintenance_work_mem, ef_search = the
 * leg depth, strict-order iterative scan, payload columns read). Both are timed per query, each
 * query alternating between them, and scored by recall against exact cosine (every vector read
 * from the store, in JS). The pgvector index is dropped again afterwards.
 */
import { sql } from "kysely";
import type { Store } from "../../src/store/db.js";
import { decodeStoredVector } from "../../src/vectors/memory/dense-index.js";
import { PgVectorStore } from "../../src/vectors/pgvector/adapter.js";
import { timed } from "./stats.js";

export interface DenseLegRun {
  /** A fresh adapter's first dense search: import usearch, read every vector into its matrix. */
  memoryLoadMs: number;
  hnswBuildMs: number;
  memoryMs: number[];
  hnswMs: number[];
  /** Share of the exact top 10 each leg's top 10 holds (a tie with the 10th counts), over all queries. */
  memoryRecall: number;
  hnswRecall: number;
}

const K = 10;
const PAGE = 5_000;

export async function compareDenseLegs(
  store: Store,
  queries: number[][],
  depth: number,
): Promise<DenseLegRun> {
  const db = store.db;
  const memory = new PgVectorStore(db, store.hasPgvector, store.localWrites);
  const opts = { excludeRetracted: true, withPayload: false };
  const load = await timed(() => memory.searchDense(queries[0]!, depth, opts));
  const build = await timed(() =>
    db.transaction().execute(async (trx) => {
      await sql`set local maintenance_work_mem = '512MB'`.execute(trx);
      await sql`create index chunk_vectors_embedding_hnsw
        on chunk_vectors using hnsw (embedding vector_cosine_ops)`.execute(trx);
    }),
  );
  const hnsw = (q: number[]) =>
    db.transaction().execute(async (trx) => {
      await sql`select set_config('hnsw.ef_search', ${String(Math.max(40, depth))}, true),
        set_config('enable_seqscan', 'off', true),
        set_config('hnsw.iterative_scan', 'strict_order', true)`.execute(trx);
      const v = `[${q.join(",")}]`;
      const { rows } = await sql<{ id: string; score: number }>`select v.id, v.pmid,
          1 - (v.embedding <=> ${v}::vector) as score, v.title, v.text, v.quality, v.retracted,
          v.pdat_year, v.version
        from chunk_vectors v where not v.retracted
        order by v.embedding <=> ${v}::vector limit ${depth}`.execute(trx);
      return rows.map((r) => ({ id: r.id, score: Number(r.score) }));
    });
  try {
    for (const q of queries.slice(0, 10)) {
      await memory.searchDense(q, depth, opts);
      await hnsw(q);
    }
    const exact = await exactTop(store, queries);
    const run: DenseLegRun = {
      memoryLoadMs: load.ms,
      hnswBuildMs: build.ms,
      memoryMs: [],
      hnswMs: [],
      memoryRecall: 0,
      hnswRecall: 0,
    };
    let memoryFound = 0;
    let hnswFound = 0;
    for (const [i, q] of queries.entries()) {
      const m = await timed(() => memory.searchDense(q, depth, opts));
      const h = await timed(() => hnsw(q));
      run.memoryMs.push(m.ms);
      run.hnswMs.push(h.ms);
      const want = exact[i]!;
      memoryFound += m.value.slice(0, K).filter((hit) => want.holds(hit)).length;
      hnswFound += h.value.slice(0, K).filter((hit) => want.holds(hit)).length;
    }
    const total = exact.reduce((n, s) => n + s.ids.size, 0);
    run.memoryRecall = memoryFound / total;
    run.hnswRecall = hnswFound / total;
    return run;
  } finally {
    await sql`drop index if exists chunk_vectors_embedding_hnsw`.execute(db);
  }
}

/**
 * The exact cosine top K of live (not retracted) chunks per query, one pass over the rows. A hit
 * it `holds` is one of them, or one that ties the K-th (chunks with the same text have the same
 * vector: which of them a leg returns is not a miss).
 */
async function exactTop(
  store: Store,
  queries: number[][],
): Promise<{ ids: Set<string>; holds(hit: { id: string; score: number }): boolean }[]> {
  const unit = queries.map((q) => {
    const n = Math.hypot(...q) || 1;
    return Float32Array.from(q, (x) => x / n);
  });
  const best = queries.map(() => [] as { id: string; s: number }[]);
  await store.db.transaction().execute(async (trx) => {
    await sql`declare exact_scan no scroll cursor for select id,
      array_send(embedding::real[]) as embedding from chunk_vectors where not retracted`.execute(
      trx,
    );
    for (;;) {
      const { rows } = await sql<{
        id: string;
        embedding: Uint8Array;
      }>`fetch ${sql.raw(String(PAGE))} from exact_scan`.execute(trx);
      for (const r of rows) {
        const v = decodeStoredVector(r.embedding, "float4[]")!;
        const norm = Math.hypot(...v) || 1;
        unit.forEach((q, qi) => {
          let dot = 0;
          for (let j = 0; j < q.length; j++) dot += q[j]! * v[j]!;
          const s = dot / norm;
          const top = best[qi]!;
          if (top.length === K && s <= top[K - 1]!.s) return;
          top.push({ id: r.id, s });
          top.sort((a, b) => b.s - a.s);
          if (top.length > K) top.pop();
        });
      }
      if (rows.length < PAGE) break;
    }
  });
  return best.map((top) => {
    const ids = new Set(top.map((t) => t.id));
    const kth = top[top.length - 1]?.s ?? -Infinity;
    return { ids, holds: (hit) => ids.has(hit.id) || hit.score >= kth - 1e-5 };
  });
}
