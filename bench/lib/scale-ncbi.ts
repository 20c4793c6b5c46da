/**
 * Starts the `scale` section's synthetic NCBI (./scale-ncbi-child.ts) and drives its changes. The
 * child renders every record before it answers: minutes at 1,000,000 records, bounded here.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_DIR } from "./child.js";
import { firstLine } from "./ncbi-standin.js";
import type { ScaleNcbiSpec } from "./scale-ncbi-child.js";
import { registerCleanup } from "./stores.js";

export interface ScaleNcbi {
  baseUrl: string;
  /** Wall time from spawn to listening (generation and rendering), ms. */
  renderMs: number;
  /** Revises `revise` records and adds `late` arrivals; the revised PMIDs, those with a new abstract. */
  change(revise: number, late: number): Promise<{ revised: string[]; rewritten: string[] }>;
  /** Adds `count` records of another term; their PMIDs and the newest three's titles. */
  add(term: string, count: number): Promise<{ pmids: string[]; titles: string[] }>;
  close(): Promise<void>;
}

/** ~150 µs a record rendered and written on this machine's cores; generous. */
const startupMs = (records: number) => 60_000 + records * 2;

export async function startScaleNcbi(spec: Omit<ScaleNcbiSpec, "dir">): Promise<ScaleNcbi> {
  const dir = await mkdtemp(join(tmpdir(), "pmcp-bench-scale-"));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      "--max-old-space-size=8192",
      "--import",
      "tsx",
      join(REPO_DIR, "bench", "lib", "scale-ncbi-child.ts"),
      JSON.stringify({ ...spec, dir }),
    ],
    { cwd: REPO_DIR, stdio: ["pipe", "pipe", "inherit"] },
  );
  const close = registerCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((res) => child.once("exit", res));
      child.kill("SIGTERM");
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  });
  const first = await firstLine(child, "the scale NCBI stand-in", startupMs(spec.records)).catch(
    async (err: unknown) => {
      await close();
      throw err;
    },
  );
  const { baseUrl } = JSON.parse(first) as { baseUrl: string };
  const root = baseUrl.replace(/\/entrez\/eutils$/, "");
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${root}${path}`, { method: "POST", body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    baseUrl,
    renderMs: performance.now() - started,
    change: (revise, late) => post("/__scale/change", { revise, late }),
    add: (term, count) => post("/__scale/add", { term, count }),
    close,
  };
}
