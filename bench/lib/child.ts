/**
 * Runs a benchmark stage in a child process of its own, so its peak RSS and its CPU profile are
 * its own. The child prints one JSON object as its last stdout line; the parent kills it after
 * `timeoutMs`. With BENCH_CPU_PROF_DIR set (run.ts --profile) the child writes a CPU profile there.
 * A TypeScript script runs under tsx; with `plain`, a JavaScript one runs under plain node.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { SynthCorpusOptions } from "../../src/devtools/synth.js";

export const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Sampling every 5 ms keeps hour-long runs' profiles small and their overhead negligible. */
export const PROFILE_FLAGS = ["--cpu-prof", "--cpu-prof-interval=5000"];

export async function runChild<T>(
  script: string,
  input: unknown,
  opts: { timeoutMs: number; profileName?: string; plain?: boolean },
): Promise<T> {
  const profDir = process.env.BENCH_CPU_PROF_DIR;
  const prof =
    profDir && opts.profileName
      ? [...PROFILE_FLAGS, `--cpu-prof-dir=${join(profDir, opts.profileName)}`]
      : [];
  const child = spawn(
    process.execPath,
    [
      ...prof,
      ...(opts.plain ? [] : ["--expose-gc", "--import", "tsx"]),
      join(REPO_DIR, script),
      JSON.stringify(input),
    ],
    {
      cwd: REPO_DIR,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LOG_LEVEL: "error" },
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
  const code = await new Promise<number | null>((res) => child.on("close", (c) => res(c)));
  clearTimeout(timer);
  const last = stdout.trim().split("\n").pop() ?? "";
  if (code !== 0 || !last.startsWith("{")) {
    const why = code === null ? `killed after ${opts.timeoutMs} ms` : `exit code ${code}`;
    throw new Error(
      `${script} failed (${why}): ${stderr.trim().split("\n").slice(-5).join(" | ")}`,
    );
  }
  return JSON.parse(last) as T;
}

/** A free TCP port on loopback, for a server a bench starts. */
export async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((res) => srv.listen(0, "127.0.0.1", res));
  const { port } = srv.address() as AddressInfo;
  await new Promise((res) => srv.close(res));
  return port;
}

/** The synthetic NCBI in its own process (./synth-child.ts): its URL and each term's first PMIDs. */
export interface SynthNcbi {
  baseUrl: string;
  pmids: Record<string, string[]>;
  child: ChildProcess;
}

export async function startSynthNcbi(spec: SynthCorpusOptions): Promise<SynthNcbi> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(REPO_DIR, "bench", "lib", "synth-child.ts"), JSON.stringify(spec)],
    { cwd: REPO_DIR, stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`synthetic NCBI exited with code ${code}`)));
  });
  lines.close();
  return { ...(JSON.parse(first) as Omit<SynthNcbi, "child">), child };
}
