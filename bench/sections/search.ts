/**
 * §3 Search: rag_search latency on the embedded store (PGlite, hash embeddings; both legs in
 * memory) at growing corpus sizes, one caller and eight concurrent callers. The corpus is
 * synthetic records indexed through the sync's own path (parseEFetch → upsert → chunk → embed →
 * vectors); each size is reached by growing the previous one, then refreshing the planner's
 * statistics, as a sync does. Calls ragSearch, the function behind the rag_search tool.
 * At each size the dense leg is also compared with pgvector's HNSW on the same rows
 * (bench/lib/dense-leg.ts): per-query latency and recall@10 against exact cosine.
 */
import { ragSearch, type SearchDeps } from "../../src/corpus/search.js";
import { HashEmbedder } from "../../src/embeddings/index.js";
import { openStore } from "../../src/store/db.js";
import { createVectorStore } from "../../src/vectors/index.js";
import { compareDenseLegs } from "../lib/dense-leg.js";
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
/** rag_search's leg depth (src/corpus/search.ts). */
const LEG_DEPTH = 300;

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
    const vectors = await createVectorStore(
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
      const k = `search.${target}`;
      const n = `${target.toLocaleString("en-US")} chunks`;
      const qs = titleQueries(grown.titles, nq, 12345);
      await store.maintain({ checkpoint: true, analyze: true }); // as a sync leaves the store
      const legs = await compareDenseLegs(
        store,
        await Promise.all(qs.map((q) => embedder.embedQuery(q))),
        LEG_DEPTH,
      );
      await store.maintain({ checkpoint: true }); // the pgvector index came and went
      await pass(deps, qs.slice(0, 10), 1); // warm-up: caches, JIT
      out.notes.push(
        `${n}: ${grown.titles.length.toLocaleString("en-US")} synthetic records; growing the store to this size took ${(build.ms / 1000).toFixed(1)} s.`,
      );
      out.figures.push(
        figure(`${k}.dense.memory_load_s`, `${n}: dense leg, in-memory index load`, "s", [
          legs.memoryLoadMs / 1000,
        ]),
        figure(`${k}.hnsw_build_s`, `${n}: dense leg, pgvector HNSW build`, "s", [
          legs.hnswBuildMs / 1000,
        ]),
        figure(`${k}.dense.memory.p50_ms`, `${n}: dense leg in memory, p50`, "ms", [
          quantile(legs.memoryMs, 0.5),
        ]),
        figure(`${k}.dense.hnsw.p50_ms`, `${n}: dense leg on pgvector HNSW, p50`, "ms", [
          quantile(legs.hnswMs, 0.5),
        ]),
        figure(`${k}.dense.memory.recall10`, `${n}: dense leg in memory, recall@10`, "", [
          legs.memoryRecall,
        ]),
        figure(`${k}.dense.hnsw.recall10`, `${n}: dense leg on pgvector HNSW, recall@10`, "", [
          legs.hnswRecall,
        ]),
      );
      out.ratios.push(
        ratio(
          `${k}.dense.hnsw_vs_memory`,
          `${n}: dense leg, pgvector HNSW vs in memory (p50)`,
          `p50 of the leg (depth ${LEG_DEPTH}) on pgvector's HNSW ÷ in memory, same queries, alternated`,
          [quantile(legs.hnswMs, 0.5)],
          [quantile(legs.memoryMs, 0.5)],
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
