/**
 * §3 Search: rag_search latency on the embedded store (PGlite + pgvector HNSW, hash embeddings)
 * at growing corpus sizes, one caller and eight concurrent callers. The corpus is synthetic
 * records indexed through the sync's own path (parseEFetch → upsert → chunk → embed → vectors);
 * each size is reached by growing the previous one and rebuilding the HNSW index in bulk, then
 * refreshing the planner's statistics, as a sync does. Calls ragSearch, the function behind the
 * rag_search tool.
 */
import { sql } from "kysely";
import { ragSearch, type SearchDeps } from "../../src/corpus/search.js";
import { HashEmbedder } from "../../src/embeddings/index.js";
import { openStore } from "../../src/store/db.js";
import { createVectorStore } from "../../src/vectors/index.js";
import type { BenchOptions } from "../lib/options.js";
import {
  emptySection,
  figure,
  quantile,
  ratio,
  repeat,
  timed,
  type SectionResult,
} from "../lib/stats.js";
import { pgliteDir } from "../lib/stores.js";
import { grow, synthGrowth, titleQueries } from "../lib/synth-store.js";

const TERM = "bench search";
const CALLERS = 8;

/**
 * The HNSW build the adapter does (finishBulkLoad, with its raised maintenance_work_mem) against
 * the same CREATE INDEX at Postgres's default 64 MB, one after the other on the same rows; the
 * adapter's index is the one left for the searches.
 */
async function buildHnsw(deps: SearchDeps): Promise<{ tunedMs: number; defaultMs: number }> {
  const db = deps.store.db;
  const drop = () => sql`drop index if exists chunk_vectors_embedding_hnsw`.execute(db);
  await drop();
  const baseline = await timed(() =>
    db.transaction().execute(async (trx) => {
      await sql`set local maintenance_work_mem = '64MB'`.execute(trx);
      await sql`create index chunk_vectors_embedding_hnsw
        on chunk_vectors using hnsw (embedding vector_cosine_ops)`.execute(trx);
    }),
  );
  await drop();
  const tuned = await timed(async () => deps.vectors.finishBulkLoad?.());
  return { tunedMs: tuned.ms, defaultMs: baseline.ms };
}

interface Pass {
  latencies: number[];
  wallMs: number;
}

async function pass(deps: SearchDeps, qs: string[], callers: number): Promise<Pass> {
  const latencies: number[] = [];
  const lanes = Array.from({ length: callers }, (_, c) => qs.filter((_, i) => i % callers === c));
  const { ms } = await timed(() =>
    Promise.all(
      lanes.map(async (lane) => {
        for (const query of lane) {
          const t = await timed(() => ragSearch(deps, { query, topK: 20, qualityBias: true }));
          if (t.value.length === 0) throw new Error(`rag_search found nothing for "${query}"`);
          latencies.push(t.ms);
        }
      }),
    ),
  );
  return { latencies, wallMs: ms };
}

export async function searchSection(opts: BenchOptions): Promise<SectionResult> {
  const out = emptySection("Search");
  const { chunks: sizes, queries: nq, reps } = opts.sizes.search;
  const dir = await pgliteDir();
  const store = await openStore({ dataDir: dir.dataDir });
  try {
    const vectors = createVectorStore(
      { vectorStore: "pgvector", qdrant: { url: undefined, apiKey: undefined, collection: "x" } },
      store,
    );
    const embedder = new HashEmbedder();
    await vectors.ensure(embedder.dimension);
    const deps: SearchDeps = { store, vectors, embedder };
    const grown = synthGrowth(9, TERM);
    const p50single: number[][] = [];
    for (const target of sizes) {
      const build = await timed(() => grow(deps, grown, target));
      // Rebuild the HNSW index over everything in one pass (the bulk-load path of a first sync).
      const hnsw = await buildHnsw(deps);
      const k = `search.${target}`;
      const n = `${target.toLocaleString("en-US")} chunks`;
      const qs = titleQueries(grown.titles, nq, 12345);
      await store.maintain({ checkpoint: true, analyze: true }); // as a sync leaves the store
      await pass(deps, qs.slice(0, 10), 1); // warm-up: caches, JIT, first HNSW pages
      out.notes.push(
        `${n}: ${grown.titles.length.toLocaleString("en-US")} synthetic records; growing the store to this size took ${(build.ms / 1000).toFixed(1)} s.`,
      );
      out.figures.push(
        figure(`${k}.hnsw_build_s`, `${n}: HNSW index build`, "s", [hnsw.tunedMs / 1000]),
      );
      out.ratios.push(
        ratio(
          `${k}.hnsw_build_memory`,
          `${n}: HNSW build at 64 MB vs 512 MB maintenance_work_mem`,
          "build time at Postgres's default 64 MB ÷ at the adapter's 512 MB",
          [hnsw.defaultMs],
          [hnsw.tunedMs],
        ),
      );
      const single = await repeat(reps, () => pass(deps, qs, 1));
      const many = await repeat(reps, () => pass(deps, qs, CALLERS));
      for (const [who, runs] of [
        ["1 caller", single],
        [`${CALLERS} callers`, many],
      ] as const) {
        const tag = who === "1 caller" ? "single" : "concurrent";
        for (const q of [0.5, 0.95, 0.99]) {
          const p = `p${Math.round(q * 100)}`;
          out.figures.push(
            figure(
              `${k}.${tag}.${p}_ms`,
              `${n}, ${who}: ${p} latency`,
              "ms",
              runs.map((r) => quantile(r.latencies, q)),
            ),
          );
        }
        out.figures.push(
          figure(
            `${k}.${tag}.qps`,
            `${n}, ${who}: throughput`,
            "queries/s",
            runs.map((r) => (r.latencies.length / r.wallMs) * 1000),
          ),
        );
      }
      out.ratios.push(
        ratio(
          `${k}.concurrency_scaling`,
          `${n}: ${CALLERS}-caller vs 1-caller throughput`,
          `queries/s with ${CALLERS} callers ÷ with 1`,
          many.map((r) => r.latencies.length / r.wallMs),
          single.map((r) => r.latencies.length / r.wallMs),
        ),
      );
      p50single.push(single.map((r) => quantile(r.latencies, 0.5)));
    }
    const first = p50single[0];
    const last = p50single[p50single.length - 1];
    if (sizes.length > 1 && first && last) {
      out.ratios.push(
        ratio(
          "search.growth",
          `${sizes[sizes.length - 1]?.toLocaleString("en-US")} vs ${sizes[0]?.toLocaleString("en-US")} chunks: 1-caller p50`,
          "p50 at the larger size ÷ at the smaller, same run",
          last,
          first,
        ),
      );
    }
    out.notes.push(
      `top_k 20, quality_bias on; ${nq} queries per pass (3 title words of random indexed records); ${CALLERS} callers split the same queries; PGlite is one connection, so concurrent queries queue.`,
    );
  } finally {
    await store.close();
    await dir.cleanup();
  }
  return out;
}
