/**
 * `npm run bench` — the performance report (bench/README.md explains every figure).
 *
 *   npm run bench                        full run (about an hour on 2 cores)
 *   npm run bench -- --quick             a subset in about two minutes
 *   npm run bench -- --smoke             tiny sizes, one repetition: checks the report's shape
 *   npm run bench -- --only sync,search  some sections only
 *   npm run bench -- --quality <folder>  retrieval quality of any BEIR-layout folder; last line JSON
 *   npm run bench -- --profile [...]     also CPU-profile the run and its child processes
 *   npm run bench -- --out <file>        write the JSON report there (default bench/results/latest.json)
 */
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, release, totalmem, type } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { setLogLevel } from "../src/log.js";
import { REPO_DIR } from "./lib/child.js";
import { SIZES, sharedDir, type BenchOptions, type Mode } from "./lib/options.js";
import { loadProfiles, selfTimes } from "./lib/profile.js";
import { emptySection, type SectionResult } from "./lib/stats.js";
import { cleanupAll, probePostgres } from "./lib/stores.js";
import { markdownTable, type Report } from "./lib/table.js";
import { mcpSection } from "./sections/mcp.js";
import { parseSection } from "./sections/parse.js";
import { qualitySection } from "./sections/quality.js";
import { searchSection } from "./sections/search.js";
import { syncSection } from "./sections/sync.js";

const SECTIONS = {
  parse: parseSection,
  sync: syncSection,
  search: searchSection,
  mcp: mcpSection,
  quality: async (o: BenchOptions) => (await qualitySection(o)).section,
} satisfies Record<string, (o: BenchOptions) => Promise<SectionResult>>;
type SectionName = keyof typeof SECTIONS;

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    smoke: { type: "boolean", default: false },
    only: { type: "string" },
    quality: { type: "string" },
    profile: { type: "boolean", default: false },
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

/** --profile: rerun this command under --cpu-prof (children inherit the directory), then summarise. */
async function profiled(): Promise<number> {
  const dir = join(
    REPO_DIR,
    "bench",
    "results",
    "profiles",
    new Date().toISOString().replace(/[:.]/g, "-"),
  );
  const argv = process.argv.slice(2).filter((a) => a !== "--profile");
  const child = spawn(
    process.execPath,
    [
      "--cpu-prof",
      `--cpu-prof-dir=${join(dir, "main")}`,
      "--expose-gc",
      "--import",
      "tsx",
      join(REPO_DIR, "bench", "run.ts"),
      ...argv,
    ],
    { stdio: "inherit", env: { ...process.env, BENCH_CPU_PROF_DIR: dir } },
  );
  const code = await new Promise<number>((res) => child.on("close", (c) => res(c ?? 1)));
  for (const name of readdirSync(dir)) {
    const lines = selfTimes(loadProfiles(join(dir, name)))
      .slice(0, 15)
      .map((s) => `${(s.share * 100).toFixed(1).padStart(5)}%  ${s.fn}  ${s.where}`);
    writeFileSync(join(dir, name, "summary.txt"), `${lines.join("\n")}\n`);
    say(`\nprofile ${name} (self time, main thread):\n${lines.join("\n")}`);
  }
  say(`\nprofiles in ${dir}`);
  return code;
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
  if (args.profile && !process.env.BENCH_CPU_PROF_DIR) return profiled();
  const mode: Mode = args.smoke ? "smoke" : args.quick ? "quick" : "full";
  const opts: BenchOptions = { mode, sizes: SIZES[mode], sharedDir: sharedDir() };

  if (args.quality) {
    const { section, line } = await qualitySection(opts, resolve(args.quality));
    if (!line) throw new Error(section.skipped ?? "no scores");
    process.stdout.write(
      `${markdownTable(await report(mode, { quality: section }, new Date()))}\n`,
    );
    process.stdout.write(`${JSON.stringify(line)}\n`);
    return 0;
  }

  const names = (args.only?.split(",").map((s) => s.trim()) ??
    Object.keys(SECTIONS)) as SectionName[];
  const unknown = names.filter((n) => !(n in SECTIONS));
  if (unknown.length > 0)
    throw new Error(
      `unknown section(s) ${unknown.join(", ")}; known: ${Object.keys(SECTIONS).join(", ")}`,
    );
  const started = new Date();
  const sections: Record<string, SectionResult> = {};
  for (const name of names) {
    const t = performance.now();
    say(`bench: ${name} (${mode})…`);
    try {
      sections[name] = await SECTIONS[name](opts);
    } catch (err) {
      sections[name] = {
        ...emptySection(name),
        error: err instanceof Error ? err.message : String(err),
      };
      say(`bench: ${name} failed: ${sections[name].error}`);
    }
    say(`bench: ${name} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    globalThis.gc?.();
  }
  const full = await report(mode, sections, started);
  const out = resolve(args.out ?? join(REPO_DIR, "bench", "results", "latest.json"));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(full, null, 2)}\n`);
  process.stdout.write(`${markdownTable(full)}\n`);
  say(`bench: report written to ${out}`);
  return Object.values(sections).some((s) => s.error) ? 1 : 0;
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
