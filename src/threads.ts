/**
 * Worker threads beside the module that starts them. Sources run as .ts under tsx and jest (dev,
 * tests), as .js from dist/ in production; a .ts thread needs tsx's loader too. A process run
 * with --cpu-prof (`npm run bench -- --profile`) profiles its threads as well. The corpus threads
 * lower their own priority (lowerThisThreadPriority), and a thread inherits its creator's.
 */
import { readlinkSync, stat } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { Worker } from "node:worker_threads";
import type { ErrorClasses, ErrorCode } from "./errors.js";

/**
 * The young generation of every thread this module starts, in MB: V8's default lets it grow to 48
 * (two 16 MB semi-spaces and as much again), which a thread that allocates much (parsing EFetch
 * replies, building citation engines) reaches and keeps. 12 (4 MB semi-spaces) took the built
 * server, after a 50 × 6 citation, a store, a sync and 1,000 of the edges bench's generated calls
 * (bench/JOURNAL.md §14), from 671 to 592 MB, and cost no measurable CPU (preparing ten 500-record
 * replies in the prepare thread: 1.56 s against 1.72 s; 200 citations in six styles: 2.46 s
 * against 2.45 s; medians of 5 and 4). The main thread keeps V8's default (only a command-line
 * flag sets it). Old generations are not capped: the lexical index and the store's results grow
 * with the corpus, and a thread past its cap dies instead of collecting.
 */
export const THREAD_YOUNG_GENERATION_MB = 12;

/**
 * Starts the thread `name` (a module beside `from`, the caller's import.meta.url). The thread's
 * stdout goes to stderr: the process's stdout may be the MCP stream (stdio). Here that is done by
 * piping it; a thread its owner unreferences while idle (`unref`) does it itself instead, calling
 * stdoutToStderr first: Node references a captured stdout's port once it is read, and
 * Worker.unref() leaves that port alone, so the idle thread would keep the process alive.
 */
export function startThread(
  name: string,
  from: string,
  workerData?: unknown,
  opts: { unref?: boolean } = {},
): Worker {
  const dev = from.endsWith(".ts");
  const worker = new Worker(new URL(`./${name}.${dev ? "ts" : "js"}`, from), {
    workerData,
    execArgv: [
      ...(dev ? ["--import", "tsx"] : []),
      ...process.execArgv.filter((a) => a.startsWith("--cpu-prof")),
    ],
    stdout: !opts.unref,
    resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
  });
  if (!opts.unref) worker.stdout.pipe(process.stderr);
  return worker;
}

/** In a thread started with `unref`: what it writes to stdout goes to stderr (see startThread). */
export function stdoutToStderr(): void {
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
}

/**
 * The nice value of the corpus worker and the sync's prepare thread, and so of the BM25 thread the
 * worker starts: when the cores are busy, the MCP thread gets about nine times a corpus thread's
 * share (Linux's weights for nice 0 and 10), so it answers calls and keeps live tools' deadlines
 * while a sync and searches run.
 */
export const BACKGROUND_NICE = 10;

/**
 * Lowers the calling thread's scheduling priority (raises its nice value) where the system allows
 * a single thread's to be set: Linux, whose setpriority() takes a thread id, found through
 * /proc/thread-self. Background threads call it so that, when the cores are busy, the MCP thread
 * runs first. libuv's thread pool (file, DNS and zlib calls of every thread) is started first if
 * no thread has yet: its threads would inherit this thread's priority. Elsewhere, or if the system
 * refuses, it does nothing and says so: the thread then runs at the process's priority, as before.
 */
export function lowerThisThreadPriority(nice: number): boolean {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    // Any request to the pool starts it (once per process) before this call returns.
    stat(".", () => undefined);
    setPriority(tid, Math.max(getPriority(tid), nice));
    return true;
  } catch {
    return false;
  }
}

/**
 * An error as it crosses between threads (../net/channel.ts): structured clone keeps an Error's
 * message but not its class, so an AppError goes as its name, code and details, and comes back
 * as the same class; the envelope code a tool returns is the one the thread threw. A cause goes
 * as its message.
 */
export interface WireError {
  name: string;
  message: string;
  code?: ErrorCode;
  details?: Record<string, unknown> | null;
  stack?: string;
  cause?: string;
}

/**
 * Anything thrown, ready to post. An AppError is known by its shape (a string code, details), so
 * a thread need not load ./errors.ts and the logger behind it (some 80 ms and 12 MB a thread).
 */
export function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: "Error", message: String(err) };
  const app = err as Error & { code?: unknown; details?: Record<string, unknown> | null };
  return {
    name: err.name,
    message: err.message,
    ...(typeof app.code === "string" && "details" in app
      ? { code: app.code as ErrorCode, details: app.details }
      : {}),
    ...(err.stack ? { stack: err.stack } : {}),
    ...(err.cause instanceof Error ? { cause: err.cause.message } : {}),
  };
}

/**
 * The error `wire` describes: an AppError of its own class (by name, else by code), or a plain
 * Error keeping its name (AbortError and TimeoutError stay recognisable) and stack.
 */
export function fromWire(wire: WireError, classes: ErrorClasses): Error {
  const Class =
    classes.byName.get(wire.name) ?? (wire.code ? classes.byCode.get(wire.code) : undefined);
  const options = wire.cause === undefined ? undefined : { cause: new Error(wire.cause) };
  if (Class) return new Class(wire.message, wire.details ?? null, options);
  const err = new Error(wire.message, options);
  err.name = wire.name;
  if (wire.stack) err.stack = wire.stack;
  return err;
}
