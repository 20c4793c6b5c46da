/**
 * §7b A fresh embedded store (issue 12): what opening PGlite on a new data directory costs the
 * process that does it — CPU, wall time and peak RSS, each open in a process of its own
 * (store-open-child.ts). Two ways, alternated: the first open on a machine (initdb, then the
 * template is saved) and every later one (from that template).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runChild } from "../lib/child.js";
import type { BenchOptions, Mode } from "../lib/options.js";
import { emptySection, figure, ratio, type SectionResult } from "../lib/stats.js";
import type { StoreOpenInput, StoreOpenOutput } from "./store-open-child.js";

const REPS: Record<Mode, number> = { full: 5, quick: 3, smoke: 1 };
const CHILD = "bench/sections/store-open-child.ts";

export async function storeOpenSection(opts: BenchOptions): Promise<SectionResult> {
  const out = emptySection("Fresh embedded store");
  const work = await mkdtemp(join(tmpdir(), "pmcp-bench-open-"));
  const open = async (templateDir: string, i: number) =>
    runChild<StoreOpenOutput>(
      CHILD,
      { dataDir: join(work, `data-${i}`), templateDir } satisfies StoreOpenInput,
      { timeoutMs: 300_000 },
    );
  try {
    const samples = { initdb: [] as StoreOpenOutput[], template: [] as StoreOpenOutput[] };
    const shared = join(work, "template");
    await open(shared, 0); // writes the template the "template" opens start from; untimed
    for (let rep = 0, i = 1; rep < REPS[opts.mode]; rep++) {
      // Each initdb open gets an empty template folder of its own: a first open on a machine.
      samples.initdb.push(await open(join(work, `empty-${rep}`), i++));
      samples.template.push(await open(shared, i++));
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
      `CPU and wall time from just before openStore (migrations included) to its return; peak RSS is the whole process's (Node and tsx included). ${REPS[opts.mode]} opens each way, alternated, after one untimed open that writes the template.`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return out;
}
