/**
 * Worker threads beside the module that starts them. Sources run as .ts under tsx and jest (dev,
 * tests), as .js from dist/ in production; a .ts thread needs tsx's loader too. A process run
 * with --cpu-prof (`npm run bench -- --profile`) profiles its threads as well.
 */
import { Worker } from "node:worker_threads";

/** Starts the thread `name` (a module beside `from`, the caller's import.meta.url). */
export function startThread(name: string, from: string, workerData?: unknown): Worker {
  const dev = from.endsWith(".ts");
  const worker = new Worker(new URL(`./${name}.${dev ? "ts" : "js"}`, from), {
    workerData,
    execArgv: [
      ...(dev ? ["--import", "tsx"] : []),
      ...process.execArgv.filter((a) => a.startsWith("--cpu-prof")),
    ],
    // The thread's stdout goes to stderr: the process's stdout may be the MCP stream (stdio).
    stdout: true,
  });
  worker.stdout.pipe(process.stderr);
  return worker;
}
