/**
 * Runs a benchmark stage in a child process of its own, so its peak RSS and its CPU profile are
 * its own. The child prints one JSON object as its last stdout line; the parent kills it after
 * `timeoutMs`. With BENCH_CPU_PROF_DIR set (run.ts --profile) the child writes a CPU profile there.
 * A TypeScript script runs under tsx; with `plain`, a JavaScript one runs under plain node.
 */
import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

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
