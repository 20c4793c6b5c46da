/**
 * The sync's prepare thread (prepare-thread.ts starts it): prepares each EFetch reply it is sent
 * and posts the batch back. An error goes back as a message; the caller prepares that batch again
 * itself, so the error reaches the sync with its own class.
 *
 * Until the first reply comes it warms up: it prepares made-up records (./warm-up.ts) a few at a
 * time, so V8 has compiled the preparation when the real batches arrive (a thread starts with the
 * first sync, two NCBI round trips before its first reply). A step takes milliseconds and the
 * warm-up stops at the first message, so a reply never waits behind more than one step.
 */
import { parentChannel } from "../net/thread-channel.js";
import { BACKGROUND_NICE, lowerThisThreadPriority } from "../threads.js";
import type { PrepareApi } from "./prepare-thread.js";
import { prepareBatch } from "./prepare.js";
import { warmUpReply } from "./warm-up.js";

/** Made-up records per warm-up step, and steps at most (about 0.35 s on a 2-core machine). */
const WARM_UP_RECORDS = 20;
const WARM_UP_STEPS = 60;

const owner = parentChannel("src/corpus/prepare-worker.ts");
lowerThisThreadPriority(BACKGROUND_NICE);

let asked = false;
let steps = 0;
const sample = warmUpReply(WARM_UP_RECORDS);
const warmUp = (): void => {
  if (asked || steps++ >= WARM_UP_STEPS) return;
  prepareBatch(sample, new Date());
  setImmediate(warmUp);
};
setImmediate(warmUp);

const api: PrepareApi = {
  prepare({ body, now }) {
    asked = true;
    return prepareBatch(body, new Date(now));
  },
};
owner.serve(api);
