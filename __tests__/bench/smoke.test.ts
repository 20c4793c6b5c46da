/**
 * Keeps `npm run bench` from rotting: the benchmark suite runs at smoke sizes (tiny inputs, one
 * repetition) through the npm script's own command line, and its report must keep the shape
 * bench/README.md documents. `--quality` must print its one-line JSON on any BEIR-layout folder.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Figure } from "../../bench/lib/stats.js";
import type { Report } from "../../bench/lib/table.js";
import { HAS_SHARED, REPO_DIR } from "../helpers/shared.js";

/** Process groups of bench runs still going; afterAll ends them (a test that timed out). */
const running = new Set<number>();

/** The `bench` script's command line from package.json, run with this Node. */
function bench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const pkg = JSON.parse(readFileSync(join(REPO_DIR, "package.json"), "utf8")) as {
    scripts: { bench: string };
  };
  const [, ...nodeArgs] = pkg.scripts.bench.split(/\s+/);
  // A group of its own: the bench starts children (stores, stand-ins, servers) that must end
  // with it. Without, a run that outlived its test kept going at full CPU after jest moved on.
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd: REPO_DIR,
    env: { ...process.env, LOG_LEVEL: "error" },
    detached: true,
  });
  const group = child.pid!;
  running.add(group);
  child.once("exit", () => running.delete(group));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

function expectFigure(f: Figure): void {
  expect(typeof f.key).toBe("string");
  expect(Number.isFinite(f.median)).toBe(true);
  expect(f.min).toBeLessThanOrEqual(f.median);
  expect(f.median).toBeLessThanOrEqual(f.max);
  expect(f.n).toBeGreaterThanOrEqual(1);
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "pmcp-bench-smoke-"));
});
afterAll(() => {
  for (const group of running) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // already gone
    }
  }
  rmSync(work, { recursive: true, force: true });
});

describe("npm run bench", () => {
  it("runs every section at smoke size and writes a report of the documented shape", async () => {
    const out = join(work, "report.json");
    const run = await bench(["--quick", "--smoke", "--out", out]);
    expect({ code: run.code, stderr: run.code === 0 ? "" : run.stderr }).toEqual({
      code: 0,
      stderr: "",
    });
    expect(run.stdout).toContain("| section | figure | median | min – max | n |");
    const report = JSON.parse(readFileSync(out, "utf8")) as Report;
    expect(report.mode).toBe("smoke");
    expect(report.machine.cores).toBeGreaterThan(0);
    expect(Object.keys(report.sections)).toEqual([
      "parse",
      "sync",
      "search",
      "lexical",
      "mcp",
      "quality",
      "faults",
      "startup",
      "open",
      "loop",
      "live",
      "references",
      "edges",
    ]);
    const keys: string[] = [];
    for (const [name, s] of Object.entries(report.sections)) {
      expect({ name, error: s.error }).toEqual({ name, error: undefined });
      // No BEIR set and no recorded PubMed records without ../shared.
      if ((name === "quality" || name === "references") && !HAS_SHARED) continue;
      expect(s.figures.length).toBeGreaterThan(0);
      expect(s.ratios.length).toBeGreaterThan(0);
      for (const f of [...s.figures, ...s.ratios]) expectFigure(f);
      for (const r of s.ratios) expect(r.definition).not.toBe("");
      keys.push(...s.figures.map((f) => f.key), ...s.ratios.map((r) => r.key));
    }
    for (const key of [
      "parse.synthetic.ours.mb_per_s",
      "parse.synthetic.normalisation_cost",
      "sync.pglite.100.records_per_s",
      "sync.pglite.100.requests_per_1000",
      "sync.pglite.100.peak_rss_mb",
      "sync.ncbi.100.efficiency",
      "sync.ncbi.100.cpu_s",
      "search.300.single.p99_ms",
      "search.300.concurrent.p50_ms",
      "search.300.dense.hnsw_vs_memory",
      "mcp.http.initialize_ms",
      "mcp.stdio.idle_rss_mb",
      "mcp.http_vs_memory",
      "faults.hang.overrun_ms",
      "faults.429_retry_after_3600_s.time_to_error_ms",
      "startup.current.initialize_ms",
      "startup.current.cpu_ms",
      "startup.current.idle_rss_mb",
      "startup.current_vs_bare.initialize",
      "startup.current_cold_vs_bare.cpu",
      "startup.current.first_corpus_call_ms",
      "startup.current.first_corpus_call_cpu_ms",
      "open.template.cpu_ms",
      "open.initdb.peak_rss_mb",
      "lexical.300.server.concurrency_scaling",
      "loop.idle.loop_delay_p99_ms",
      "edges.unknown",
      "edges.invalid_over_bound",
      "edges.loop_delay_max_ms",
      "edges.rss_peak_mb",
      "edges.stdio.sessions_alive",
      "edges.rss_end_vs_start",
      "live.cite_fresh.loop_delay_max_ms",
      "live.fetch_200.loop_delay_max_ms",
      "live.parse.synthetic_200.xml2js_vs_fast",
      ...(HAS_SHARED
        ? ["references.all.requests_per_reference", "references.all.vs_rate_floor"]
        : []),
    ]) {
      expect(keys).toContain(key);
    }
  }, 600_000); // about 3 minutes alone; a loaded machine takes longer

  it("--only scale runs the scale section (named only) at smoke size on PostgreSQL", async () => {
    const out = join(work, "scale.json");
    const run = await bench(["--only", "scale", "--smoke", "--out", out]);
    expect({ code: run.code, stderr: run.code === 0 ? "" : run.stderr }).toEqual({
      code: 0,
      stderr: "",
    });
    const report = JSON.parse(readFileSync(out, "utf8")) as Report;
    expect(Object.keys(report.sections)).toEqual(["scale"]);
    const scale = report.sections.scale!;
    expect(scale.error).toBeUndefined();
    if (scale.skipped) return; // no PostgreSQL here: said so, nothing measured
    for (const f of [...scale.figures, ...scale.ratios]) expectFigure(f);
    const keys = scale.figures.map((f) => f.key);
    for (const key of [
      "scale.sync.records_per_s",
      "scale.db.after_sync.database_mb",
      "scale.search.concurrent.p99_ms",
      "scale.rss.peak_mb",
      "scale.resync.records_per_s",
      "scale.replica.first_answer_s",
      "scale.peer.lag_ms",
    ]) {
      expect(keys).toContain(key);
    }
    expect(scale.ratios.map((r) => r.key)).toEqual(["scale.sync.trend"]);
  }, 300_000);

  it("--quality evaluates any BEIR-layout folder and ends with the scores as one JSON line", async () => {
    const dir = join(work, "tiny-beir");
    mkdirSync(join(dir, "qrels"), { recursive: true });
    const docs = [
      "Aspirin reduces the risk of myocardial infarction in adults.",
      "Vitamin D supplementation and bone fractures in older women.",
      "Statin therapy lowers LDL cholesterol and cardiovascular events.",
      "Sleep deprivation impairs memory consolidation.",
      "Green tea catechins act as antioxidants.",
      "Regular exercise improves insulin sensitivity.",
    ];
    const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n");
    writeFileSync(
      join(dir, "corpus.jsonl"),
      jsonl(docs.map((text, i) => ({ _id: `d${i + 1}`, title: "", text }))),
    );
    const queries = [
      { _id: "q1", text: "aspirin myocardial infarction", doc: "d1" },
      { _id: "q2", text: "statin cholesterol", doc: "d3" },
      { _id: "q3", text: "exercise insulin sensitivity", doc: "d6" },
    ];
    writeFileSync(
      join(dir, "queries.jsonl"),
      jsonl(queries.map(({ _id, text }) => ({ _id, text }))),
    );
    writeFileSync(
      join(dir, "qrels", "test.tsv"),
      ["query-id\tcorpus-id\tscore", ...queries.map((q) => `${q._id}\t${q.doc}\t2`)].join("\n"),
    );
    const run = await bench(["--quality", dir]);
    expect({ code: run.code, stderr: run.code === 0 ? "" : run.stderr }).toEqual({
      code: 0,
      stderr: "",
    });
    const last = run.stdout.trim().split("\n").pop() ?? "";
    const scores = JSON.parse(last) as Record<string, Record<string, number>>;
    expect(Object.keys(scores)).toEqual(["ndcg10", "recall100"]);
    for (const metric of Object.values(scores)) {
      expect(Object.keys(metric)).toEqual(["lexical", "dense", "hybrid"]);
      for (const v of Object.values(metric)) expect(v).toBeGreaterThanOrEqual(0);
    }
    // Each query names exactly its one relevant document, so BM25 must rank it first.
    expect(scores.ndcg10?.lexical).toBeCloseTo(1, 6);
    expect(scores.recall100?.hybrid).toBeCloseTo(1, 6);
  }, 60_000);
});
