/**
 * The sync's batch pipeline: while batch k is written and indexed, the request for batch k+1 is
 * in flight and, once its reply is in, batch k+1 is prepared (parsed, chunked). On a server
 * PostgreSQL the writes run in the server process, so preparing overlaps them; everywhere the
 * next reply's wait (300 ms from NCBI) hides behind the current batch's writes.
 *
 * Guarantees: `store` is called in batch order, one call at a time, and `runBatches` resolves only
 * after the last `store` resolved — so a caller that moves a checkpoint after it never moves it
 * past an unstored batch. Requests go one at a time, in order, at most `ahead` batches past the
 * one being stored (bounded memory). The first failure (of a request, a preparation, a write, or
 * the caller's signal) aborts what is in flight, stops further stores, waits for the in-flight
 * work to settle, and is rethrown.
 */

export interface BatchPipeline<R, P> {
  /** How many batches there are. */
  batches: number;
  /** Starts batch `index`'s request; `signal` aborts when the caller's does or a stage fails. */
  fetch(index: number, signal: AbortSignal): Promise<R>;
  /** The CPU work on a reply, done while the previous batch is stored. */
  prepare(reply: R, index: number): P;
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
  let previous: Promise<unknown> = Promise.resolve();
  let started = 0;
  const start = (index: number): void => {
    // Chained on the previous batch: requests stay sequential, and a failure stops the rest.
    const job = previous.then(async () => {
      signal.throwIfAborted();
      const reply = await p.fetch(index, signal);
      signal.throwIfAborted();
      return p.prepare(reply, index);
    });
    job.catch(() => undefined); // awaited below or settled on failure, never unhandled
    previous = job;
    queued.push(job);
  };
  try {
    for (let index = 0; index < p.batches; index++) {
      while (started < p.batches && started <= index + ahead) start(started++);
      const prepared = await (queued.shift() as Promise<P>);
      p.signal?.throwIfAborted();
      await p.store(prepared, index);
    }
  } catch (err) {
    failed.abort(err);
    await Promise.allSettled(queued);
    throw err;
  }
}
