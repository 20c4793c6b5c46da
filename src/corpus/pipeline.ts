/**
 * The sync's batch pipeline: while batch k is written and indexed, the requests for the next
 * batches are in flight and, once a reply is in, its batch is prepared (parsed, chunked). The
 * corpus worker prepares in a thread of its own (prepare-thread.ts), so preparing overlaps the
 * writes on either store; everywhere NCBI's waits hide behind the current batch's work.
 *
 * How far ahead requests go adapts to NCBI: at least `ahead` batches beyond the next one to be
 * prepared (counted from at most one past the one being stored), and as many more (up to
 * `maxAhead`) as the replies' measured wait covers at the pipeline's pace — one batch's
 * preparation or store, whichever is longer. A server answering at once keeps the minimum (few
 * replies held, little memory); one taking seconds a reply gets enough requests in flight that
 * the preparation never waits for it.
 *
 * Guarantees: `store` is called in batch order, one call at a time, and `runBatches` resolves only
 * after the last `store` resolved — so a caller that moves a checkpoint after it never moves it
 * past an unstored batch. Requests leave in batch order, without waiting for each other's replies
 * (the E-utilities limiter keeps them within NCBI's rate); batches are handed to `prepare` in
 * order, each as soon as its reply is in (bounded memory: at most `maxAhead` + 2 batches held).
 * The first failure (of a request, a preparation, a write, or the caller's signal) aborts what is
 * in flight, stops further stores, waits for the in-flight work to settle, and is rethrown.
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
  /** Batches requested beyond the next one to be prepared, at least (default 1). */
  ahead?: number;
  /** At most (default `ahead`: a fixed look-ahead). */
  maxAhead?: number;
  /** Milliseconds, for the measured waits and pace (default performance.now). */
  now?: () => number;
}

/**
 * The pace assumed from the first reply until the first batch is prepared: about a 500-record
 * batch's preparation on a 2-core machine. It only sets how many requests follow the first
 * reply at once; the measured pace takes over one preparation later.
 */
const FIRST_PACE_MS = 250;

export async function runBatches<R, P>(p: BatchPipeline<R, P>): Promise<void> {
  const minAhead = Math.max(1, p.ahead ?? 1);
  const maxAhead = Math.max(minAhead, p.maxAhead ?? minAhead);
  const now = p.now ?? (() => performance.now());
  const failed = new AbortController();
  const signal = p.signal ? AbortSignal.any([p.signal, failed.signal]) : failed.signal;
  const queued: Promise<P>[] = [];
  /** Settles once the last started batch has been handed to `prepare` (rejects if it failed). */
  let handed: Promise<unknown> = Promise.resolve();
  let started = 0;
  /** The batch being stored (or awaited for its store). */
  let current = 0;
  /** How many batches are prepared (in order, so also the index of the next one to finish). */
  let prepared = 0;
  /** When the last preparation finished: a batch handed over earlier waited for it. */
  let lastPrepared = 0;
  // Moving averages of a reply's wait (from the request's start: the limiter's queue included),
  // of a preparation and of a store; 0 until the first is seen.
  const avg = { wait: 0, prepare: 0, store: 0 };
  const record = (what: keyof typeof avg, ms: number): void => {
    avg[what] = avg[what] === 0 ? ms : (avg[what] + ms) / 2;
  };
  /** Enough batches ahead that a request sent now is answered before its batch's turn. */
  const ahead = (): number => {
    if (avg.wait === 0) return minAhead;
    const pace = Math.max(avg.prepare, avg.store) || FIRST_PACE_MS;
    return Math.min(maxAhead, Math.max(minAhead, Math.ceil(avg.wait / pace) + 1));
  };

  const start = (index: number): void => {
    const sent = now();
    const reply = p.fetch(index, signal);
    reply.then(
      () => {
        record("wait", now() - sent);
        fill();
      },
      // A failed request stops the others at once, not when its turn to be prepared comes.
      (err: unknown) => failed.abort(err),
    );
    // Handed over in batch order, once its reply is in and the batch before it is handed over
    // (not prepared): a preparing thread queues the batches and goes from one to the next
    // without waiting for this thread to take each result (bench: its event loop may be busy
    // with a write for tens of milliseconds).
    const handing = handed.then(async () => {
      const r = await reply;
      signal.throwIfAborted();
      return { began: now(), batch: p.prepare(r, index) };
    });
    // A failure goes down the chain: no later batch waits for its reply once one has failed.
    handed = handing;
    const job = handing.then(async ({ began, batch }) => {
      const result = await batch;
      const done = now();
      // The pace is a preparation's own time, not the wait behind the batch before it.
      record("prepare", done - Math.max(began, lastPrepared));
      lastPrepared = done;
      prepared++;
      fill();
      return result;
    });
    job.catch(() => undefined); // awaited below or settled on failure, never unhandled
    queued.push(job);
  };
  /**
   * Requests follow the preparation, which consumes the replies: `ahead()` batches beyond the
   * first one not prepared yet, but never counted from further than one batch past the one being
   * stored, so prepared batches do not pile up (nor replies) when the writes are the slower stage.
   */
  function fill(): void {
    const from = Math.min(prepared, current + 1);
    while (started < p.batches && started <= from + ahead() && !signal.aborted) {
      start(started++);
    }
  }

  try {
    for (let index = 0; index < p.batches; index++) {
      current = index;
      fill();
      const batch = await (queued.shift() as Promise<P>);
      p.signal?.throwIfAborted();
      const began = now();
      await p.store(batch, index);
      record("store", now() - began);
    }
  } catch (err) {
    failed.abort(err);
    await Promise.allSettled(queued);
    throw err;
  }
}
