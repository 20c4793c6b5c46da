/**
 * `npm run bench` — the performance report (bench/README.md explains every figure).
 *
 *   npm run bench                        full run (about an hour on 2 cores)
 *   npm run bench -- --quick             a subset in about two minutes
 *   npm run bench -- --smoke             tiny sizes, one repetition: checks the report's shape
 *   npm run bench -- --only sync,search  some sections only
 *   npm run bench -- --only scale        the corpus at 1,000,000 records on PostgreSQL (only when named)
 *   npm run bench -- --quality <folder>  retrieval quality of any BEIR-layout folder; last line JSON
 *   npm run bench -- --screening <folder> [--seeds N]  screening through the review tools, per
 *                                        topic CSV, beside the baseline (3 seeds; --quick 1, 2 topics)
 *   npm run bench -- --profile [...]     also CPU-profile the run and its child processes
 *   npm run bench -- --out <file>        write the JSON report there (default bench/results/latest.json)
 *   npm run bench -- --records N / --chunks N   one sync size / one search size (e.g. to profile)
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, release, totalmem, type } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { setLogLevel } from "../src/log.js";
import { REPO_DIR } from "./lib/child.js";
import { SIZES, sharedDir, type BenchOptions, type Mode, type Sizes } from "./lib/options.js";
import { profiledRun } from "./lib/profiled-run.js";
import { emptySection, type SectionResult } from "./lib/stats.js";
import { cleanupAll, probePostgres } from "./lib/stores.js";
import { markdownTable, type Report } from "./lib/table.js";
import { edgesSection } from "./sections/edges.js";
import { faultsSection } from "./sections/faults.js";
import { lexicalSection } from "./sections/lexical.js";
import { liveSection } from "./sections/live.js";
import { loopSection } from "./sections/loop.js";
import { mcpSection } from "./sections/mcp.js";
import { parseSection } from "./sections/parse.js";
import { qualitySection } from "./sections/quality.js";
import { rateSection } from "./sections/rate.js";
import { scaleSection } from "./sections/scale.js";
import { referencesSection } from "./sections/references.js";
import { screeningSection } from "./sections/screening.js";
import { searchSection } from "./sections/search.js";
import { startupSection } from "./sections/startup.js";
import { storeOpenSection } from "./sections/store-open.js";
import { syncSection } from "./sections/sync.js";

const SECTIONS = {
  parse: parseSection,
  sync: syncSection,
  search: searchSection,
  lexical: lexicalSection,
  mcp: mcpSection,
  quality: async (o: BenchOptions) => (await qualitySection(o)).section,
  faults: faultsSection,
  startup: startupSection,
  open: storeOpenSection,
  rate: rateSection,
  loop: loopSection,
  live: liveSection,
  references: referencesSection,
  edges: edgesSection,
  scale: scaleSection,
} satisfies Record<string, (o: BenchOptions) => Promise<SectionResult>>;
type SectionName = keyof typeof SECTIONS;
/** Sections that take minutes whatever the size: by default in full mode only (or ask with --only). */
const FULL_ONLY = new Set<string>(["rate"]);
/** Sections that run only when named with --only (scale: the better part of an hour at 1,000,000). */
const NAMED_ONLY = new Set<string>(["scale"]);

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    smoke: { type: "boolean", default: false },
    only: { type: "string" },
    quality: { type: "string" },
    screening: { type: "string" },
    seeds: { type: "string" },
    profile: { type: "boolean", default: false },
    records: { type: "string" },
    chunks: { type: "string" },
    out: { type: "string" },
  },
});

setLogLevel(process.env.LOG_LEVEL ?? "error");
const say = (text: string) => process.stderr.write(`${text}\n`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    say(`bench: ${signal}, dropping benchmark databases…`);
    void cleanupAll().finally(() => process.exit(130));
  });
}

function count(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new Error(`expected a positive count, got "${v}"`);
  return Number(v);
}

/** The mode's sizes, with one sync size (--records) or search size (--chunks) instead if given. */
function sizesFor(mode: Mode): Sizes {
  const base = SIZES[mode];
  const records = count(args.records);
  const chunks = count(args.chunks);
  return {
    ...base,
    ...(records ? { sync: [{ records, reps: 1 }], scale: { ...base.scale, records } } : {}),
    ...(chunks ? { search: { ...base.search, chunks: [chunks], reps: 1 } } : {}),
  };
}

function machine(postgres: string | null): Report["machine"] {
  return {
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cores: cpus().length,
    memoryGb: totalmem() / 1024 ** 3,
    os: `${type()} ${release()}`,
    node: process.versions.node,
    postgres,
  };
}

function gitCommit(): string | null {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO_DIR })
      .toString()
      .trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain"], { cwd: REPO_DIR }).toString().trim() !== "";
    return dirty ? `${head}+changes` : head;
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const mode: Mode = args.smoke ? "smoke" : args.quick ? "quick" : "full";
  const opts: BenchOptions = { mode, sizes: sizesFor(mode), sharedDir: sharedDir() };

  if (args.quality) {
    const { section, line } = await qualitySection(opts, resolve(args.quality));
    if (!line) throw new Error(section.skipped ?? "no scores");
    process.stdout.write(
      `${markdownTable(await report(mode, { quality: section }, new Date()))}\n`,
    );
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return 0;
  }

  if (args.screening) {
    const seeds = count(args.seeds);
    const started = new Date();
    const { section, table } = await screeningSection(opts, {
      folder: resolve(args.screening),
      ...(seeds ? { seeds } : {}),
    });
    const full = await report(mode, { screening: section }, started);
    const out = resolve(args.out ?? join(REPO_DIR, "bench", "results", "latest.json"));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(full, null, 2)}\n`);
    process.stdout.write(`${markdownTable(full)}\n\n${table}\n`);
    say(`bench: report written to ${out}`);
    return 0;
  }

  const names = (args.only?.split(",").map((s) => s.trim()) ??
    Object.keys(SECTIONS).filter(
      (n) => !NAMED_ONLY.has(n) && (mode === "full" || !FULL_ONLY.has(n)),
    )) as SectionName[];
  const unknown = names.filter((n) => !(n in SECTIONS));
  if (unknown.length > 0)
    throw new Error(
      `unknown section(s) ${unknown.join(", ")}; known: ${Object.keys(SECTIONS).join(", ")}`,
    );
  const full = args.profile ? await profiled(names) : await runSections(names, opts);
  if (!full) return 1;
  const out = resolve(args.out ?? join(REPO_DIR, "bench", "results", "latest.json"));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(full, null, 2)}\n`);
  process.stdout.write(`${markdownTable(full)}\n`);
  say(`bench: report written to ${out}`);
  return Object.values(full.sections).some((s) => s.error) ? 1 : 0;
}

async function runSections(names: SectionName[], opts: BenchOptions): Promise<Report> {
  const started = new Date();
  const sections: Record<string, SectionResult> = {};
  for (const name of names) {
    const t = performance.now();
    say(`bench: ${name} (${opts.mode})…`);
    try {
      sections[name] = await SECTIONS[name](opts);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      sections[name] = { ...emptySection(name), error };
      say(`bench: ${name} failed: ${error}`);
    }
    say(`bench: ${name} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    globalThis.gc?.();
  }
  return report(opts.mode, sections, started);
}

/** --profile: each section in its own profiled process, same sizes; one merged report. */
async function profiled(names: SectionName[]): Promise<Report | undefined> {
  const pass = [
    ...(args.smoke ? ["--smoke"] : []),
    ...(args.quick ? ["--quick"] : []),
    ...(args.records ? ["--records", args.records] : []),
    ...(args.chunks ? ["--chunks", args.chunks] : []),
  ];
  const { report: merged, failed } = await profiledRun(names, pass, say);
  if (merged && failed && !Object.values(merged.sections).some((s) => s.error)) {
    say("bench: a profiled section failed; see above");
    return undefined;
  }
  return merged;
}

async function report(
  mode: Mode,
  sections: Record<string, SectionResult>,
  startedAt: Date,
): Promise<Report> {
  const pg = await probePostgres();
  return {
    version: 1,
    startedAt: startedAt.toISOString(),
    durationS: (Date.now() - startedAt.getTime()) / 1000,
    mode,
    machine: machine("version" in pg ? pg.version : null),
    git: gitCommit(),
    sections,
  };
}

main()
  .then(async (code) => {
    await cleanupAll();
    process.exit(code);
  })
  .catch(async (err: unknown) => {
    say(`bench: ${err instanceof Error ? err.message : String(err)}`);
    await cleanupAll();
    process.exit(1);
  });
