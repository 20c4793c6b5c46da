/**
 * §7b A fresh embedded store (issue 12): what opening PGlite on a new data directory costs the
 * process that does it — CPU, wall time and peak RSS, each open in a process of its own
 * (store-open-child.mjs) on the working tree compiled as `npm run build` compiles it, run by plain
 * `node` as a user's server runs: under tsx, its loader's hooks on every module the open imports
 * added about a fifth to the CPU. Two ways, alternated: the first open on a machine (initdb, then
 * the template is saved) and every later one (from that template).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildWorkingTree } from "../lib/builds.js";
import { runChild } from "../lib/child.js";
import type { BenchOptions, Mode } from "../lib/options.js";
import { emptySection, figure, ratio, type SectionResult } from "../lib/stats.js";

const REPS: Record<Mode, number> = { full: 5, quick: 3, smoke: 1 };
const CHILD = "bench/sections/store-open-child.mjs";

interface StoreOpenOutput {
  cpuMs: number;
  wallMs: number;
  peakRssMb: number;
}

export async function storeOpenSection(opts: BenchOptions): Promise<SectionResult> {
  const out = emptySection("Fresh embedded store");
  const work = await mkdtemp(join(tmpdir(), "pmcp-bench-open-"));
  const open = async (storeModule: string, templateDir: string, i: number) =>
    runChild<StoreOpenOutput>(
      CHILD,
      { storeModule, dataDir: join(work, `data-${i}`), templateDir },
      { timeoutMs: 300_000, plain: true },
    );
  try {
    const storeModule = join(dirname(buildWorkingTree(join(work, "build"))), "store", "db.js");
    const samples = { initdb: [] as StoreOpenOutput[], template: [] as StoreOpenOutput[] };
    const shared = join(work, "template");
    await open(storeModule, shared, 0); // writes the template the "template" opens start from; untimed
    for (let rep = 0, i = 1; rep < REPS[opts.mode]; rep++) {
      // Each initdb open gets an empty template folder of its own: a first open on a machine.
      samples.initdb.push(await open(storeModule, join(work, `empty-${rep}`), i++));
      samples.template.push(await open(storeModule, shared, i++));
    }
    for (const [key, label] of [
      ["initdb", "first open on a machine (initdb, template saved)"],
      ["template", "later opens (from the template)"],
    ] as const) {
      const s = samples[key];
      out.figures.push(
        figure(
          `open.${key}.cpu_ms`,
          `new PGlite store, ${label}: CPU`,
          "ms",
          s.map((x) => x.cpuMs),
        ),
        figure(
          `open.${key}.wall_ms`,
          `new PGlite store, ${label}: wall time`,
          "ms",
          s.map((x) => x.wallMs),
        ),
        figure(
          `open.${key}.peak_rss_mb`,
          `new PGlite store, ${label}: peak RSS of the process`,
          "MB",
          s.map((x) => x.peakRssMb),
        ),
      );
    }
    out.ratios.push(
      ratio(
        "open.initdb_vs_template.cpu",
        "new PGlite store: CPU, initdb vs template",
        "initdb open CPU ÷ template open CPU, same repetition",
        samples.initdb.map((x) => x.cpuMs),
        samples.template.map((x) => x.cpuMs),
      ),
    );
    out.notes.push(
      `The working tree compiled (tsc, as npm run build), each open run by plain node with no TypeScript loader. CPU and wall time from just before openStore (migrations included) to its return; peak RSS is the whole process's. ${REPS[opts.mode]} opens each way, alternated, after one untimed open that writes the template.`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return out;
}
