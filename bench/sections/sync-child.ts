/**
 * One pubmed_sync_delta in a process of its own (so peak RSS is the sync's): the real
 * EutilsClient (rate limiter, retries, parsing) against the parent's synthetic NCBI, the real
 * stores, the default lexical-only corpus (or hash embeddings, to compare). Calls syncDelta (what
 * the pubmed_sync_delta tool calls after its argument checks), so no MCP request timeout caps a
 * long sync: by default as the server runs it, in the corpus worker thread with the NCBI replies
 * read by this thread's client; with `via: "direct"` all on this thread (how this section measured
 * before the worker). Prints one JSON line.
 */
import { loadConfig } from "../../src/config.js";
import { openCorpus } from "../../src/corpus/runtime.js";
import { syncDelta } from "../../src/corpus/sync.js";
import { EutilsClient } from "../../src/ncbi/client.js";
import { corpusSummary, runSync } from "../../src/worker/corpus-api.js";
import { closeProcess, initProcess } from "../../src/worker/process.js";
import { countDocuments } from "../../src/store/docs.js";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { peakRssMb } from "../lib/rss.js";

export interface SyncChildInput {
  baseUrl: string;
  dataDir: string;
  databaseUrl?: string;
  maxRps: number;
  term: string;
  /** none: the default configuration (lexical only); hash: hash vectors too. */
  embeddings: "none" | "hash";
  /** worker (default): through the corpus worker, as served; direct: syncDelta on this thread. */
  via?: "direct" | "worker";
  /**
   * Through the worker only: a term synced first, untimed, in the same process, so the measured
   * sync runs as in a server that has synced before (V8 has compiled its code by then).
   */
  warmUp?: string;
}

export interface SyncChildOutput {
  openMs: number;
  syncMs: number;
  /**
   * CPU time of the whole process (every thread: MCP, corpus worker, prepare, BM25, V8's helpers)
   * during the sync: against the wall time, how many cores it kept busy.
   */
  cpuMs: number;
  processed: number;
  inserted: number;
  documents: number;
  chunks: number;
  peakRssMb: number;
  /**
   * PGlite only: the size of the data directory's pg_wal after the sync, MB: the segments kept,
   * recycled ones included (PostgreSQL keeps min_wal_size, 80 MB by default, for reuse).
   */
  walMb: number | null;
}

const input = JSON.parse(process.argv[2] ?? "{}") as SyncChildInput;
const config = loadConfig({
  NCBI_EUTILS_BASE_URL: input.baseUrl,
  NCBI_MAX_RPS: String(input.maxRps),
  NCBI_TIMEOUT_MS: "120000",
  NCBI_DEADLINE_MS: "3600000",
  PUBMED_MCP_DATA_DIR: input.dataDir,
  DATABASE_URL: input.databaseUrl,
  EMBEDDINGS_PROVIDER: input.embeddings,
  VECTOR_STORE: "pgvector",
  LOG_LEVEL: "error",
});
const sync = { queryKey: "bench", term: input.term, overlapDays: 5, maxRecords: 1_000_000 };
let openMs = 0;
let syncMs = 0;
let cpuMs = 0;
let result;
/** Runs the measured sync: its wall and CPU time into syncMs and cpuMs. */
async function measured<T>(run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await run();
  const used = process.cpuUsage(cpu);
  syncMs = performance.now() - started;
  cpuMs = (used.user + used.system) / 1000;
  return value;
}
if (input.via !== "direct") {
  await initProcess(config);
  try {
    const opened = performance.now();
    await corpusSummary(); // opens the stores in the worker
    if (input.warmUp) await runSync({ ...sync, queryKey: "warm-up", term: input.warmUp });
    const started = performance.now();
    result = await measured(() => runSync(sync));
    openMs = started - opened;
  } finally {
    await closeProcess();
  }
}
const opened = performance.now();
const corpus = await openCorpus(config);
const started = performance.now();
try {
  if (!result) {
    result = await measured(() =>
      syncDelta({ ...corpus, eutils: new EutilsClient(config.ncbi) }, sync),
    );
    openMs = started - opened;
  }
  const out: SyncChildOutput = {
    openMs,
    syncMs,
    cpuMs,
    processed: result.pmids_processed,
    inserted: result.inserted,
    documents: await countDocuments(corpus.store.db),
    chunks: await corpus.vectors.count(),
    peakRssMb: peakRssMb(),
    walMb: input.databaseUrl ? null : await walMb(join(input.dataDir, "pgdata", "pg_wal")),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  await corpus.close();
}

async function walMb(dir: string): Promise<number> {
  let bytes = 0;
  for (const name of await readdir(dir)) {
    const s = await stat(join(dir, name));
    if (s.isFile()) bytes += s.size;
  }
  return bytes / 2 ** 20;
}
