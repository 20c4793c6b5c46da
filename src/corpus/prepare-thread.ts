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
import type { Worker } from "node:worker_threads";
import { log } from "../log.js";
import { startThread } from "../threads.js";
import { inlinePreparer, type BatchPreparer } from "./batch.js";
import type { EFetchBody, PreparedBatch } from "./prepare.js";

/** A body as bytes is posted in shared memory (inSharedMemory), not as a copy. */
export type ToPrepareThread = { id: number; body: EFetchBody; now: number };
export type FromPrepareThread =
  { id: number; ok: true; batch: PreparedBatch } | { id: number; ok: false; message: string };

/**
 * Idle this long, the thread ends. A sync sends its batches seconds apart at most (an NCBI round
 * trip each). A thread kept after a sync held its memory for nothing: 30 MB once started and
 * warmed up, 100–108 MB after preparing 6,000 records (its process's RSS less the same process's
 * after the thread ended; built server code, two runs). Starting one costs the next sync about
 * 0.4 s of CPU on the other core (the start and the warm-up of ./prepare-worker.ts).
 */
export const PREPARE_IDLE_MS = 30_000;

interface Pending {
  body: EFetchBody;
  now: Date;
  resolve: (batch: PreparedBatch) => void;
  reject: (err: unknown) => void;
}

export class PrepareThread implements BatchPreparer {
  #worker: Worker | undefined;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  #closed = false;
  #answered = 0;
  #idle: NodeJS.Timeout | undefined;

  /** `idleMs`: how long the thread may be idle before it ends (PREPARE_IDLE_MS). */
  constructor(private readonly idleMs = PREPARE_IDLE_MS) {}

  /** Batches the thread itself prepared (the rest, if any, fell back to the calling thread). */
  get answered(): number {
    return this.#answered;
  }

  /** Whether a thread is started (it ends when idle, and starts again on the next batch). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Starts the thread (a sync calls it first, so the thread's start overlaps its searches). */
  warm(): void {
    if (this.#closed) return;
    this.#worker ??= this.#start();
    this.#idleLater();
  }

  prepare(body: EFetchBody, now: Date): Promise<PreparedBatch> {
    if (this.#closed) return this.#inline(body, now);
    clearTimeout(this.#idle);
    const id = this.#next++;
    const shared = typeof body === "string" ? body : inSharedMemory(body);
    return new Promise<PreparedBatch>((resolve, reject) => {
      this.#pending.set(id, { body: shared, now, resolve, reject });
      const msg: ToPrepareThread = { id, body: shared, now: now.getTime() };
      (this.#worker ?? this.#start()).postMessage(msg);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idle);
    const worker = this.#worker;
    this.#worker = undefined;
    this.#fallBack();
    await worker?.terminate();
  }

  /** Ends the thread the way a crash would (tests of the fallback). */
  async crashForTests(): Promise<void> {
    await this.#worker?.terminate();
  }

  #start(): Worker {
    const worker = startThread("prepare-worker", import.meta.url);
    worker.on("message", (msg: FromPrepareThread) => this.#receive(msg));
    worker.on("error", (err) => log.warn("sync prepare thread failed", { error: err.message }));
    worker.once("exit", () => {
      if (this.#worker !== worker) return; // closed or replaced
      this.#worker = undefined;
      this.#fallBack();
    });
    this.#worker = worker;
    return worker;
  }

  #receive(msg: FromPrepareThread): void {
    const p = this.#pending.get(msg.id);
    if (!p) return;
    this.#pending.delete(msg.id);
    if (msg.ok) {
      this.#answered++;
      p.resolve(msg.batch);
    } else this.#inline(p.body, p.now).then(p.resolve, p.reject);
    this.#idleLater();
  }

  /** Ends the thread after idleMs unless a batch comes first (prepare clears the timer). */
  #idleLater(): void {
    clearTimeout(this.#idle);
    if (this.#pending.size > 0 || !this.#worker) return;
    this.#idle = setTimeout(() => {
      const worker = this.#worker;
      if (this.#pending.size > 0 || !worker) return;
      this.#worker = undefined; // not a crash: its exit is not reported
      void worker.terminate();
    }, this.idleMs);
    this.#idle.unref();
  }

  /** Batches the thread will not answer: prepared here instead. */
  #fallBack(): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) this.#inline(p.body, p.now).then(p.resolve, p.reject);
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
