/**
 * A sync's CPU work on each EFetch reply — parsing, documents, content hashes, chunks, BM25
 * tokens — in a thread of its own, so the corpus worker only writes: while it stores batch k, this
 * thread prepares batch k + 1 on the other core (the pipeline in ./pipeline.ts overlaps the two).
 *
 * An accelerator only: a batch this thread cannot prepare (it reported an error, or died) is
 * prepared again on the calling thread, which gives the same batch or throws the same error with
 * its own class (a malformed reply's UpstreamError, NCBI's EntrezError). A dead thread is
 * replaced on the next batch.
 *
 * The thread ends once it has been idle PREPARE_IDLE_MS (the sync is over) and starts again with
 * the next sync: between syncs it would only hold memory.
 */
import { ERROR_CLASSES } from "../errors.js";
import { log } from "../log.js";
import { ThreadChannel } from "../net/thread-channel.js";
import { startThread } from "../threads.js";
import { inlinePreparer, type BatchPreparer } from "./batch.js";
import type { EFetchBody, PreparedBatch } from "./prepare.js";

/** What the thread answers (../net/channel.ts). */
export type PrepareApi = {
  /** A body as bytes is posted in shared memory (inSharedMemory), not as a copy. */
  prepare(job: { body: EFetchBody; now: number }): PreparedBatch;
};

/**
 * Idle this long, the thread ends. A sync sends its batches seconds apart at most (an NCBI round
 * trip each). A thread kept after a sync held its memory for nothing: 30 MB once started and
 * warmed up, 100–108 MB after preparing 6,000 records (its process's RSS less the same process's
 * after the thread ended; built server code, two runs). Starting one costs the next sync about
 * 0.4 s of CPU on the other core (the start and the warm-up of ./prepare-worker.ts).
 */
export const PREPARE_IDLE_MS = 30_000;

export class PrepareThread implements BatchPreparer {
  readonly #channel: ThreadChannel<PrepareApi>;
  #closed = false;
  #answered = 0;

  /** `idleMs`: how long the thread may be idle before it ends (PREPARE_IDLE_MS). */
  constructor(idleMs = PREPARE_IDLE_MS) {
    this.#channel = new ThreadChannel<PrepareApi>({
      start: () => startThread("prepare-worker", import.meta.url),
      errors: ERROR_CLASSES,
      // Whatever the thread does not answer is prepared here (prepare below).
      stopped: () => new Error("The sync's prepare thread ended."),
      failed: (err) => log.warn("sync prepare thread failed", { error: err.message }),
      idle: { ms: idleMs },
    });
  }

  /** Batches the thread itself prepared (the rest, if any, fell back to the calling thread). */
  get answered(): number {
    return this.#answered;
  }

  /** Whether a thread is started (it ends when idle, and starts again on the next batch). */
  get running(): boolean {
    return this.#channel.running;
  }

  /** Starts the thread (a sync calls it first, so the thread's start overlaps its searches). */
  warm(): void {
    if (!this.#closed) this.#channel.warm();
  }

  /** The thread's batch; one it failed, or did not answer (it died, or was closed), is made here. */
  prepare(body: EFetchBody, now: Date): Promise<PreparedBatch> {
    if (this.#closed) return this.#inline(body, now);
    const shared = typeof body === "string" ? body : inSharedMemory(body);
    return this.#channel.request("prepare", { body: shared, now: now.getTime() }).then(
      (batch) => {
        this.#answered++;
        return batch;
      },
      () => this.#inline(shared, now),
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#channel.close();
  }

  /** Ends the thread the way a crash would (tests of the fallback). */
  crashForTests(): Promise<void> {
    return this.#channel.terminate();
  }

  #inline(body: EFetchBody, now: Date): Promise<PreparedBatch> {
    return inlinePreparer.prepare(body, now);
  }
}

/**
 * The bytes in a SharedArrayBuffer: posted, they are shared rather than copied, so both threads
 * read the same memory (the thread to prepare them, this one for the fallback). A sync's replies
 * are there already (PoliteClient.requestBytes); other bytes are copied once, where a structured
 * clone would copy them on both threads.
 */
function inSharedMemory(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer) return bytes;
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared.set(bytes);
  return shared;
}
