/**
 * The corpus worker thread: owns the stores (stores.ts) and runs the
 * operations of ops.ts for the MCP thread, which only routes calls (client.ts). Everything
 * that costs CPU — the WASM store's open, sync's parsing and indexing, search — happens here.
 *
 * Start-up data: the frozen Config (workerData). NCBI requests go back to the MCP thread's
 * client (remote-eutils.ts), over the channel to it (./protocol.ts). A "close" aborts the running
 * calls, closes the stores (releasing the embedded store's directory lock) and ends the thread.
 */
import { workerData } from "node:worker_threads";
import type { Config } from "../config.js";
import { ERROR_CLASSES } from "../errors.js";
import { log, setLogLevel } from "../log.js";
import { parentChannel } from "../net/thread-channel.js";
import { BACKGROUND_NICE, lowerThisThreadPriority, toWire } from "../threads.js";
import { runOp } from "./ops.js";
import type { OwnerApi, WorkerApi } from "./protocol.js";
import { RemoteEutils } from "./remote-eutils.js";
import { CorpusStores } from "./stores.js";

const owner = parentChannel<OwnerApi>("src/worker/entry.ts", ERROR_CLASSES);
lowerThisThreadPriority(BACKGROUND_NICE);

const eutils = new RemoteEutils(owner);
const config = workerData as Config;
setLogLevel(config.logLevel);
// Two cores: searches score BM25 in a thread of their own while this one reads the store, and a
// sync prepares the next EFetch reply in another while this one writes the last.
const stores = new CorpusStores(config, { lexicalThread: true, prepareThread: true });

/** Tells the MCP thread once per attempt whether the stores opened (for /readyz). */
let watched: Promise<unknown> | undefined;
function watchOpen(): void {
  const attempt = stores.open();
  if (attempt === watched) return;
  watched = attempt;
  attempt.then(
    () => owner.notify("opened"),
    (err: unknown) => owner.notify("openFailed", toWire(err)),
  );
}

async function close(): Promise<void> {
  await owner.drain();
  await stores.close().catch((err: unknown) => log.warn("closing the corpus failed", { err }));
  process.exit(0);
}

const api: WorkerApi = {
  call({ op, args }, served) {
    const ctx = {
      signal: served.signal,
      progress: (done: number, total: number, message: string) =>
        served.progress({ done, total, message }),
      eutils: eutils.forCall(served.id),
    };
    watchOpen();
    return runOp(op, args, ctx, stores);
  },
  open: () => watchOpen(),
  close: () => void close(),
};

owner.serve(api);
