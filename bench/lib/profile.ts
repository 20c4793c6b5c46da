/**
 * Summarises V8 CPU profiles (node --cpu-prof) by self time: which functions the samples landed
 * in, grouped by function name and source location.
 *
 *   node --import tsx bench/lib/profile.ts <file.cpuprofile | dir> [top=25]
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  fn: string;
  where: string;
  ms: number;
  share: number;
}

function where(url: string, line: number): string {
  if (url === "") return "(native)";
  const short = url
    .replace(/^file:\/\//, "")
    .replace(/.*\/node_modules\//, "")
    .replace(/.*\/(src|bench)\//, "$1/");
  return `${short}:${line + 1}`;
}

/** Self time per function across one or more profiles, largest first. */
export function selfTimes(profiles: CpuProfile[]): SelfTime[] {
  const byKey = new Map<string, { fn: string; where: string; us: number }>();
  let total = 0;
  for (const p of profiles) {
    const nodes = new Map(p.nodes.map((n) => [n.id, n]));
    p.samples.forEach((id, i) => {
      const node = nodes.get(id);
      const dt = p.timeDeltas[i] ?? 0;
      if (!node) return;
      total += dt;
      const fn = node.callFrame.functionName || "(anonymous)";
      const at = where(node.callFrame.url, node.callFrame.lineNumber);
      const key = `${fn}@${at}`;
      const entry = byKey.get(key) ?? { fn, where: at, us: 0 };
      entry.us += dt;
      byKey.set(key, entry);
    });
  }
  return [...byKey.values()]
    .sort((a, b) => b.us - a.us)
    .map((e) => ({ fn: e.fn, where: e.where, ms: e.us / 1000, share: total ? e.us / total : 0 }));
}

/** Where self time went, by coarse owner: PGlite's WebAssembly, a package, a src/ folder, GC… */
export function byOwner(times: SelfTime[]): { owner: string; ms: number; share: number }[] {
  const owners = new Map<string, { ms: number; share: number }>();
  for (const t of times) {
    const owner = t.where.startsWith("wasm://")
      ? "PGlite (Postgres in WebAssembly)"
      : t.where === "(native)"
        ? t.fn
        : t.where.startsWith("node:")
          ? "Node.js internals"
          : /^(src|bench)\//.test(t.where)
            ? t.where.split("/").slice(0, 2).join("/")
            : (/^(@[^/]+\/[^/]+|[^/]+)/.exec(t.where)?.[1] ?? t.where);
    const o = owners.get(owner) ?? { ms: 0, share: 0 };
    o.ms += t.ms;
    o.share += t.share;
    owners.set(owner, o);
  }
  return [...owners.entries()].map(([owner, o]) => ({ owner, ...o })).sort((a, b) => b.ms - a.ms);
}

export function loadProfiles(path: string): CpuProfile[] {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (tsx's
        // loader thread only waits, and would bury the real work under its idle time).
        .filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f))
        .map((f) => join(path, f))
    : [path];
  return files.map((f) => JSON.parse(readFileSync(f, "utf8")) as CpuProfile);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [path, top = "25"] = process.argv.slice(2);
  if (!path) {
    process.stderr.write("usage: profile.ts <file.cpuprofile | dir> [top]\n");
    process.exit(2);
  }
  const times = selfTimes(loadProfiles(path));
  for (const s of times.slice(0, Number(top))) {
    process.stdout.write(
      `${(s.share * 100).toFixed(1).padStart(5)}%  ${s.ms.toFixed(0).padStart(7)} ms  ${s.fn}  ${s.where}\n`,
    );
  }
  process.stdout.write("\nby owner:\n");
  for (const o of byOwner(times).slice(0, 12)) {
    process.stdout.write(
      `${(o.share * 100).toFixed(1).padStart(5)}%  ${o.ms.toFixed(0).padStart(7)} ms  ${o.owner}\n`,
    );
  }
}
