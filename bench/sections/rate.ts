/**
 * §rate The NCBI rate ceiling as NCBI would see it: a stand-in NCBI in its own process (its clock
 * notes each request when its headers arrive, 50 ms ± 50 % per reply) and 50 MCP callers over
 * Streamable HTTP, dealt over one server process (embedded store) or three replicas sharing one
 * PostgreSQL (DATABASE_URL, so one shared budget), each call a pubmed_search with a unique query.
 * Figures per ceiling (NCBI_MAX_RPS 3 and 10) and replica count: the most requests that arrived in
 * any sliding second, the tightest span of ceiling + 1 consecutive arrivals (at least 1,000 ms means
 * the ceiling held), and sustained throughput at the stand-in. Then fairness under a deadline
 * (issue 48): 48 callers at 10/s with NCBI_DEADLINE_MS=8000, one server against three replicas —
 * calls that failed, the longest call, and the database transactions per call. Runs by default in
 * full mode only (minutes at 3 requests/s); `--only rate` runs it in any mode.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { maxInWindow, startStandIn, tightestSpan, windowsOver } from "../lib/ncbi-standin.js";
import type { BenchOptions, Mode } from "../lib/options.js";
import {
  closeCallers,
  connectCallers,
  runCallers,
  startReplica,
  type CallTally,
  type Replica,
} from "../lib/replicas.js";
import { emptySection, figure, ratio, type SectionResult } from "../lib/stats.js";
import { pgliteDir, postgresDatabase, probePostgres } from "../lib/stores.js";

const CALLERS = 50;
const CEILINGS = [3, 10] as const;
const REPLICAS = [1, 3] as const;

/** Calls per caller at each ceiling, and repetitions, per mode. */
const SIZES: Record<Mode, { calls: Record<(typeof CEILINGS)[number], number>; reps: number }> = {
  full: { calls: { 3: 3, 10: 5 }, reps: 2 },
  quick: { calls: { 3: 1, 10: 3 }, reps: 1 },
  smoke: { calls: { 3: 1, 10: 1 }, reps: 1 },
};

/** The fairness run: as many callers as issue 48 measured, the deadline it failed at. */
const FAIR = { callers: 48, rps: 10, deadlineMs: 8_000 };
const FAIR_CALLS: Record<Mode, number> = { full: 3, quick: 3, smoke: 1 };

interface Run {
  maxPerSecond: number;
  windowsOver: number;
  tightestMs: number;
  throughput: number;
  tally: CallTally;
  /** Transactions the replicas' database committed or rolled back during the calls. */
  transactions?: number;
}

export async function rateSection(opts: BenchOptions): Promise<SectionResult> {
  const section = emptySection("rate");
  const { calls, reps } = SIZES[opts.mode];
  const pg = await probePostgres();
  const replicaCounts = REPLICAS.filter((n) => n === 1 || !("problem" in pg));
  if ("problem" in pg) section.skipped = `three replicas need PostgreSQL: ${pg.problem}`;
  const standIn = await startStandIn({ latencyMs: 50 });
  const runs = new Map<string, Run[]>();
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const rps of CEILINGS) {
        for (const n of replicaCounts) {
          const run = await oneRun(standIn, rps, n, calls[rps]);
          if (run.tally.ok !== CALLERS * calls[rps]) {
            throw new Error(`calls failed: ${JSON.stringify(run.tally)}`);
          }
          const key = `${rps}.${n}`;
          runs.set(key, [...(runs.get(key) ?? []), run]);
          if (run.windowsOver > 0) {
            section.error = `${n} replica(s) at NCBI_MAX_RPS=${rps}: ${run.windowsOver} windows over the ceiling`;
          }
        }
      }
    }
    for (let rep = 0; rep < reps; rep++) {
      for (const n of replicaCounts) {
        const run = await oneRun(standIn, FAIR.rps, n, FAIR_CALLS[opts.mode], FAIR);
        runs.set(`fair.${n}`, [...(runs.get(`fair.${n}`) ?? []), run]);
      }
    }
  } finally {
    await standIn.close();
  }
  fairness(section, runs, FAIR_CALLS[opts.mode]);

  for (const rps of CEILINGS) {
    for (const n of replicaCounts) {
      const r = runs.get(`${rps}.${n}`) ?? [];
      const what = `NCBI_MAX_RPS=${rps}, ${n === 1 ? "one server" : `${n} replicas`}`;
      const k = `rate.${rps}.${n}r`;
      section.figures.push(
        figure(
          `${k}.max_per_s`,
          `${what}: most arrivals in any sliding second`,
          "requests",
          r.map((x) => x.maxPerSecond),
        ),
        figure(
          `${k}.tightest_ms`,
          `${what}: tightest span of ${rps + 1} consecutive arrivals`,
          "ms",
          r.map((x) => x.tightestMs),
        ),
        figure(
          `${k}.throughput`,
          `${what}: sustained throughput at the stand-in`,
          "requests/s",
          r.map((x) => x.throughput),
        ),
      );
      section.ratios.push(
        ratio(
          `${k}.efficiency`,
          `${what}: throughput vs the ceiling`,
          "requests/s ÷ NCBI_MAX_RPS",
          r.map((x) => x.throughput),
          r.map(() => rps),
        ),
      );
    }
    const one = runs.get(`${rps}.1`);
    const three = runs.get(`${rps}.3`);
    if (one && three) {
      section.ratios.push(
        ratio(
          `rate.${rps}.replicas_vs_one`,
          `NCBI_MAX_RPS=${rps}: three replicas vs one server, throughput`,
          "3-replica requests/s ÷ 1-server requests/s, per repetition",
          three.map((x) => x.throughput),
          one.map((x) => x.throughput),
        ),
      );
    }
  }
  section.notes.push(
    `${CALLERS} MCP callers over Streamable HTTP, ${calls[3]} (at 3/s) or ${calls[10]} (at 10/s) pubmed_search calls each with unique queries; the stand-in NCBI runs in its own process and answers in 50 ms ± 50 %.`,
    "Throughput is sustained, at the stand-in: m arrivals after arrival c (the ceiling; the first c go at once) ÷ the time from arrival c to arrival c + m, m a whole number of groups of c. The limiter's window is 1.1 s (1 s + 100 ms margin), so a saturated ceiling c gives at most c ÷ 1.1 (0.909× c).",
    "Three replicas share PostgreSQL (DATABASE_URL) and with it one NCBI budget; a single server uses the embedded store and its local limiter.",
  );
  return section;
}

function fairness(section: SectionResult, runs: Map<string, Run[]>, callsEach: number): void {
  const calls = FAIR.callers * callsEach;
  for (const [n, r] of [1, 3].map((n) => [n, runs.get(`fair.${n}`) ?? []] as const)) {
    if (r.length === 0) continue;
    const what = `${FAIR.callers} callers at ${FAIR.rps}/s, 8 s deadline, ${n === 1 ? "one server" : `${n} replicas`}`;
    section.figures.push(
      figure(
        `rate.fair.${n}r.failed`,
        `${what}: calls that failed, of ${calls} (goal 0)`,
        "calls",
        r.map((x) => calls - x.tally.ok),
      ),
      figure(
        `rate.fair.${n}r.longest_ms`,
        `${what}: the longest call`,
        "ms",
        r.map((x) => x.tally.longestMs),
      ),
    );
    if (n > 1) {
      section.figures.push(
        figure(
          `rate.fair.${n}r.transactions_per_call`,
          `${what}: database transactions per call`,
          "transactions",
          r.map((x) => (x.transactions ?? NaN) / calls),
        ),
      );
    }
  }
  const one = runs.get("fair.1");
  const three = runs.get("fair.3");
  if (one?.length && three?.length) {
    section.ratios.push(
      ratio(
        "rate.fair.longest_vs_one",
        `${FAIR.callers} callers, 8 s deadline: the longest call, three replicas vs one server (goal ≤ 1.2)`,
        "3-replica longest ÷ 1-server longest, per repetition",
        three.map((x) => x.tally.longestMs),
        one.map((x) => x.tally.longestMs),
      ),
    );
  }
  for (const r of [...(one ?? []), ...(three ?? [])]) {
    if (r.tally.messages)
      section.notes.push(`fairness run errors: ${JSON.stringify(r.tally.messages)}`);
  }
}

async function oneRun(
  standIn: Awaited<ReturnType<typeof startStandIn>>,
  rps: number,
  n: number,
  callsEach: number,
  opts: { callers?: number; deadlineMs?: number } = {},
): Promise<Run> {
  const callers = opts.callers ?? CALLERS;
  const cleanups: (() => Promise<void>)[] = [];
  const replicas: Replica[] = [];
  try {
    const env: Record<string, string> = {
      NCBI_EUTILS_BASE_URL: standIn.baseUrl,
      NCBI_MAX_RPS: String(rps),
      NCBI_DEADLINE_MS: String(opts.deadlineMs ?? 600_000),
      LOG_LEVEL: "error",
    };
    if (n === 1) {
      const dir = await pgliteDir();
      cleanups.push(dir.cleanup);
      env.PUBMED_MCP_DATA_DIR = dir.dataDir;
    } else {
      const db = await postgresDatabase();
      cleanups.push(db.drop);
      env.DATABASE_URL = db.url;
      const dir = await mkdtemp(join(tmpdir(), "pmcp-bench-rate-")); // unused with DATABASE_URL
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      env.PUBMED_MCP_DATA_DIR = dir;
    }
    for (let i = 0; i < n; i++) replicas.push(await startReplica(env));
    await standIn.reset();
    const clients = await connectCallers(
      replicas.map((r) => r.url),
      callers,
    );
    const before = env.DATABASE_URL ? await transactions(env.DATABASE_URL) : undefined;
    const tally = await runCallers(clients, callsEach, `bench ${rps} ${n} ${Date.now()}`);
    await closeCallers(clients);
    // PostgreSQL publishes a backend's counts at most once a second.
    const after = env.DATABASE_URL
      ? (await sleep(1_500), await transactions(env.DATABASE_URL))
      : undefined;
    const arrivals = (await standIn.arrivals()).sort((a, b) => a - b);
    // Sustained: from arrival c (after the first burst, which an idle budget lets through at once)
    // over whole groups of c further arrivals, so the run's ragged end does not count as a burst.
    const m = Math.floor((arrivals.length - 1 - rps) / rps) * rps;
    const span = ((arrivals[rps + m] ?? NaN) - (arrivals[rps] ?? NaN)) / 1000;
    return {
      maxPerSecond: maxInWindow(arrivals, 1000),
      windowsOver: windowsOver(arrivals, rps, 1000),
      tightestMs: tightestSpan(arrivals, rps),
      throughput: m / span,
      tally,
      transactions: before !== undefined && after !== undefined ? after - before : undefined,
    };
  } finally {
    await Promise.all(replicas.map((r) => r.close()));
    for (const c of cleanups.reverse()) await c();
  }
}

/** Transactions committed and rolled back so far in the database at `url`. */
async function transactions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()",
    );
    return Number(rows[0]?.n ?? NaN);
  } finally {
    await client.end();
  }
}
