/**
 * §3b The lexical leg on the embedded store (PGlite), lexical-only corpus (EMBEDDINGS_PROVIDER
 * =none, the default): the in-memory BM25 index against the SQL scoring it replaced
 * (bench/lib/sql-lexical.ts, over a chunk_terms table built from the same postings), query by
 * query in the same pass, and rag_search (ragSearch) over each. Every query's two answers are
 * checked to agree (ids and scores) before any time counts. Then rag_search as an agent meets it:
 * an MCP client calling the server (in-memory transport; the corpus in its worker thread, the
 * default configuration) with 1 caller and with 8 splitting the same queries, on the same store.
 * Sizes are the search section's.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { loadConfig } from "../../src/config.js";
import { createSession } from "../../src/server.js";
import { closeProcess, initProcess } from "../../src/worker/process.js";
import { querySparseVector, tokenize } from "../../src/retrieval/bm25.js";
import { ragSearch, type SearchDeps } from "../../src/corpus/search.js";
import { NoEmbedder } from "../../src/embeddings/index.js";
import { openStore } from "../../src/store/db.js";
import { PgVectorStore } from "../../src/vectors/pgvector/adapter.js";
import type { Hit } from "../../src/vectors/vector-store.js";
import type { BenchOptions } from "../lib/options.js";
import { buildSqlPostings, sqlSearchSparse, withSqlLexicalLeg } from "../lib/sql-lexical.js";
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

const TERM = "bench lexical";
/** ragSearch's leg depth. */
const DEPTH = 300;
const CALLERS = 8;

interface Pass {
  latencies: number[];
  wallMs: number;
}

/**
 * rag_search through the server on the store in `dataDir` (closed by the caller): per repetition
 * one pass with 1 caller, then one with CALLERS callers splitting the same queries.
 */
async function throughServer(dataDir: string, qs: string[], reps: number) {
  await initProcess(loadConfig({ PUBMED_MCP_DATA_DIR: dataDir, LOG_LEVEL: "error" }));
  const session = createSession();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.connect(serverSide);
  const client = new Client({ name: "bench-lexical", version: "1" });
  await client.connect(clientSide);
  const call = async (query: string) => {
    const res = await client.callTool({ name: "rag_search", arguments: { query } });
    if (res.isError) throw new Error(`rag_search failed for "${query}"`);
  };
  const pass = async (callers: number): Promise<Pass> => {
    const lanes = Array.from({ length: callers }, (_, c) => qs.filter((_, i) => i % callers === c));
    const latencies: number[] = [];
    const { ms } = await timed(() =>
      Promise.all(
        lanes.map(async (lane) => {
          for (const query of lane) latencies.push((await timed(() => call(query))).ms);
        }),
      ),
    );
    return { latencies, wallMs: ms };
  };
  try {
    for (const query of qs.slice(0, 20)) await call(query); // the worker opens, loads the index
    return await repeat(reps, async () => ({ one: await pass(1), many: await pass(CALLERS) }));
  } finally {
    await client.close();
    await session.close();
    await closeProcess();
  }
}

function assertSame(query: string, a: Hit[], b: Hit[]): void {
  const bad =
    a.length !== b.length ||
    a.some((h, i) => Math.abs(h.score - b[i]!.score) > 1e-6 * Math.max(1, h.score));
  if (bad) throw new Error(`lexical legs disagree for "${query}"`);
}

export async function lexicalSection(opts: BenchOptions): Promise<SectionResult> {
  const out = emptySection("Lexical leg");
  const { chunks: sizes, queries: nq, reps } = opts.sizes.search;
  const dir = await pgliteDir();
  let store = await openStore({ dataDir: dir.dataDir });
  try {
    const grown = synthGrowth(19, TERM);
    for (const target of sizes) {
      const vectors = new PgVectorStore(store.db, store.hasPgvector, store.localWrites);
      await vectors.ensure(0);
      const deps: SearchDeps = { store, vectors, embedder: new NoEmbedder() };
      const sqlDeps: SearchDeps = { ...deps, vectors: withSqlLexicalLeg(vectors, store.db) };
      const k = `lexical.${target}`;
      const n = `${target.toLocaleString("en-US")} chunks`;
      const build = await timed(() => grow(deps, grown, target));
      const postings = await buildSqlPostings(store.db);
      await store.maintain({ checkpoint: true, analyze: true });
      // A replica opening this store: its first query loads the index.
      const cold = new PgVectorStore(store.db, store.hasPgvector, store.localWrites);
      const heap = process.memoryUsage();
      const load = await timed(() => cold.searchSparse(querySparseVector(["x"]), 1));
      const after = process.memoryUsage();
      out.notes.push(
        `${n}: ${grown.titles.length.toLocaleString("en-US")} records, ${postings.toLocaleString("en-US")} postings; growing the store took ${(build.ms / 1000).toFixed(1)} s; index ${((cold.lexicalIndexBytes ?? 0) / 1e6).toFixed(1)} MB of typed arrays (heap + array buffers grew ${((after.heapUsed + after.arrayBuffers - heap.heapUsed - heap.arrayBuffers) / 1e6).toFixed(0)} MB during the load).`,
      );
      out.figures.push(
        figure(`${k}.index_load_ms`, `${n}: in-memory index load (cold)`, "ms", [load.ms]),
      );
      const qs = titleQueries(grown.titles, nq, 4242);
      const sparse = qs.map((q) => querySparseVector(tokenize(q)));
      for (let i = 0; i < Math.min(10, qs.length); i++) {
        // Warm-up, and the two legs must agree before anything is timed.
        const viaSql = await sqlSearchSparse(store.db, sparse[i]!, DEPTH, true);
        const viaMemory = await vectors.searchSparse(sparse[i]!, DEPTH, { excludeRetracted: true });
        assertSame(qs[i]!, viaSql, viaMemory);
        await ragSearch(deps, { query: qs[i]!, topK: 20, qualityBias: true });
        await ragSearch(sqlDeps, { query: qs[i]!, topK: 20, qualityBias: true });
      }
      const runs = await repeat(reps, async () => {
        const t = {
          sql: [] as number[],
          memory: [] as number[],
          ragSql: [] as number[],
          ragMemory: [] as number[],
        };
        for (let i = 0; i < qs.length; i++) {
          const opts = { excludeRetracted: true };
          t.sql.push((await timed(() => sqlSearchSparse(store.db, sparse[i]!, DEPTH, true))).ms);
          t.memory.push(
            (
              await timed(() =>
                vectors.searchSparse(sparse[i]!, DEPTH, { ...opts, withPayload: false }),
              )
            ).ms,
          );
          const input = { query: qs[i]!, topK: 20, qualityBias: true };
          t.ragSql.push((await timed(() => ragSearch(sqlDeps, input))).ms);
          t.ragMemory.push((await timed(() => ragSearch(deps, input))).ms);
        }
        return t;
      });
      const p50 = (pick: (r: (typeof runs)[number]) => number[]) =>
        runs.map((r) => quantile(pick(r), 0.5));
      out.figures.push(
        figure(
          `${k}.sql.p50_ms`,
          `${n}: lexical leg, SQL (before), p50`,
          "ms",
          p50((r) => r.sql),
        ),
        figure(
          `${k}.memory.p50_ms`,
          `${n}: lexical leg, in memory, p50`,
          "ms",
          p50((r) => r.memory),
        ),
        figure(
          `${k}.rag_sql.p50_ms`,
          `${n}: rag_search over the SQL leg, p50`,
          "ms",
          p50((r) => r.ragSql),
        ),
        figure(
          `${k}.rag_memory.p50_ms`,
          `${n}: rag_search over the in-memory leg, p50`,
          "ms",
          p50((r) => r.ragMemory),
        ),
      );
      out.ratios.push(
        ratio(
          `${k}.leg_speedup`,
          `${n}: lexical leg, SQL vs in memory`,
          "SQL p50 ÷ in-memory p50, same queries, interleaved",
          p50((r) => r.sql),
          p50((r) => r.memory),
        ),
        ratio(
          `${k}.rag_speedup`,
          `${n}: rag_search, SQL leg vs in-memory leg`,
          "p50 over the SQL leg ÷ over the in-memory leg, interleaved",
          p50((r) => r.ragSql),
          p50((r) => r.ragMemory),
        ),
      );
      await store.close();
      const server = await throughServer(dir.dataDir, qs, reps);
      store = await openStore({ dataDir: dir.dataDir });
      const qps = (p: Pass) => (p.latencies.length / p.wallMs) * 1000;
      for (const [tag, who, pick] of [
        ["single", "1 caller", (r: (typeof server)[number]) => r.one],
        ["concurrent", `${CALLERS} callers`, (r: (typeof server)[number]) => r.many],
      ] as const) {
        out.figures.push(
          figure(
            `${k}.server.${tag}.p50_ms`,
            `${n}: rag_search through the server, ${who}, p50`,
            "ms",
            server.map((r) => quantile(pick(r).latencies, 0.5)),
          ),
          figure(
            `${k}.server.${tag}.qps`,
            `${n}: rag_search through the server, ${who}, throughput`,
            "queries/s",
            server.map((r) => qps(pick(r))),
          ),
        );
      }
      out.ratios.push(
        ratio(
          `${k}.server.concurrency_scaling`,
          `${n}: rag_search through the server, ${CALLERS} callers vs 1`,
          `queries/s with ${CALLERS} callers ÷ with 1, same queries, passes alternated`,
          server.map((r) => qps(r.many)),
          server.map((r) => qps(r.one)),
        ),
      );
    }
    out.notes.push(
      `Lexical-only corpus (no embedder). Leg depth ${DEPTH}, retracted excluded; the SQL leg returns the payload of its ${DEPTH} hits as it did, the in-memory leg none (rag_search reads the payload of its top_k by primary key). rag_search top_k 20, quality_bias on; ${nq} queries per pass, 1 caller. Through the server: the default rag_search arguments (top_k 10), an MCP client over the in-memory transport on this thread, the corpus in the server's worker thread.`,
    );
  } finally {
    await store.close();
    await dir.cleanup();
  }
  return out;
}
