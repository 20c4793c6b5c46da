/**
 * §13 Bounded at every edge (issue 45): the real server (`src/main.ts` under tsx, stdio) against
 * the demo's synthetic NCBI on loopback, driven by the MCP SDK Client with generated calls across
 * every tool tools/list names (bench/lib/edges-calls.ts: seeded; valid calls and every kind of bad
 * argument), then `pubmed_cite` of 50 PMIDs in 6 styles, then oversized and malformed raw lines;
 * the same raw messages as HTTP bodies to a `serve --http` process. The server reports its own
 * event-loop delay and memory through a preloaded probe (bench/lib/edges-probe.ts); its RSS and
 * peak come from /proc. Each figure's label states its goal; the goals table goes to stderr.
 * BENCH_SERVER_DIR=<another checkout> measures that checkout's server instead (before/after runs);
 * BENCH_EDGES_ENV (JSON) adds to the server's environment; BENCH_EDGES_HEAP_DIR=<folder> writes
 * heap snapshots of every thread at start, after the calls and at the end (they inflate RSS).
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEFAULT_MAX_ANSWER_BYTES } from "../../src/config.js";
import { MAX_STDIO_LINE_BYTES } from "../../src/protocol/stdio.js";
import { TOOLS } from "../../src/tools/index.js";
import { REPO_DIR } from "../lib/child.js";
import { demoSeeds, validCall, type ToolSchema } from "../lib/edges-calls.js";
import { alive, measuredCall, pinger, runFuzz, runRawStdio } from "../lib/edges-fuzz.js";
import { runRawHttp } from "../lib/edges-http.js";
import { rawMessages } from "../lib/edges-raw.js";
import { ServerProcess, StdioLines } from "../lib/edges-server.js";
import { edgesFigures, goalLines, type EdgesRun } from "../lib/edges-report.js";
import type { BenchOptions } from "../lib/options.js";
import { emptySection, type SectionResult } from "../lib/stats.js";

const SEED = 45;

/** Each tool's answer ceiling in this checkout (src/tools/answer.ts), for the server's setting. */
function answerCeilings(setting: string | undefined): Record<string, number> {
  const global = setting ? Number(setting) : DEFAULT_MAX_ANSWER_BYTES;
  return Object.fromEntries(
    TOOLS.map((t) => [t.name, Math.min(t.maxAnswerBytes ?? Infinity, global)]),
  );
}
const say = (text: string) => process.stderr.write(`${text}\n`);

async function startNcbi() {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(REPO_DIR, "bench", "lib", "edges-ncbi-child.ts")],
    { cwd: REPO_DIR, stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`synthetic NCBI exited with code ${code}`)));
  });
  lines.close();
  const { baseUrl, env } = JSON.parse(first) as { baseUrl: string; env: Record<string, string> };
  return { baseUrl, env, stop: () => child.kill("SIGTERM") };
}

export async function edgesSection(o: BenchOptions): Promise<SectionResult> {
  const out = emptySection("Bounded at every edge");
  const { calls, concurrency, big, idleS } = o.sizes.edges;
  const ncbi = await startNcbi();
  // An empty data directory: the server makes its own store (a template migrated by this
  // checkout would be refused by an older one measured with BENCH_SERVER_DIR).
  const dataDir = await mkdtemp(join(tmpdir(), "pmcp-bench-edges-"));
  const env = {
    NCBI_EUTILS_BASE_URL: ncbi.baseUrl,
    ...ncbi.env,
    UNPAYWALL_EMAIL: "bench@example.org",
    NCBI_MAX_RPS: "100",
    PUBMED_MCP_DATA_DIR: dataDir,
    EMBEDDINGS_PROVIDER: "hash",
    LOG_LEVEL: "error",
    // For investigations, e.g. '{"NCBI_DEADLINE_MS":"20000"}'.
    ...(JSON.parse(process.env.BENCH_EDGES_ENV ?? "{}") as Record<string, string>),
  };
  const server = new ServerProcess([], env);
  const lines = new StdioLines(server);
  const client = new Client({ name: "bench-edges", version: "1" });
  const heapDir = process.env.BENCH_EDGES_HEAP_DIR;
  try {
    await client.connect(lines);
    const tools = (await client.listTools()).tools as ToolSchema[];
    const seeds = demoSeeds();
    await sleep(1000);
    const rssIdle = server.memory().rss;
    /** pubmed_cite of 50 PMIDs in all six styles, and the server's loop delay meanwhile. */
    const cite50x6 = async (tag: number) => {
      await server.probe({ cmd: "sample", reset: true });
      const call = await measuredCall(client, lines, tag, "pubmed_cite", {
        pmids: seeds.pmids.slice(0, 50),
        styles: ["ris", "bibtex", "apa", "mla", "vancouver", "csl_json"],
      });
      return { call, loop: await server.probe({ cmd: "sample", reset: true }) };
    };
    // Before anything else has loaded citation-js or built a style's engine.
    const citeFresh = await cite50x6(-100);
    // One valid call of each tool: what each loads on first use (the store, the chart renderer)
    // is in before "start" is read.
    for (const [i, tool] of tools.entries()) {
      const g = validCall(SEED, tool, seeds);
      await measuredCall(client, lines, -1 - i, g.tool, g.arguments);
    }
    await sleep(2000);
    const rssStart = server.memory().rss;
    if (heapDir)
      await server.probe({ cmd: "snapshot", path: join(heapDir, "1-start.heapsnapshot") });
    await server.probe({ cmd: "sample", reset: true });

    say(`bench: edges: ${calls} calls over ${tools.length} tools, ${concurrency} at a time`);
    const stopPinger = pinger(client, 250);
    const t0 = performance.now();
    const series: EdgesRun["series"] = [];
    const checkpoint = async (done: number) => {
      const m = await server.probe({ cmd: "sample" });
      const rssMb = server.memory().rss;
      const threads = Object.fromEntries(
        m.workers.map((w) => [w.name.replace(/\.[jt]s$/, ""), w.physicalMb + w.externalMb]),
      );
      series.push({
        calls: done,
        rssMb,
        heapMb: m.heapUsedMb,
        externalMb: m.externalMb,
        threads,
      });
      say(`bench: edges: ${done} of ${calls} calls, server RSS ${Math.round(rssMb)} MB`);
    };
    const records = await runFuzz({
      ...{ client, lines, tools, seeds, seed: SEED },
      ...{ calls, concurrency, checkpoint },
    });
    const fuzzS = (performance.now() - t0) / 1000;
    const pings = await stopPinger();
    const fuzzLoop = await server.probe({ cmd: "sample", reset: true });
    const rssAfterFuzz = server.memory().rss;
    if (heapDir)
      await server.probe({ cmd: "snapshot", path: join(heapDir, "2-after-fuzz.heapsnapshot") });
    const aliveAfterFuzz = await alive(client);

    const citeWarm = await cite50x6(-101);

    const raw = rawMessages({ big, lineLimit: MAX_STDIO_LINE_BYTES });
    const stdioRaw = await runRawStdio(client, lines, raw);
    // V8 gives back the pages of a heap grown under load only some seconds after the load ends
    // (its memory reducer): RSS is read 5 s after the last message, and again at `idleS`.
    await sleep(5000);
    const rss5s = server.memory().rss;
    await sleep((idleS - 5) * 1000);
    const mem = server.memory();
    // A server that died on a raw message has no memory left to describe.
    const retained = await server.probe({ cmd: "sample", gc: true }).catch(() => null);
    const rssAfterGc = server.memory().rss;
    const exited = server.exited;
    if (heapDir && retained)
      await server.probe({ cmd: "snapshot", path: join(heapDir, "3-end.heapsnapshot") });
    await client.close();
    await server.stop();

    const http = await runRawHttp(env, raw);

    const report: EdgesRun = {
      calls: records,
      ceilings: answerCeilings((env as Record<string, string>).MCP_MAX_ANSWER_BYTES),
      series,
      fuzzS,
      pings,
      fuzzLoop,
      cite: { fresh: citeFresh, warm: citeWarm },
      rss: {
        idle: rssIdle,
        start: rssStart,
        afterFuzz: rssAfterFuzz,
        end5s: rss5s,
        end: mem.rss,
        idleS,
        afterGc: rssAfterGc,
        peak: mem.peak,
      },
      retained,
      exited,
      aliveAfterFuzz,
      stdioRaw,
      http,
    };
    edgesFigures(out, report);
    process.stderr.write(`\n${goalLines(report).join("\n")}\n\n`);
  } finally {
    await client.close().catch(() => undefined);
    await server.stop();
    ncbi.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  return out;
}
