/**
 * The corpus worker thread: owns the stores (stores.ts) and runs the
 * operations of ops.ts for the MCP thread, which only routes calls (client.ts). Everything
 * that costs CPU — the WASM store's open, sync's parsing and indexing, search — happens here.
 *
 * Start-up data: the frozen Config (workerData). NCBI requests go back to the MCP thread's
 * client (remote-eutils.ts). A "close" aborts the running calls, closes the stores (releasing
 * the embedded store's directory lock) and ends the thread.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Config } from "../config.js";
import type { EutilsClient } from "../ncbi/client.js";
import { log, setLogLevel } from "../log.js";
import { BACKGROUND_NICE, lowerThisThreadPriority } from "../threads.js";
import { runOp, type OpContext } from "./ops.js";
import { toWire, type FromWorker, type ToWorker } from "./protocol.js";
import { RemoteEutils } from "./remote-eutils.js";
import { CorpusStores } from "./stores.js";

const port = parentPort;
if (!port) throw new Error("src/worker/entry.ts runs as a worker thread only");
lowerThisThreadPriority(BACKGROUND_NICE);

const post = (msg: FromWorker) => port.postMessage(msg);
const eutils = new RemoteEutils(port);
const config = workerData as Config;
setLogLevel(config.logLevel);
// Two cores: searches score BM25 in a thread of their own while this one reads the store, and a
// sync prepares the next EFetch reply in another while this one writes the last.
const stores = new CorpusStores(config, { lexicalThread: true, prepareThread: true });

const running = new Map<number, { controller: AbortController; done: Promise<unknown> }>();

/** Tells the MCP thread once per attempt whether the stores opened (for /readyz). */
let watched: Promise<unknown> | undefined;
function watchOpen(): void {
  const attempt = stores.open();
  if (attempt === watched) return;
  watched = attempt;
  attempt.then(
    () => post({ type: "opened" }),
    (err: unknown) => post({ type: "open-failed", error: toWire(err) }),
  );
}

function call(id: number, op: string, args: unknown[]): void {
  const controller = new AbortController();
  const ctx: Omit<OpContext, "corpus"> = {
    signal: controller.signal,
    progress: (done, total, message) => post({ type: "progress", id, done, total, message }),
    eutils: eutils.forCall(id) as unknown as EutilsClient,
  };
  watchOpen();
  const done = runOp(op, args, ctx, stores)
    .then(
      (value) => post({ type: "result", id, value }),
      (err: unknown) => post({ type: "error", id, error: toWire(err) }),
    )
    .finally(() => running.delete(id));
  running.set(id, { controller, done });
}

async function close(): Promise<void> {
  for (const r of running.values()) r.controller.abort();
  await Promise.allSettled([...running.values()].map((r) => r.done));
  await stores.close().catch((err: unknown) => log.warn("closing the corpus failed", { err }));
  process.exit(0);
}

port.on("message", (msg: ToWorker) => {
  switch (msg.type) {
    case "call":
      return call(msg.id, msg.op, msg.args);
    case "cancel":
      return running.get(msg.id)?.controller.abort();
    case "open":
      return watchOpen();
    case "close":
      return void close();
    case "eutils-reply":
      return eutils.settle(msg.id, msg);
  }
});
