/**
 * The sync's batch pipeline: while batch k is written and indexed, the requests for the next
 * batches are in flight and, once a reply is in, its batch is prepared (parsed, chunked). The
 * corpus worker prepares in a thread of its own (prepare-thread.ts), so preparing overlaps the
 * writes on either store; everywhere NCBI's waits (300 ms or more a reply) hide behind the
 * current batch's writes.
 *
 * Guarantees: `store` is called in batch order, one call at a time, and `runBatches` resolves only
 * after the last `store` resolved — so a caller that moves a checkpoint after it never moves it
 * past an unstored batch. Requests leave in batch order as soon as they are at most `ahead`
 * batches past the one being stored, without waiting for each other's replies (the E-utilities
 * limiter keeps them within NCBI's rate); batches are prepared in order (bounded memory: at most
 * `ahead` + 1 replies held). The first failure (of a request, a preparation, a write, or the
 * caller's signal) aborts what is in flight, stops further stores, waits for the in-flight work
 * to settle, and is rethrown.
 */

export interface BatchPipeline<R, P> {
  /** How many batches there are. */
  batches: number;
  /** Starts batch `index`'s request; `signal` aborts when the caller's does or a stage fails. */
  fetch(index: number, signal: AbortSignal): Promise<R>;
  /** The CPU work on a reply, done while the previous batch is stored (here or in a thread). */
  prepare(reply: R, index: number): P | Promise<P>;
  /** Writes one prepared batch. */
  store(prepared: P, index: number): Promise<void>;
  signal?: AbortSignal;
  /** Batches requested beyond the one being stored (default 1). */
  ahead?: number;
}

export async function runBatches<R, P>(p: BatchPipeline<R, P>): Promise<void> {
  const ahead = Math.max(1, p.ahead ?? 1);
  const failed = new AbortController();
  const signal = p.signal ? AbortSignal.any([p.signal, failed.signal]) : failed.signal;
  const queued: Promise<P>[] = [];
  let prepared: Promise<unknown> = Promise.resolve();
  let started = 0;
  const start = (index: number): void => {
    const reply = p.fetch(index, signal);
    // A failed request stops the others at once, not when its turn to be prepared comes.
    reply.catch((err: unknown) => failed.abort(err));
    // Prepared in batch order: once its reply is in and the batch before it is prepared.
    const job = prepared.then(async () => {
      const r = await reply;
      signal.throwIfAborted();
      return p.prepare(r, index);
    });
    job.catch(() => undefined); // awaited below or settled on failure, never unhandled
    prepared = job;
    queued.push(job);
  };
  try {
    for (let index = 0; index < p.batches; index++) {
      while (started < p.batches && started <= index + ahead && !signal.aborted) start(started++);
      const batch = await (queued.shift() as Promise<P>);
      p.signal?.throwIfAborted();
      await p.store(batch, index);
    }
  } catch (err) {
    failed.abort(err);
    await Promise.allSettled(queued);
    throw err;
  }
}
