/**
 * The sliding-window gate on its own, with a short window so the tests stay fast.
 */
import { describe, expect, it } from "@jest/globals";
import { RateLimiter } from "../../src/net/limiter.js";
import { sleep } from "../../src/sleep.js";

/** Most timestamps inside any half-open window of `ms`. */
function maxIn(times: number[], ms: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0; i < t.length; i++) {
    best = Math.max(best, t.filter((x) => x >= (t[i] ?? 0) && x < (t[i] ?? 0) + ms).length);
  }
  return best;
}

describe("RateLimiter", () => {
  it("starts at most maxRps in any sliding window, not just per fixed window", async () => {
    const limiter = new RateLimiter({ maxRps: 3, windowMs: 200 });
    const starts: number[] = [];
    // Tasks that finish at different times: a fixed-window counter would let a second burst
    // through right at a boundary.
    const run = (i: number) =>
      limiter.run(async () => {
        starts.push(performance.now());
        await sleep(i % 2 === 0 ? 5 : 60);
      });
    await Promise.all(Array.from({ length: 12 }, (_, i) => run(i)));
    expect(starts).toHaveLength(12);
    expect(maxIn(starts, 199)).toBe(3);
    expect(limiter.started).toBe(12);
    const span = Math.max(...starts) - Math.min(...starts);
    expect(span).toBeGreaterThanOrEqual(3 * 199); // four windows' worth of starts
  });

  it("times a start from when its request reaches the wire, not from when it was allowed", async () => {
    // A fresh connection (connect, TLS) delays the first request; a pooled one sends the next at
    // once. Timed from the starts, both would reach NCBI within one window.
    const limiter = new RateLimiter({ maxRps: 1, windowMs: 200 });
    const onWire: number[] = [];
    const send = (connectMs: number) =>
      limiter.run(async (ticket) => {
        await sleep(connectMs);
        ticket.onWire();
        onWire.push(performance.now());
      });
    await Promise.all([send(150), send(0)]);
    expect((onWire[1] ?? 0) - (onWire[0] ?? 0)).toBeGreaterThanOrEqual(195);
  });

  it("caps concurrency independently of the rate", async () => {
    const limiter = new RateLimiter({ maxRps: 100, concurrency: 2, windowMs: 50 });
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        limiter.run(async () => {
          peak = Math.max(peak, ++running);
          await sleep(20);
          running--;
        }),
      ),
    );
    expect(peak).toBe(2);
  });

  it("holds every start until a cool-down ends", async () => {
    const limiter = new RateLimiter({ maxRps: 10, windowMs: 100 });
    limiter.coolDown(250);
    const t0 = performance.now();
    const starts = await Promise.all(
      [1, 2, 3].map(() => limiter.run(async () => performance.now())),
    );
    for (const s of starts) expect(s - t0).toBeGreaterThanOrEqual(240);
  });

  it("an abort while waiting rejects with the signal's reason and frees the slot", async () => {
    const limiter = new RateLimiter({ maxRps: 1, windowMs: 10_000 });
    await limiter.run(async () => undefined); // the window is now full for 10 s
    const controller = new AbortController();
    const waiting = limiter.run(async () => "never", controller.signal);
    await sleep(20);
    expect(limiter.pending).toBe(1);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    await sleep(0);
    expect(limiter.pending + limiter.size).toBe(0);
    expect(limiter.started).toBe(1);
  });
});

describe("sleep", () => {
  it("rejects at once with the reason of an already-aborted signal", async () => {
    await expect(sleep(10_000, AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
  });
});
