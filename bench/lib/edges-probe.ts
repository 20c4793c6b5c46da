/**
 * Preloaded into the server under test by the edges section (`node --import tsx --import
 * bench/lib/edges-probe.ts src/main.ts`), so the server process reports its own event-loop delay
 * and memory without any hook in the server. It talks on fd 3 (a socket the parent opened; stdin
 * and stdout stay the MCP channel, untouched), one JSON line per command and per answer:
 *
 *   {"cmd":"sample","reset":true,"gc":false}  → loop delay since the last reset, memory
 *   {"cmd":"snapshot","path":"/tmp/x.heapsnapshot"} → V8 heap snapshots of the main thread
 *     (that path) and of each worker thread it started (the path with the thread's name added)
 *
 * Event-loop delay as bench/sections/loop.ts measures it: monitorEventLoopDelay at a 10 ms
 * resolution, the delay being the timer's interval less that resolution. `gc` (the server started
 * with --expose-gc) collects the main thread fully first: retained memory apart from garbage. It
 * stalls the loop: take it last. Worker threads are not collected: the only way another thread
 * can make one collect is a heap snapshot, whose bytes come through the main thread and inflate
 * its RSS and external memory by about the snapshot's size (a 110 MB heap: some 600 MB of RSS and
 * 175 MB external), which would be read as the server's own. `snapshot` does take them.
 * Without fd 3 (a plain start) the probe does nothing.
 */
import { createWriteStream, fstatSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { Socket } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from "node:v8";
import threads from "node:worker_threads";

const RESOLUTION_MS = 10;
const MB = 1024 * 1024;

function hasFd3(): boolean {
  try {
    return fstatSync(3).isSocket();
  } catch {
    return false;
  }
}

export interface ProbeSample {
  /** Event-loop delay since the last reset (ms): p99 and max, and the histogram's sample count. */
  delayP99Ms: number;
  delayMaxMs: number;
  delaySamples: number;
  /** process.memoryUsage() in MB. */
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  /** V8 heap spaces with more than 1 MB used, in MB. */
  spaces: Record<string, number>;
  mallocedMb: number;
  /** Active handles and requests the process holds (sockets, timers), by type. */
  resources: Record<string, number>;
  /** The worker threads the main thread started and that still run, with their heaps (MB). */
  workers: { name: string; heapUsedMb: number; physicalMb: number; externalMb: number }[];
}

/**
 * Every worker thread the main thread starts, so their heaps can be read: Worker replaced by a
 * subclass that registers itself (ESM imports of node:worker_threads see it through
 * syncBuiltinESMExports). Threads that workers start are not seen; their memory is in RSS only.
 */
const workers = new Map<threads.Worker, string>();
function trackWorkers(): void {
  const Original = threads.Worker;
  class Tracked extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      super(...args);
      const name = String(args[0]).split("/").pop() ?? "worker";
      workers.set(this, name);
      this.once("exit", () => workers.delete(this));
    }
  }
  threads.Worker = Tracked;
  syncBuiltinESMExports();
}

/** Each worker's heap; with `snapshotTo`, after a heap snapshot (a full GC) written there. */
async function workerHeaps(snapshotTo?: (name: string) => string): Promise<ProbeSample["workers"]> {
  return Promise.all(
    [...workers].map(async ([worker, name]) => {
      if (snapshotTo) {
        await pipeline(await worker.getHeapSnapshot(), createWriteStream(snapshotTo(name)));
      }
      const h = await worker.getHeapStatistics();
      return {
        name,
        heapUsedMb: h.used_heap_size / MB,
        physicalMb: h.total_physical_size / MB,
        externalMb: h.external_memory / MB,
      };
    }),
  );
}

/** The histogram's readings are taken first (in ns), so a reset can follow at once. */
async function sample(
  delays: { p99: number; max: number; n: number },
  collect: boolean,
): Promise<ProbeSample> {
  if (collect) globalThis.gc?.();
  const workerStats = await workerHeaps().catch(() => []);
  const delay = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  const mem = process.memoryUsage();
  const spaces: Record<string, number> = {};
  for (const s of getHeapSpaceStatistics()) {
    if (s.space_used_size > MB) spaces[s.space_name] = s.space_used_size / MB;
  }
  const resources: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) resources[r] = (resources[r] ?? 0) + 1;
  return {
    delayP99Ms: delays.n > 0 ? delay(delays.p99) : 0,
    delayMaxMs: delays.n > 0 ? delay(delays.max) : 0,
    delaySamples: delays.n,
    rssMb: mem.rss / MB,
    heapUsedMb: mem.heapUsed / MB,
    heapTotalMb: mem.heapTotal / MB,
    externalMb: mem.external / MB,
    arrayBuffersMb: mem.arrayBuffers / MB,
    spaces,
    mallocedMb: getHeapStatistics().malloced_memory / MB,
    resources,
    workers: workerStats,
  };
}

if (hasFd3()) {
  trackWorkers();
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const channel = new Socket({ fd: 3, readable: true, writable: true });
  // The probe must not keep a server alive whose stdin has ended.
  channel.unref();
  channel.on("error", () => undefined);
  const reply = (value: unknown) => channel.write(`${JSON.stringify(value)}\n`);
  createInterface({ input: channel }).on("line", (line) => {
    let command: { cmd?: string; reset?: boolean; gc?: boolean; path?: string };
    try {
      command = JSON.parse(line) as typeof command;
    } catch {
      reply({ error: "not JSON" });
      return;
    }
    if (command.cmd === "sample") {
      const delays = { p99: histogram.percentile(99), max: histogram.max, n: histogram.count };
      if (command.reset) histogram.reset();
      void sample(delays, command.gc === true).then(reply);
    } else if (command.cmd === "snapshot" && command.path) {
      const path = command.path;
      const main = writeHeapSnapshot(path);
      void workerHeaps((name) => path.replace(/(\.heapsnapshot)?$/, `-${name}.heapsnapshot`)).then(
        () => reply({ path: main }),
        (err: Error) => reply({ path: main, error: err.message }),
      );
    } else {
      reply({ error: `unknown command ${String(command.cmd)}` });
    }
  });
}
