/**
 * The channel between a thread and its owner (src/net/channel.ts, thread-channel.ts), with a real
 * thread (__tests__/helpers/channel-worker.ts): replies, errors rebuilt with their class and code,
 * cancellation on both sides, progress, transferred buffers, requests from the thread to its
 * owner, and requests failed (never left waiting) when the thread dies or is closed.
 */
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import {
  AppError,
  CancelledError,
  ERROR_CLASSES,
  InvariantError,
  UpstreamError,
  toEnvelope,
} from "../../src/errors.js";
import type { Served } from "../../src/net/channel.js";
import { ThreadChannel, type ThreadOptions } from "../../src/net/thread-channel.js";
import { startThread } from "../../src/threads.js";
import type { ChannelTestApi } from "../helpers/channel-worker.js";

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (err: unknown) => err,
  );

describe("a thread channel", () => {
  let channel: ThreadChannel<ChannelTestApi>;
  let exits: number[];
  /** The signals of the thread's "hold" requests to its owner. */
  let held: AbortSignal[];
  const open = (more: Partial<ThreadOptions> = {}) =>
    new ThreadChannel<ChannelTestApi>({
      start: () => startThread("../helpers/channel-worker", import.meta.url),
      errors: ERROR_CLASSES,
      stopped: (code, name) =>
        new InvariantError(`${name}: ${code === null ? "closed" : `exit code ${code}`}`),
      failed: () => undefined,
      exited: (code) => void exits.push(code),
      handlers: {
        double: (n: number) => n * 2,
        hold: (_: void, served: Served) => {
          held.push(served.signal);
          return new Promise((resolve) => served.signal.addEventListener("abort", resolve));
        },
      },
      ...more,
    });
  beforeEach(() => {
    exits = [];
    held = [];
    channel = open();
  });
  afterEach(() => channel.close());

  it("starts the thread on first use and answers requests, notifications kept in order", async () => {
    expect(channel.running).toBe(false);
    expect(await channel.request("echo", { a: [1, 2], b: "x" })).toEqual({ a: [1, 2], b: "x" });
    expect(channel.threadId).toBeGreaterThan(0);
    channel.notify("remember", "first");
    channel.notify("remember", "second");
    expect(await channel.request("recall")).toEqual(["first", "second"]);
    expect(channel.pending).toBe(0);
  });

  it("rebuilds the thread's errors with their class, code, details and cause", async () => {
    const upstream = await failureOf(channel.request("fail", "upstream"));
    expect(upstream).toBeInstanceOf(UpstreamError);
    expect(toEnvelope(upstream).error).toEqual({
      code: "UPSTREAM",
      message: "NCBI timed out",
      details: { service: "efetch" },
    });
    expect(((upstream as Error).cause as Error).message).toBe("ETIMEDOUT");
    // A class sharing its parent's code keeps its own.
    expect(await failureOf(channel.request("fail", "cancelled"))).toBeInstanceOf(CancelledError);
    const plain = await failureOf(channel.request("fail", "type"));
    expect(plain).not.toBeInstanceOf(UpstreamError);
    expect(plain).toMatchObject({ name: "TypeError", message: "x is undefined" });
    expect(plain).not.toBeInstanceOf(AppError);
  });

  it("rejects a cancelled request at once with the abort's reason, and aborts it in the thread", async () => {
    const abort = new AbortController();
    const waiting = channel.request("untilCancelled", undefined, { signal: abort.signal });
    expect(channel.pending).toBe(1);
    abort.abort(new Error("deadline"));
    await expect(waiting).rejects.toThrow("deadline");
    expect(channel.pending).toBe(0);
    // The cancel was posted before this request, so the thread has read it.
    expect(await channel.request("cancels")).toBe(1);

    const before = new AbortController();
    before.abort("gone");
    const other = open();
    await expect(other.request("echo", 1, { signal: before.signal })).rejects.toBe("gone");
    expect(other.running).toBe(false); // nothing was sent
  });

  it("calls `finished` once the thread answered a request given up", async () => {
    const abort = new AbortController();
    let finished = 0;
    const waiting = channel.request("untilCancelled", undefined, {
      signal: abort.signal,
      finished: () => finished++,
    });
    abort.abort(new Error("no longer needed"));
    await expect(waiting).rejects.toThrow("no longer needed");
    await channel.request("cancels"); // answered after the cancelled one
    expect(finished).toBe(1);
  });

  it("reports progress, hands buffers over both ways, and answers the thread's own requests", async () => {
    const seen: number[] = [];
    expect(await channel.request("count", 3, { onProgress: (n) => seen.push(n) })).toBe(3);
    expect(seen).toEqual([1, 2, 3]);

    const bytes = Uint8Array.from([1, 2, 3, 4]);
    const reply = await channel.request("sum", bytes, { transfer: [bytes.buffer] });
    expect(bytes.byteLength).toBe(0); // handed over, not copied
    expect(reply.sum).toBe(10);
    expect([...reply.bytes]).toEqual([1, 2, 3, 4]);

    expect(await channel.request("ask", 21)).toBe(42);
  });

  it("aborts at once what the owner serves for a request the owner gave up", async () => {
    const abort = new AbortController();
    const asked = channel.request("askToHold", undefined, { signal: abort.signal });
    while (held.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(held[0]!.aborted).toBe(false);
    abort.abort(new Error("deadline"));
    // Aborted here, not after a round trip through the thread.
    expect(held[0]!.aborted).toBe(true);
    await expect(asked).rejects.toThrow("deadline");
  });

  it("drains the thread's side: every request it serves is aborted and answered", async () => {
    const first = channel.request("untilCancelled");
    const second = channel.request("untilCancelled");
    channel.notify("drain");
    expect(await Promise.all([first, second])).toEqual(["cancelled", "cancelled"]);
  });

  it("fails the requests of a thread that died, reports its exit, and starts a new one", async () => {
    await channel.request("echo", 0);
    const dead = channel.threadId;
    const waiting = channel.request("untilCancelled");
    channel.notify("exit", 3);
    const err = await failureOf(waiting);
    expect(err).toBeInstanceOf(InvariantError);
    expect((err as Error).message).toBe("untilCancelled: exit code 3");
    await channel.ended;
    expect(exits).toEqual([3]);
    expect(channel.running).toBe(false);
    expect(await channel.request("echo", "again")).toBe("again");
    expect(channel.threadId).not.toBe(dead);
  });

  it("fails the requests of a closed thread, without reporting an exit", async () => {
    const waiting = failureOf(channel.request("untilCancelled"));
    await channel.request("echo", 0); // the thread has the request
    await channel.close();
    expect(await waiting).toMatchObject({ message: "untilCancelled: closed" });
    expect(exits).toEqual([]);
    expect(channel.running).toBe(false);
  });

  it("ends an idle thread, never one with a request out, and starts one for the next", async () => {
    const idle = open({ idle: { ms: 0 } });
    try {
      idle.warm();
      expect(idle.running).toBe(true);
      const waiting = idle.request("untilCancelled", undefined, {
        signal: AbortSignal.timeout(60_000),
      });
      expect(await idle.request("echo", 1)).toBe(1);
      expect(idle.running).toBe(true); // a request is still out
      void idle.close();
      await expect(waiting).rejects.toThrow("untilCancelled: closed");
      expect(await idle.request("echo", 2)).toBe(2);
      while (idle.running) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(exits).toEqual([]); // ended as idle, not as a crash
    } finally {
      await idle.close();
    }
  });
});
