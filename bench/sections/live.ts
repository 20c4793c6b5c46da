/**
 * §13 Live tools and the MCP loop (issue "Bounded at every edge": nothing heavy on the loop). A
 * stdio server process (`src/main.ts` under tsx, with lib/loop-probe.mjs preloaded: it measures
 * its own event-loop delay at a 10 ms resolution) answers, in this order, `pubmed_cite` of 50
 * PMIDs × 6 styles right after start-up (fresh: citation-js not loaded yet), another 50 × 6 (warm)
 * and `pubmed_fetch` of 200 PMIDs not fetched before (cold: EFetch of 200 records, parsed). Each
 * call is bracketed by two probe readings: the figures are that call's delay p99 and max. A fresh
 * server process per repetition. The synthetic NCBI runs in a child process (lib/synth-child.ts).
 * Beside it, in this process: the parse time of the same 200-record EFetch reply (and of 200
 * recorded records when ../shared is there) by xml2js (parseEFetch) and by the reader the live
 * and sync paths use (parseEFetchFast).
 * BENCH_SERVER_DIR=<another checkout> measures that checkout's server instead (before/after runs).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CITATION_STYLES } from "../../src/live/citations.js";
import { parseEFetch as parseEFetchFast } from "../../src/ncbi/parse/efetch.js";
import { parseEFetchXml2js as parseEFetch } from "../../src/ncbi/parse/efetch-xml2js.js";
import { REPO_DIR, startSynthNcbi, type SynthNcbi } from "../lib/child.js";
import type { BenchOptions } from "../lib/options.js";
import { emptySection, figure, ratio, repeat, timed, type SectionResult } from "../lib/stats.js";

const CITE_TERM = "bench live cite";
const FETCH_TERM = "bench live fetch";
/** Time for the server's start-up work (compile cache, corpus worker) to settle before measuring. */
const SETTLE_MS = 2000;

interface Delay {
  p99: number;
  max: number;
  samples: number;
}

type Ncbi = SynthNcbi;

async function startNcbi(): Promise<Ncbi> {
  const spec = {
    seed: 13,
    terms: [
      { term: CITE_TERM, count: 100, edatFrom: "2015-01-01", edatTo: "2024-12-31" },
      { term: FETCH_TERM, count: 200, edatFrom: "2015-01-01", edatTo: "2024-12-31" },
    ],
  };
  return startSynthNcbi(spec);
}

interface ServerRun {
  citeFresh: Delay & { ms: number };
  citeWarm: Delay & { ms: number };
  fetch: Delay & { ms: number };
}

/** One fresh server process: the three calls, each bracketed by probe readings. */
async function serverRun(ncbi: Ncbi, serverDir: string): Promise<ServerRun> {
  const dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-bench-live-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      "--import",
      "tsx",
      "--import",
      join(REPO_DIR, "bench", "lib", "loop-probe.mjs"),
      join(serverDir, "src", "main.ts"),
    ],
    cwd: serverDir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NCBI_EUTILS_BASE_URL: ncbi.baseUrl,
      NCBI_MAX_RPS: "100",
      NCBI_DEADLINE_MS: "120000",
      PUBMED_MCP_DATA_DIR: dataDir,
      LOG_LEVEL: "error",
    },
    stderr: "pipe",
  });
  const readings: Delay[] = [];
  const waiting: ((d: Delay) => void)[] = [];
  createInterface({ input: transport.stderr as Readable }).on("line", (line) => {
    if (!line.startsWith("loop-probe ")) return;
    const d = JSON.parse(line.slice("loop-probe ".length)) as Delay;
    const w = waiting.shift();
    if (w) w(d);
    else readings.push(d);
  });
  const client = new Client({ name: "bench-live", version: "1" });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error("the server process did not start");
  const probe = () =>
    new Promise<Delay>((resolve) => {
      waiting.push(resolve);
      process.kill(pid, "SIGUSR2");
    });
  const measured = async (name: string, args: Record<string, unknown>) => {
    await probe(); // starts a new histogram
    const { ms, value } = await timed(() =>
      client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 }),
    );
    await sleep(50); // the probe's timer fires once more, after the call's last turn
    const delay = await probe();
    if (value.isError === true) throw new Error(`${name} failed: ${JSON.stringify(value.content)}`);
    return { ...delay, ms };
  };
  try {
    await sleep(SETTLE_MS);
    const cite = ncbi.pmids[CITE_TERM] ?? [];
    const styles = [...CITATION_STYLES];
    return {
      citeFresh: await measured("pubmed_cite", { pmids: cite.slice(0, 50), styles }),
      citeWarm: await measured("pubmed_cite", { pmids: cite.slice(50, 100), styles }),
      fetch: await measured("pubmed_fetch", {
        pmids: (ncbi.pmids[FETCH_TERM] ?? []).slice(0, 200),
      }),
    };
  } finally {
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The first 200 recorded PubmedArticle records of ../shared's metapub set (repeated to 200). */
function recordedReply(sharedDir: string): string | null {
  const dir = join(sharedDir, "fixtures", "eutils", "metapub", "pmid_xml");
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".xml"));
  } catch {
    return null;
  }
  const records = files.flatMap(
    (f) => /<PubmedArticle>[\s\S]*<\/PubmedArticle>/.exec(readFileSync(join(dir, f), "utf8")) ?? [],
  );
  if (records.length === 0) return null;
  const two = Array.from({ length: 200 }, (_, i) => records[i % records.length]!);
  return `<?xml version="1.0" ?>\n<PubmedArticleSet>${two.join("\n")}</PubmedArticleSet>`;
}

async function parseFigures(
  out: SectionResult,
  key: string,
  label: string,
  xml: string,
  reps: number,
) {
  // Once each untimed: V8 compiles both parsers first.
  parseEFetch(xml);
  parseEFetchFast(xml);
  const runs = await repeat(reps, async () => ({
    xml2js: (await timed(() => parseEFetch(xml))).ms,
    fast: (await timed(() => parseEFetchFast(xml))).ms,
  }));
  const mb = (Buffer.byteLength(xml) / 1024 ** 2).toFixed(1);
  out.figures.push(
    figure(
      `live.parse.${key}.xml2js_ms`,
      `parse, ${label} (${mb} MB), xml2js`,
      "ms",
      runs.map((r) => r.xml2js),
    ),
    figure(
      `live.parse.${key}.fast_ms`,
      `parse, ${label} (${mb} MB), fast reader`,
      "ms",
      runs.map((r) => r.fast),
    ),
  );
  out.ratios.push(
    ratio(
      `live.parse.${key}.xml2js_vs_fast`,
      `parse time, ${label}: xml2js ÷ fast reader`,
      "parseEFetch ms ÷ parseEFetchFast ms, same repetition",
      runs.map((r) => r.xml2js),
      runs.map((r) => r.fast),
    ),
  );
}

export async function liveSection(o: BenchOptions): Promise<SectionResult> {
  const out = emptySection("Live tools and the MCP loop");
  const serverDir = process.env.BENCH_SERVER_DIR ?? REPO_DIR;
  const runs = o.mode === "full" ? 3 : o.mode === "quick" ? 2 : 1;
  const ncbi = await startNcbi();
  try {
    const body = await fetch(
      `${ncbi.baseUrl}/efetch.fcgi?db=pubmed&retmode=xml&id=${(ncbi.pmids[FETCH_TERM] ?? []).join(",")}`,
    ).then((r) => r.text());
    await parseFigures(out, "synthetic_200", "200 synthetic records", body, o.sizes.reps);
    const recorded = o.sharedDir ? recordedReply(o.sharedDir) : null;
    if (recorded)
      await parseFigures(out, "recorded_200", "200 recorded records", recorded, o.sizes.reps);

    const results = await repeat(runs, () => serverRun(ncbi, serverDir));
    const calls = [
      [
        "cite_fresh",
        "pubmed_cite 50 PMIDs × 6 styles, fresh process",
        (r: ServerRun) => r.citeFresh,
      ],
      ["cite_warm", "pubmed_cite 50 PMIDs × 6 styles, warm", (r: ServerRun) => r.citeWarm],
      ["fetch_200", "pubmed_fetch 200 cold PMIDs", (r: ServerRun) => r.fetch],
    ] as const;
    for (const [key, label, pick] of calls) {
      const series = results.map(pick);
      out.figures.push(
        figure(
          `live.${key}.loop_delay_p99_ms`,
          `event-loop delay p99, ${label}`,
          "ms",
          series.map((s) => s.p99),
        ),
        figure(
          `live.${key}.loop_delay_max_ms`,
          `event-loop delay max, ${label}`,
          "ms",
          series.map((s) => s.max),
        ),
        figure(
          `live.${key}.call_ms`,
          `call latency, ${label}`,
          "ms",
          series.map((s) => s.ms),
        ),
      );
    }
    out.notes.push(
      `Server: ${serverDir === REPO_DIR ? "this checkout" : serverDir}; ${runs} fresh process(es). Goals: delay max ≤ 100 ms, p99 ≤ 20 ms. Delay = monitorEventLoopDelay's interval less its 10 ms resolution.`,
    );
  } finally {
    ncbi.child.kill("SIGTERM");
  }
  return out;
}
