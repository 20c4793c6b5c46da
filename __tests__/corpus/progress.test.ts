/**
 * The sync's progress cadence on an injected clock and timer: a notification after every batch,
 * a heartbeat whenever a second passes without one (also while a request waits), values that
 * always increase (MCP), never past the total, and a completed sync ending on progress = total.
 */
import { describe, expect, it } from "@jest/globals";
import { HEARTBEAT_MS, SyncProgress, type HeartbeatClock } from "../../src/corpus/progress.js";

/** A clock whose time and interval timers move only when the test says so. */
function manualClock() {
  let now = 0;
  const timers: { ms: number; next: number; fn: () => void }[] = [];
  const clock: HeartbeatClock = {
    now: () => now,
    every: (ms, fn) => {
      const t = { ms, next: now + ms, fn };
      timers.push(t);
      return () => void timers.splice(timers.indexOf(t), 1);
    },
  };
  /** Moves time on, firing each due timer and letting what it started settle before the next. */
  const advance = async (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = timers.filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      now = due.next;
      due.next += due.ms;
      due.fn();
      await new Promise((r) => setImmediate(r));
    }
    now = end;
  };
  return { clock, advance, timers, at: () => now };
}

type Sent = { at: number; progress: number; total: number; message: string };

function setup() {
  const c = manualClock();
  const sent: Sent[] = [];
  const p = new SyncProgress((progress, total, message) => {
    sent.push({ at: c.at(), progress, total, message });
  }, c.clock);
  return { ...c, sent, p };
}

describe("sync progress", () => {
  it("reports every batch and never stays silent for more than a second while work is left", async () => {
    const { p, sent, advance } = setup();
    p.start();
    p.setTotal(1_200);
    await p.records(500, "batch 1");
    await advance(3_600); // a slow EFetch: heartbeats only
    await p.records(1_000, "batch 2");
    await advance(400);
    await p.records(1_200, "batch 3");
    await advance(5_000); // housekeeping after the last record: no heartbeat passes the total
    await p.finish("synced");
    await p.flush();

    const values = sent.map((s) => s.progress);
    expect(values.filter(Number.isInteger)).toEqual([500, 1_000, 1_200]);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] ?? 0);
    // Between the first batch and the last, no gap reaches past one heartbeat period.
    const during = sent.filter((s) => s.progress >= 500 && s.progress <= 1_200);
    for (let i = 1; i < during.length; i++) {
      expect((during[i]?.at ?? 0) - (during[i - 1]?.at ?? 0)).toBeLessThanOrEqual(HEARTBEAT_MS);
    }
    const heartbeats = sent.filter((s) => s.progress > 500 && s.progress < 1_000);
    expect(heartbeats.length).toBeGreaterThanOrEqual(3);
    expect(heartbeats.every((s) => s.message === "batch 1")).toBe(true);
    expect(values.every((v) => v <= 1_200)).toBe(true);
    expect(sent.every((s) => s.total === 1_200)).toBe(true);
    expect(sent.at(-1)?.progress).toBe(1_200);
  });

  it("keeps the heartbeat going while nothing has been counted yet, then ends on the total", async () => {
    const { p, sent, advance, timers } = setup();
    p.start();
    await advance(2_500); // the first search waits for NCBI
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.every((s) => s.progress > 0 && s.progress < 1)).toBe(true);
    p.setTotal(40);
    await p.records(30, "window");
    await p.finish("synced"); // fewer records than the search counted: still ends at 100 %
    expect(sent.at(-1)).toMatchObject({ progress: 40, total: 40, message: "synced" });
    expect(timers).toHaveLength(0);
    const n = sent.length;
    await advance(5_000);
    expect(sent).toHaveLength(n);
  });

  it("sends nothing without a client that asked for progress, and survives a client that fails", async () => {
    const c = manualClock();
    const quiet = new SyncProgress(undefined, c.clock);
    quiet.start();
    expect(c.timers).toHaveLength(0);
    await quiet.records(10, "x");
    const failing = new SyncProgress(() => Promise.reject(new Error("gone")), c.clock);
    await expect(failing.records(10, "x")).resolves.toBeUndefined();
  });
});
