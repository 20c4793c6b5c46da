/**
 * §2 Sync: pubmed_sync_delta of synthetic records from the synthetic NCBI on loopback, each run
 * in a fresh child process on a fresh database (bench/sections/sync-child.ts). The fake server
 * runs here, in the parent, so the child's CPU profile and peak RSS are the sync's alone.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { startSynthServer } from "../../src/devtools/synth-server.js";
import { runChild } from "../lib/child.js";
import type { BenchOptions } from "../lib/options.js";
import { emptySection, figure, ratio, repeat, type SectionResult } from "../lib/stats.js";
import { ADMIN_URL, pgliteDir, postgresDatabase, probePostgres } from "../lib/stores.js";
import type { SyncChildInput, SyncChildOutput } from "./sync-child.js";

const TERM = "bench sync";
const WARM_UP_TERM = "bench warm up";
/** NCBI's ceiling with an API key, and a typical E-utilities round trip. */
const NCBI_RPS = 10;
const NCBI_LATENCY_MS = 300;
/** A slow E-utilities reply (a large EFetch on a busy day): how far the sync's look-ahead reaches. */
const SLOW_LATENCY_MS = 1_500;

type Backend = "pglite" | "postgres";

interface Run extends SyncChildOutput {
  requests: number;
  refused: number;
}

async function syncOnce(
  records: number,
  backend: Backend,
  server: { latencyMs: number; maxRps?: number; prerender?: boolean },
  clientRps: number,
  embeddings: SyncChildInput["embeddings"] = "none",
  warmUp = false,
): Promise<Run> {
  const span = { count: records, edatFrom: "2015-01-01", edatTo: "2024-12-31" };
  const corpus = createSynthCorpus({
    seed: 42,
    // The warm-up term: as many records again, none of them the measured term's.
    terms: [{ term: TERM, ...span }, ...(warmUp ? [{ term: WARM_UP_TERM, ...span }] : [])],
  });
  const ncbi = await startSynthServer(corpus, server);
  const pglite = backend === "pglite" ? await pgliteDir() : undefined;
  const scratch = pglite ? undefined : await mkdtemp(join(tmpdir(), "pmcp-bench-pg-"));
  const database = backend === "postgres" ? await postgresDatabase() : undefined;
  try {
    const input: SyncChildInput = {
      baseUrl: ncbi.baseUrl,
      dataDir: pglite?.dataDir ?? scratch ?? "",
      databaseUrl: database?.url,
      maxRps: clientRps,
      term: TERM,
      embeddings,
      warmUp: warmUp ? WARM_UP_TERM : undefined,
    };
    const out = await runChild<SyncChildOutput>("bench/sections/sync-child.ts", input, {
      // Bounded: generous for a 2-core machine (~10 ms/record measured), never open-ended.
      timeoutMs: 120_000 + records * 50,
      profileName: `sync-${backend}-${records}-${embeddings}${server.latencyMs ? "-ncbi" : ""}${warmUp ? "-warm" : ""}`,
    });
    if (out.processed !== records) {
      throw new Error(`sync processed ${out.processed} of ${records} records`);
    }
    return { ...out, requests: ncbi.requests, refused: ncbi.refused };
  } finally {
    await ncbi.close();
    await pglite?.cleanup();
    await database?.drop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

export async function syncSection(opts: BenchOptions): Promise<SectionResult> {
  const out = emptySection("Sync");
  const pg = await probePostgres();
  const backends: Backend[] = ["pglite"];
  if ("version" in pg) backends.push("postgres");
  else
    out.skipped = `PostgreSQL at ${ADMIN_URL.replace(/\/\/[^@/]*@/, "//…@")} unreachable (${pg.problem})`;

  for (const { records, reps } of opts.sizes.sync) {
    const perBackend = new Map<Backend, Run[]>();
    for (const backend of backends) {
      const runs = await repeat(reps, () => syncOnce(records, backend, { latencyMs: 0 }, 100));
      perBackend.set(backend, runs);
      const k = `sync.${backend}.${records}`;
      const n = records.toLocaleString("en-US");
      out.figures.push(
        figure(
          `${k}.records_per_s`,
          `${backend} ${n} records: throughput`,
          "records/s",
          runs.map((r) => (r.processed / r.syncMs) * 1000),
        ),
        figure(
          `${k}.requests_per_1000`,
          `${backend} ${n} records: E-utilities requests per 1,000 records`,
          "",
          runs.map((r) => (r.requests / r.processed) * 1000),
        ),
        figure(
          `${k}.peak_rss_mb`,
          `${backend} ${n} records: peak RSS`,
          "MB",
          runs.map((r) => r.peakRssMb),
        ),
      );
      const wal = runs.flatMap((r) => (r.walMb === null ? [] : [r.walMb]));
      if (wal.length > 0) {
        out.figures.push(
          figure(`${k}.wal_mb`, `${backend} ${n} records: pg_wal after the sync`, "MB", wal),
        );
      }
      out.notes.push(
        `${backend} ${n} records → ${runs[0]?.chunks.toLocaleString("en-US")} chunks; store open (not timed) ${Math.round(runs[0]?.openMs ?? 0)} ms.`,
      );
    }
    // The same size with hash vectors (embedded and stored; no index is built): what the lexical-only
    // default saves. Paired with the default runs above, one each; up to 10,000 records only
    // (100,000 with hash vectors take the better part of an hour).
    const lite = perBackend.get("pglite");
    if (lite && records <= 10_000) {
      const hashed = await repeat(reps, () =>
        syncOnce(records, "pglite", { latencyMs: 0 }, 100, "hash"),
      );
      out.figures.push(
        figure(
          `sync.pglite.${records}.hash.records_per_s`,
          `pglite ${records.toLocaleString("en-US")} records, EMBEDDINGS_PROVIDER=hash: throughput`,
          "records/s",
          hashed.map((r) => (r.processed / r.syncMs) * 1000),
        ),
      );
      out.ratios.push(
        ratio(
          `sync.${records}.none_vs_hash`,
          `pglite ${records.toLocaleString("en-US")} records: lexical-only default vs hash vectors`,
          "records/s without embeddings ÷ records/s with hash vectors, paired runs",
          lite.map((r) => r.processed / r.syncMs),
          hashed.map((r) => r.processed / r.syncMs),
        ),
      );
    }
    const server = perBackend.get("postgres");
    if (lite && server) {
      out.ratios.push(
        ratio(
          `sync.${records}.postgres_vs_pglite`,
          `${records.toLocaleString("en-US")} records: PostgreSQL vs PGlite throughput`,
          "PostgreSQL records/s ÷ PGlite records/s, paired runs",
          server.map((r) => r.processed / r.syncMs),
          lite.map((r) => r.processed / r.syncMs),
        ),
      );
    }
  }

  const { records, reps } = opts.sizes.ncbi;
  // Each NCBI-like run is paired with one against the same stand-in answering at once: what the
  // sync takes on this machine alone, the floor that no overlap of NCBI's waits can beat.
  const pairs = await repeat(reps, async () => ({
    ncbi: await syncOnce(
      records,
      "pglite",
      { latencyMs: NCBI_LATENCY_MS, maxRps: NCBI_RPS, prerender: true },
      NCBI_RPS,
    ),
    local: await syncOnce(records, "pglite", { latencyMs: 0, prerender: true }, NCBI_RPS),
    warm: await syncOnce(
      records,
      "pglite",
      { latencyMs: NCBI_LATENCY_MS, maxRps: NCBI_RPS, prerender: true },
      NCBI_RPS,
      "none",
      true,
    ),
    slow: await syncOnce(
      records,
      "pglite",
      { latencyMs: SLOW_LATENCY_MS, maxRps: NCBI_RPS, prerender: true },
      NCBI_RPS,
    ),
  }));
  const runs = pairs.map((p) => p.ncbi);
  const k = `sync.ncbi.${records}`;
  const n = records.toLocaleString("en-US");
  const floor = runs.map((r) => r.requests / NCBI_RPS);
  const wall = runs.map((r) => r.syncMs / 1000);
  out.figures.push(
    figure(`${k}.wall_s`, `NCBI-like server, pglite ${n} records: wall time`, "s", wall),
    figure(
      `${k}.floor_s`,
      `NCBI-like server, pglite ${n} records: rate-limit floor (requests ÷ 10/s)`,
      "s",
      floor,
    ),
    figure(
      `${k}.requests`,
      `NCBI-like server, pglite ${n} records: requests`,
      "",
      runs.map((r) => r.requests),
    ),
  );
  out.figures.push(
    figure(
      `${k}.cpu_s`,
      `NCBI-like server, pglite ${n} records: CPU time of the syncing process`,
      "s",
      runs.map((r) => r.cpuMs / 1000),
    ),
    figure(
      `${k}.warm_cpu_s`,
      `NCBI-like server, pglite ${n} records after another ${n} in the same process: CPU time of the syncing process`,
      "s",
      pairs.map((p) => p.warm.cpuMs / 1000),
    ),
  );
  const local = pairs.map((p) => p.local.syncMs / 1000);
  out.figures.push(
    figure(
      `${k}.local_s`,
      `same stand-in answering at once, pglite ${n} records: wall time`,
      "s",
      local,
    ),
  );
  // The warm-up syncs as many records as the measured sync, through the same windows: half the
  // requests are the measured sync's (checked, so a change to either cannot skew the floor).
  const warmWall = pairs.map((p) => p.warm.syncMs / 1000);
  const warmFloor = pairs.map((p, i) => {
    if (p.warm.requests !== 2 * (runs[i]?.requests ?? NaN)) {
      throw new Error(`warm run made ${p.warm.requests} requests, not twice ${runs[i]?.requests}`);
    }
    return p.warm.requests / 2 / NCBI_RPS;
  });
  out.figures.push(
    figure(
      `${k}.warm_s`,
      `NCBI-like server, pglite ${n} records after another ${n} in the same process: wall time`,
      "s",
      warmWall,
    ),
  );
  out.figures.push(
    figure(
      `${k}.slow_s`,
      `NCBI-like server answering in ${SLOW_LATENCY_MS.toLocaleString("en-US")} ms, pglite ${n} records: wall time`,
      "s",
      pairs.map((p) => p.slow.syncMs / 1000),
    ),
  );
  out.ratios.push(
    ratio(
      `${k}.efficiency`,
      `NCBI-like server ${n} records: efficiency`,
      "floor ÷ wall time",
      floor,
      wall,
    ),
    ratio(
      `${k}.warm_efficiency`,
      `NCBI-like server ${n} records, a second sync in the same process: efficiency`,
      "floor ÷ wall time (V8 has compiled the sync's code by then)",
      warmFloor,
      warmWall,
    ),
    ratio(
      `${k}.latency_hidden`,
      `NCBI-like server ${n} records: NCBI's waits hidden`,
      "wall time answering at once ÷ NCBI-like wall time, paired runs (1 = NCBI's latency and rate cost nothing)",
      local,
      wall,
    ),
  );
  out.notes.push(
    `NCBI imitation: every reply leaves ${NCBI_LATENCY_MS} ms after its request arrived (EFetch XML rendered before the run, so the generator's CPU time is not in it), 429 above ${NCBI_RPS} requests in any sliding second (refused: ${runs.reduce((s, r) => s + r.refused, 0)}); client NCBI_MAX_RPS=${NCBI_RPS}.`,
    "Every sync runs as the server runs it: in the corpus worker thread, its NCBI replies read by the client on the main thread.",
    "Zero-latency runs: client NCBI_MAX_RPS=100 (never binding); the default configuration (EMBEDDINGS_PROVIDER=none, lexical only) unless a figure says hash; throughput = records ÷ syncDelta wall time (store open excluded); the fake server's XML generation is on the request path.",
    "PostgreSQL 15 here has no pgvector: vectors are stored as real[]; on either backend the dense leg is searched in memory, so a sync builds no vector index.",
  );
  return out;
}
