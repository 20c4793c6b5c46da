/**
 * §7 Start-up (issue 11 item 7): how long a stdio server takes from spawn to its first
 * `initialize` reply (wall time, and the CPU the process used until then, from
 * /proc/<pid>/stat), and its resident set one second later (VmRSS), next to the smallest
 * stdio server the MCP SDK makes (startup-bare-server.mjs), all as plain `node <file>`.
 *
 * For pubmed-mcp, after that: a first corpus call (`corpus_checkpoint_get`), which starts the
 * corpus worker and opens the store the data directory holds (a restart's first corpus call: the
 * untimed start made the store), timed from the request to its reply, with the CPU it took.
 *
 * Variants, each started once untimed and then `REPS` times in rotating order:
 * - `bare`: the SDK yardstick;
 * - `current`: the working tree compiled into a temporary folder (bench/lib/builds.ts) with its
 *   compile cache warm, as on every start after the first;
 * - `current_cold`: the same build with an empty compile cache, as on a first start;
 * - `baseline`: with BENCH_STARTUP_BASELINE=<git revision>, that revision built the same way.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { buildCommit, buildWorkingTree } from "../lib/builds.js";
import { REPO_DIR } from "../lib/child.js";
import type { BenchOptions, Mode } from "../lib/options.js";
import { rssOfPidMb } from "../lib/rss.js";
import { emptySection, figure, ratio, type SectionResult } from "../lib/stats.js";

/** Start-up times vary from start to start far more than call latencies: more repetitions. */
const REPS: Record<Mode, number> = { full: 15, quick: 7, smoke: 1 };
/** How long after the reply the resident set is read (the mcp section's idle RSS uses the same). */
const IDLE_MS = 1_000;
const START_DEADLINE_MS = 60_000;
const BARE = join(REPO_DIR, "bench", "sections", "startup-bare-server.mjs");

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "pubmed-mcp-bench", version: "1.0.0" },
  },
})}\n`;

interface Sample {
  ms: number;
  cpuMs: number;
  rssMb: number;
  /** The first corpus call, from its request to its reply (pubmed-mcp only). */
  corpus?: { ms: number; cpuMs: number };
}

interface Variant {
  key: string;
  label: string;
  script: string;
  /** The TMPDIR the server sees (its compile cache lives there); a fresh one per start if null. */
  tmp: string | null;
  /** Also time a first corpus call (pubmed-mcp; the bare server has no corpus). */
  corpus: boolean;
}

const INITIALIZED = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`;
const CORPUS_CALL = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "corpus_checkpoint_get", arguments: { query_key: "bench" } },
})}\n`;

function clockTicks(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
}
const TICKS_PER_S = clockTicks();

/** User + system CPU of a process so far (all its threads), from /proc/<pid>/stat. */
function cpuOfPidMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
}

async function startOnce(
  script: string,
  env: Record<string, string>,
  corpus: boolean,
): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, [script], {
    cwd: REPO_DIR,
    stdio: ["pipe", "pipe", "pipe"],
    env,
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), START_DEADLINE_MS);
  const exited = new Promise<number | null>((res) => child.once("close", res));
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  // Each reply line, by its id: when it came (ms since spawn) and the CPU used by then.
  type Reply = { ms: number; cpuMs: number; isError: boolean };
  const replies = new Map<number, (reply: Reply) => void>();
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    for (let nl = out.indexOf("\n"); nl >= 0; nl = out.indexOf("\n")) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      let msg: { id?: number; result?: { isError?: boolean } };
      try {
        msg = JSON.parse(line) as typeof msg;
      } catch {
        continue; // not a JSON-RPC message: nothing waits for it
      }
      replies.get(msg.id ?? -1)?.({
        ms: performance.now() - started,
        cpuMs: cpuOfPidMs(child.pid ?? -1),
        isError: msg.result?.isError === true,
      });
    }
  });
  const reply = (id: number, request: string) =>
    new Promise<Reply>((resolve, reject) => {
      replies.set(id, resolve);
      void exited.then((code) => reject(new Error(`${script} exited (${code}): ${stderr}`)));
      child.stdin.write(request);
    });
  try {
    const { ms, cpuMs } = await reply(1, INITIALIZE);
    await sleep(IDLE_MS);
    const rssMb = rssOfPidMb(child.pid ?? -1);
    if (rssMb === null) throw new Error("no /proc/<pid>/status: the startup section needs Linux");
    if (!corpus) return { ms, cpuMs, rssMb };
    child.stdin.write(INITIALIZED);
    const sent = { ms: performance.now() - started, cpuMs: cpuOfPidMs(child.pid ?? -1) };
    const answered = await reply(2, CORPUS_CALL);
    if (answered.isError) throw new Error(`${script}: the first corpus call failed: ${stderr}`);
    return {
      ms,
      cpuMs,
      rssMb,
      corpus: { ms: answered.ms - sent.ms, cpuMs: answered.cpuMs - sent.cpuMs },
    };
  } finally {
    child.stdin.end();
    const stop = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(stop);
    clearTimeout(killer);
  }
}

export async function startupSection(opts: BenchOptions): Promise<SectionResult> {
  const section = emptySection("Start-up: stdio server to its first initialize reply");
  if (process.platform !== "linux") {
    section.skipped = "needs /proc (Linux) for the child's CPU time and RSS";
    return section;
  }
  const work = mkdtempSync(join(tmpdir(), "pmcp-bench-startup-"));
  try {
    const variants: Variant[] = [
      {
        key: "bare",
        label: "bare MCP SDK stdio server",
        script: BARE,
        tmp: join(work, "tmp"),
        corpus: false,
      },
    ];
    const baseline = process.env.BENCH_STARTUP_BASELINE;
    if (baseline) {
      const script = buildCommit(baseline, join(work, "baseline"));
      variants.push({
        key: "baseline",
        label: `pubmed-mcp at ${baseline}`,
        script,
        tmp: join(work, "tmp"),
        corpus: true,
      });
    }
    const current = buildWorkingTree(join(work, "current"));
    variants.push(
      {
        key: "current",
        label: "pubmed-mcp (working tree), warm compile cache",
        script: current,
        tmp: join(work, "tmp"),
        corpus: true,
      },
      {
        key: "current_cold",
        label: "pubmed-mcp (working tree), empty compile cache",
        script: current,
        tmp: null,
        corpus: true,
      },
    );
    mkdirSync(join(work, "tmp"));
    let fresh = 0;
    const envFor = (v: Variant) => {
      const tmp = v.tmp ?? join(work, `fresh-${fresh++}`);
      mkdirSync(tmp, { recursive: true });
      return {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        TMPDIR: tmp,
        LOG_LEVEL: "error",
        // One per variant: a baseline from before a store migration cannot open a migrated store.
        PUBMED_MCP_DATA_DIR: join(work, `data-${v.key}`),
        // Never contacted: initialize does not reach NCBI.
        NCBI_EUTILS_BASE_URL: "http://127.0.0.1:9/entrez/eutils",
      };
    };
    for (const v of variants) await startOnce(v.script, envFor(v), v.corpus); // untimed
    const samples = new Map<string, Sample[]>(variants.map((v) => [v.key, []]));
    const reps = REPS[opts.mode];
    for (let rep = 0; rep < reps; rep++) {
      // Rotating the order spreads a drifting machine load over every variant alike.
      for (let i = 0; i < variants.length; i++) {
        const v = variants[(rep + i) % variants.length]!;
        samples.get(v.key)!.push(await startOnce(v.script, envFor(v), v.corpus));
      }
    }
    const of = (key: string, pick: (s: Sample) => number) => (samples.get(key) ?? []).map(pick);
    for (const v of variants) {
      section.figures.push(
        figure(
          `startup.${v.key}.initialize_ms`,
          `${v.label}: spawn to initialize reply`,
          "ms",
          of(v.key, (s) => s.ms),
        ),
        figure(
          `startup.${v.key}.cpu_ms`,
          `${v.label}: CPU until the reply`,
          "ms",
          of(v.key, (s) => s.cpuMs),
        ),
        figure(
          `startup.${v.key}.idle_rss_mb`,
          `${v.label}: idle RSS 1 s after the reply`,
          "MB",
          of(v.key, (s) => s.rssMb),
        ),
      );
      if (!v.corpus) continue;
      section.figures.push(
        figure(
          `startup.${v.key}.first_corpus_call_ms`,
          `${v.label}: first corpus call (worker start, store open), request to reply`,
          "ms",
          of(v.key, (s) => s.corpus?.ms ?? NaN),
        ),
        figure(
          `startup.${v.key}.first_corpus_call_cpu_ms`,
          `${v.label}: CPU of the first corpus call`,
          "ms",
          of(v.key, (s) => s.corpus?.cpuMs ?? NaN),
        ),
      );
    }
    const compare = (a: string, b: string, what: string) => {
      if (!samples.has(a) || !samples.has(b)) return;
      const pairs: [string, string, (s: Sample) => number][] = [
        ["initialize", "wall time to the reply", (s) => s.ms],
        ["cpu", "CPU until the reply", (s) => s.cpuMs],
        ["rss", "idle RSS", (s) => s.rssMb],
      ];
      for (const [suffix, label, pick] of pairs) {
        section.ratios.push(
          ratio(
            `startup.${a}_vs_${b}.${suffix}`,
            `${what}: ${label}`,
            `${a} ÷ ${b}, same repetition`,
            of(a, pick),
            of(b, pick),
          ),
        );
      }
    };
    compare("current", "bare", "pubmed-mcp vs the bare SDK server");
    compare("current_cold", "bare", "pubmed-mcp, first start, vs the bare SDK server");
    compare("baseline", "bare", "the baseline vs the bare SDK server");
    compare("current", "baseline", "pubmed-mcp vs the baseline");
    if (samples.has("baseline")) {
      for (const [suffix, label, pick] of [
        ["first_corpus_call", "first corpus call", (s: Sample) => s.corpus?.ms ?? NaN],
        [
          "first_corpus_call_cpu",
          "CPU of the first corpus call",
          (s: Sample) => s.corpus?.cpuMs ?? NaN,
        ],
      ] as const) {
        section.ratios.push(
          ratio(
            `startup.current_vs_baseline.${suffix}`,
            `pubmed-mcp vs the baseline: ${label}`,
            "current ÷ baseline, same repetition",
            of("current", pick),
            of("baseline", pick),
          ),
        );
      }
    }
    section.notes.push(
      `Each server runs as plain \`node <main.js>\` over stdio; CPU is user + system time from /proc/<pid>/stat (${1000 / TICKS_PER_S} ms resolution) when the reply arrives; ${reps} starts per variant after one untimed start each.`,
      "The first corpus call (corpus_checkpoint_get) is sent after the idle RSS is read; its store is the one an earlier start made in the same data directory (a restart), in the default configuration (embedded store, EMBEDDINGS_PROVIDER=none).",
      "The bare server is one McpServer with one zod-typed tool (bench/sections/startup-bare-server.mjs), without Node's compile cache; pubmed-mcp enables the cache itself (src/startup).",
      ...(baseline
        ? [`Baseline: ${baseline}, built from git archive the same way as the working tree.`]
        : []),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return section;
}
