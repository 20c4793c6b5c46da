/**
 * The sync's batch pipeline on its own: stores in order and one at a time, the next requests in
 * flight together and preparation overlapping the current store, each batch handed to `prepare`
 * as soon as its reply is in, a bounded look-ahead that follows the preparation and grows with the
 * replies' measured wait, and a failure or abort anywhere stopping every later store (so a
 * checkpoint moved after runBatches never passes a lost batch).
 */
import { describe, expect, it } from "@jest/globals";
import { runBatches } from "../../src/corpus/pipeline.js";

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every queued promise callback run. */
const settle = () => new Promise((r) => setImmediate(r));

/**
 * A pipeline whose every request and store waits until the test releases it (and, with
 * `slowPrepare`, every preparation too); `clock.t` is the time its measured waits and pace read.
 */
function harness(batches: number, ahead?: number, maxAhead?: number, slowPrepare = false) {
  const clock = { t: 0 };
  const events: string[] = [];
  const replies = Array.from({ length: batches }, () => deferred<string>());
  const stores = Array.from({ length: batches }, () => deferred<void>());
  const preparations = Array.from({ length: batches }, () => deferred<void>());
  const signals: AbortSignal[] = [];
  const controller = new AbortController();
  const run = runBatches({
    batches,
    ahead,
    maxAhead,
    now: () => clock.t,
    signal: controller.signal,
    fetch: (i, signal) => {
      events.push(`fetch ${i}`);
      signals.push(signal);
      const reply = replies[i];
      if (!reply) return Promise.reject(new Error("no such batch"));
      // As EutilsClient's requests do, an aborted request rejects with the signal's reason.
      signal.addEventListener("abort", () => reply.reject(signal.reason), { once: true });
      return reply.promise;
    },
    prepare: (reply, i) => {
      events.push(`prepare ${i}`);
      if (!slowPrepare) return reply.toUpperCase();
      return preparations[i]?.promise.then(() => reply.toUpperCase()) ?? reply;
    },
    store: (prepared, i) => {
      events.push(`store ${i} ${prepared}`);
      return stores[i]?.promise ?? Promise.reject(new Error("no such batch"));
    },
  });
  run.catch(() => undefined);
  /** The requests made so far, in order. */
  const fetched = () => events.filter((e) => e.startsWith("fetch"));
  return { events, fetched, replies, stores, preparations, signals, controller, run, clock };
}

describe("runBatches", () => {
  it("prepares the next batch while the current one is stored, in order, one store at a time", async () => {
    const h = harness(3);
    await settle();
    // Batch 1's request leaves with batch 0's, without waiting for its reply (one batch ahead).
    expect(h.events).toEqual(["fetch 0", "fetch 1"]);
    h.replies[1]?.resolve("b");
    await settle();
    // Batches are prepared in order: batch 1 waits for batch 0's reply.
    expect(h.events).toEqual(["fetch 0", "fetch 1"]);
    h.replies[0]?.resolve("a");
    await settle();
    // Batch 0 prepared: batch 2's request leaves (one ahead of batch 1, the next to prepare), and
    // batch 1 is prepared while batch 0 is stored.
    expect(h.events).toEqual([
      "fetch 0",
      "fetch 1",
      "prepare 0",
      "fetch 2",
      "prepare 1",
      "store 0 A",
    ]);
    h.stores[0]?.resolve();
    await settle();
    expect(h.events.slice(6)).toEqual(["store 1 B"]);
    h.replies[2]?.resolve("c");
    h.stores[1]?.resolve();
    await settle();
    expect(h.events.slice(7)).toEqual(["prepare 2", "store 2 C"]);
    let done = false;
    void h.run.then(() => (done = true));
    await settle();
    expect(done).toBe(false); // not before the last store has finished
    h.stores[2]?.resolve();
    await expect(h.run).resolves.toBeUndefined();
  });

  it("hands each batch over as soon as its reply is in, not when the one before is prepared", async () => {
    const h = harness(4, 2, 2, true);
    await settle();
    h.replies[0]?.resolve("a");
    h.replies[1]?.resolve("b");
    await settle();
    // A preparing thread gets batch 1 while it still works on batch 0 (it queues it), so it goes
    // on without waiting for this thread to take batch 0's result.
    expect(h.events).toEqual(["fetch 0", "fetch 1", "fetch 2", "prepare 0", "prepare 1"]);
    h.preparations[1]?.resolve();
    await settle();
    expect(h.events.filter((e) => e.startsWith("store"))).toEqual([]); // batch 0 comes first
    h.preparations[0]?.resolve();
    await settle();
    expect(h.events.filter((e) => e.startsWith("store"))).toEqual(["store 0 A"]);
    h.stores[0]?.resolve();
    await settle();
    expect(h.events.filter((e) => e.startsWith("store"))).toEqual(["store 0 A", "store 1 B"]);
  });

  it("paces the look-ahead by a preparation's own time, not its wait behind the batch before", async () => {
    const h = harness(30, 2, 20, true);
    await settle();
    h.clock.t = 1_000;
    h.replies[0]?.resolve("a");
    h.replies[1]?.resolve("b");
    h.replies[2]?.resolve("c");
    await settle();
    // Replies took 1,000 ms against the first pace of 250 ms: 1000 / 250 + 1 = 5 ahead of batch 0.
    expect(h.fetched().at(-1)).toBe("fetch 5");
    h.clock.t = 1_250;
    h.preparations[0]?.resolve();
    await settle();
    // Batch 0 took 250 ms: still 5 ahead, now of batch 1.
    expect(h.fetched().at(-1)).toBe("fetch 6");
    h.clock.t = 1_300;
    h.preparations[1]?.resolve();
    await settle();
    // Batch 1, handed over at 1,000 ms, took 50 ms once batch 0 was done (not 300): the pace is
    // (250 + 50) / 2 = 150 ms, so ceil(1000 / 150) + 1 = 8 ahead of batch 1 (batch 0 is stored,
    // so requests count from one past it however many batches are prepared).
    expect(h.fetched().at(-1)).toBe("fetch 9");
  });

  it("looks further ahead when replies take longer than a batch's work, up to maxAhead", async () => {
    const h = harness(12, 2, 5);
    await settle();
    expect(h.events).toEqual(["fetch 0", "fetch 1", "fetch 2"]);
    // The first reply took 1,000 ms: before any batch's work is timed the pace is taken as
    // 250 ms, so 1000 / 250 + 1 = 5 batches ahead of batch 0, then (prepared) of batch 1.
    h.clock.t = 1_000;
    h.replies[0]?.resolve("a");
    await settle();
    expect(h.fetched()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `fetch ${i}`));
    // Batch 0's store took 400 ms: 1000 / 400 → 3, + 1 = 4 ahead of batch 1; nothing new.
    h.clock.t = 1_400;
    h.stores[0]?.resolve();
    await settle();
    expect(h.fetched()).toHaveLength(7);
    // The second reply took 4,000 ms: the average wait is 2,500 ms, 2500 / 400 → 7, + 1 = 8,
    // capped at maxAhead: 5 ahead of batch 2 once batch 1 is prepared.
    h.clock.t = 4_000;
    h.replies[1]?.resolve("b");
    await settle();
    expect(h.fetched().at(-1)).toBe("fetch 7");
  });

  it("keeps the minimum look-ahead when replies come at once", async () => {
    const h = harness(8, 2, 6);
    await settle();
    h.clock.t = 20;
    h.replies[0]?.resolve("a");
    h.replies[1]?.resolve("b");
    h.replies[2]?.resolve("c");
    await settle();
    // 20 ms against a 250 ms pace: two ahead, as without maxAhead, counted from batch 1 (one past
    // the batch being stored) although batches 1 and 2 are prepared too: a writer slower than
    // the preparation does not make prepared batches pile up.
    expect(h.fetched()).toEqual(["fetch 0", "fetch 1", "fetch 2", "fetch 3"]);
    h.clock.t = 300;
    h.stores[0]?.resolve();
    await settle();
    expect(h.fetched().at(-1)).toBe("fetch 4");
  });

  it("a failed request stops every later store and aborts what is in flight at once", async () => {
    const h = harness(5, 2);
    await settle();
    expect(h.events).toEqual(["fetch 0", "fetch 1", "fetch 2"]);
    h.replies[0]?.resolve("a");
    await settle();
    expect(h.events).toContain("fetch 3");
    h.replies[1]?.reject(new Error("HTTP 500"));
    await settle();
    // Batch 2's request is aborted while batch 0 is still being stored.
    expect(h.signals.every((s) => s.aborted)).toBe(true);
    h.stores[0]?.resolve();
    await expect(h.run).rejects.toThrow("HTTP 500");
    expect(h.events.filter((e) => e.startsWith("store"))).toEqual(["store 0 A"]);
    expect(h.events).not.toContain("fetch 4");
  });

  it("a failed store rejects the run after the prepared next batch settles", async () => {
    const h = harness(3);
    h.replies[0]?.resolve("a");
    h.replies[1]?.resolve("b");
    await settle();
    h.stores[0]?.reject(new Error("disk full"));
    await expect(h.run).rejects.toThrow("disk full");
    expect(h.events.filter((e) => e.startsWith("store"))).toEqual(["store 0 A"]);
    expect(h.signals[1]?.aborted).toBe(true);
  });

  it("the caller's abort stops the pipeline with its reason", async () => {
    const h = harness(3);
    h.replies[0]?.resolve("a");
    await settle();
    h.controller.abort(new Error("cancelled by the client"));
    h.stores[0]?.resolve();
    h.replies[1]?.resolve("b");
    await expect(h.run).rejects.toThrow("cancelled by the client");
    expect(h.events.filter((e) => e.startsWith("store"))).toEqual(["store 0 A"]);
    expect(h.signals.every((s) => s.aborted)).toBe(true);
  });

  it("does nothing for zero batches", async () => {
    const h = harness(0);
    await expect(h.run).resolves.toBeUndefined();
    expect(h.events).toEqual([]);
  });
});
