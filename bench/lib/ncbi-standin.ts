/**
 * Starts the stand-in NCBI (ncbi-standin-child.ts) in its own process and reads back when requests
 * arrived there. Used by the rate-ceiling tests and the bench's `rate` section: the ceiling is
 * judged on the stand-in's clock, not on the clock of the process that sends.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { REPO_DIR } from "./child.js";

export interface StandIn {
  /** NCBI_EUTILS_BASE_URL for the servers under test. */
  baseUrl: string;
  /** Arrival times (ms, the stand-in's clock) of every E-utilities request since the last reset. */
  arrivals(): Promise<number[]>;
  /** TCP connections accepted since the last reset. */
  connections(): Promise<number>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const STARTUP_MS = 30_000;

export async function startStandIn(opts: { latencyMs?: number } = {}): Promise<StandIn> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(REPO_DIR, "bench", "lib", "ncbi-standin-child.ts"),
      JSON.stringify({ latencyMs: opts.latencyMs ?? 50 }),
    ],
    { cwd: REPO_DIR, stdio: ["pipe", "pipe", "inherit"] },
  );
  const port = await firstLine(child).then((line) => (JSON.parse(line) as { port: number }).port);
  const root = `http://127.0.0.1:${port}`;
  const stats = async () =>
    (await (await fetch(`${root}/__standin/arrivals`)).json()) as {
      arrivals: number[];
      connections: number;
    };
  return {
    baseUrl: `${root}/entrez/eutils`,
    arrivals: async () => (await stats()).arrivals,
    connections: async () => (await stats()).connections,
    reset: async () => void (await fetch(`${root}/__standin/reset`, { method: "POST" })),
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((res) => child.once("exit", res));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The first line a child writes to stdout, within `timeoutMs`; `what` names it in errors. */
export function firstLine(
  child: ChildProcess,
  what = "the NCBI stand-in",
  timeoutMs = STARTUP_MS,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${what} did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) => {
      clearTimeout(timer);
      lines.close();
      resolve(line);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with code ${code}`));
    });
  });
}

/** The most times inside any half-open window [t, t + ms). */
export function maxInWindow(times: readonly number[], ms = 1000): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < t.length; hi++) {
    while ((t[hi] ?? 0) - (t[lo] ?? 0) >= ms) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/**
 * How many distinct windows hold more than `ceiling` arrivals: each arrival that is the last of
 * more than `ceiling` inside [arrival − ms, arrival] counts once.
 */
export function windowsOver(times: readonly number[], ceiling: number, ms = 1000): number {
  const t = [...times].sort((a, b) => a - b);
  let over = 0;
  let lo = 0;
  for (let hi = 0; hi < t.length; hi++) {
    while ((t[hi] ?? 0) - (t[lo] ?? 0) >= ms) lo++;
    if (hi - lo + 1 > ceiling) over++;
  }
  return over;
}

/** The smallest gap between an arrival and the one `ceiling` places later (ms); Infinity if none. */
export function tightestSpan(times: readonly number[], ceiling: number): number {
  const t = [...times].sort((a, b) => a - b);
  let min = Infinity;
  for (let i = 0; i + ceiling < t.length; i++)
    min = Math.min(min, (t[i + ceiling] ?? 0) - (t[i] ?? 0));
  return min;
}
