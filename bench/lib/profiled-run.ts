/**
 * `--profile`: runs each section in its own `node --cpu-prof` process (child processes such as
 * the sync runs write their own profiles next to it, through BENCH_CPU_PROF_DIR), merges the
 * sections' reports into one, and writes a self-time summary per process.
 */
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROFILE_FLAGS, REPO_DIR } from "./child.js";
import { byOwner, loadProfiles, selfTimes } from "./profile.js";
import type { Report } from "./table.js";

export function summarise(dir: string): string[] {
  const times = selfTimes(loadProfiles(dir));
  const pct = (share: number) => `${(share * 100).toFixed(1).padStart(5)}%`;
  return [
    ...times.slice(0, 15).map((s) => `${pct(s.share)}  ${s.fn}  ${s.where}`),
    "by owner:",
    ...byOwner(times)
      .slice(0, 8)
      .map((o) => `${pct(o.share)}  ${o.owner}`),
  ];
}

/** Returns the merged report (undefined if no section produced one) and the profile directory. */
export async function profiledRun(
  sections: string[],
  args: string[],
  say: (text: string) => void,
): Promise<{ report: Report | undefined; dir: string; failed: boolean }> {
  const dir = join(
    REPO_DIR,
    "bench",
    "results",
    "profiles",
    new Date().toISOString().replace(/[:.]/g, "-"),
  );
  let report: Report | undefined;
  let failed = false;
  for (const section of sections) {
    const out = join(dir, `${section}.json`);
    const child = spawn(
      process.execPath,
      [
        ...PROFILE_FLAGS,
        `--cpu-prof-dir=${join(dir, section)}`,
        "--expose-gc",
        "--import",
        "tsx",
        join(REPO_DIR, "bench", "run.ts"),
        ...args,
        "--only",
        section,
        "--out",
        out,
      ],
      { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, BENCH_CPU_PROF_DIR: dir } },
    );
    const code = await new Promise<number | null>((res) => child.on("close", res));
    failed ||= code !== 0;
    try {
      const part = JSON.parse(readFileSync(out, "utf8")) as Report;
      if (!report) report = part;
      else {
        Object.assign(report.sections, part.sections);
        report.durationS += part.durationS;
      }
    } catch {
      failed = true;
      say(`bench: ${section} wrote no report (exit code ${code})`);
    }
  }
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    if (!name.isDirectory()) continue;
    const lines = summarise(join(dir, name.name));
    writeFileSync(join(dir, name.name, "summary.txt"), `${lines.join("\n")}\n`);
    say(`\nprofile ${name.name} (self time, main thread):\n${lines.join("\n")}`);
  }
  say(`\nprofiles in ${dir}`);
  return { report, dir, failed };
}
