/**
 * The sync's prepare thread (prepare-thread.ts starts it): prepares each EFetch reply it is sent
 * and posts the batch back. An error goes back as a message; the caller prepares that batch again
 * itself, so the error reaches the sync with its own class.
 */
import { parentPort } from "node:worker_threads";
import { BACKGROUND_NICE, lowerThisThreadPriority } from "../threads.js";
import { prepareBatch } from "./prepare.js";
import type { FromPrepareThread, ToPrepareThread } from "./prepare-thread.js";

const port = parentPort;
if (!port) throw new Error("src/corpus/prepare-worker.ts runs as a worker thread only");
lowerThisThreadPriority(BACKGROUND_NICE);

port.on("message", ({ id, body, now }: ToPrepareThread) => {
  let reply: FromPrepareThread;
  try {
    reply = { id, ok: true, batch: prepareBatch(body, new Date(now)) };
  } catch (err) {
    reply = { id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
