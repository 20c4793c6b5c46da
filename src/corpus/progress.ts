/**
 * A sync's progress notifications: one after every EFetch batch (at most EFETCH_BATCH = 500
 * records apart) and a heartbeat whenever a second has passed without one, so a client never
 * waits a second in silence — also while a request waits for NCBI.
 *
 * `progress` counts records processed, `total` those the sync's searches found (at most
 * max_records). MCP requires progress to increase with every notification, so a heartbeat between
 * two batches adds a growing fraction below one record (n + k/(k+1) for the k-th heartbeat since
 * n records); the next batch's whole count is above every such value. Heartbeats stop once the
 * count reaches the total (what is left is local housekeeping), so they never pass it, and a sync
 * that completes ends on progress = total.
 */

export type ProgressSink = (done: number, total: number, message: string) => void | Promise<void>;

/** The clock and timer the heartbeat runs on; tests inject their own. */
export interface HeartbeatClock {
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

export const systemClock: HeartbeatClock = {
  now: () => performance.now(),
  every: (ms, fn) => {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** The longest a running sync stays silent, in ms. */
export const HEARTBEAT_MS = 1_000;

export class SyncProgress {
  private done = 0;
  private total = 1;
  /** The last progress value sent. */
  private sent = 0;
  private message = "starting";
  /** Heartbeats sent since `done` last grew. */
  private beats = 0;
  private lastSentAt: number;
  private stopTimer: (() => void) | undefined;
  /** Notifications go out one at a time, in order. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: ProgressSink | undefined,
    private readonly clock: HeartbeatClock = systemClock,
    private readonly heartbeatMs = HEARTBEAT_MS,
  ) {
    this.lastSentAt = clock.now();
  }

  /** Starts the heartbeat; it checks four times per period so no gap exceeds the period. */
  start(): void {
    if (!this.sink || this.stopTimer) return;
    this.stopTimer = this.clock.every(this.heartbeatMs / 4, () => this.beat());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  setTotal(total: number): void {
    this.total = Math.max(1, total, this.done);
  }

  /** Records processed so far; sends a notification when the count grew. */
  async records(done: number, message: string): Promise<void> {
    this.message = message;
    if (done <= this.done) return;
    this.done = done;
    this.total = Math.max(this.total, done);
    this.beats = 0;
    await this.send(done);
  }

  /** The sync completed: stops the heartbeat and ends on progress = total. */
  async finish(message: string): Promise<void> {
    this.stop();
    this.message = message;
    if (this.sent < this.total) await this.send(this.total);
    await this.chain;
  }

  /** Changes what the next heartbeat says, without sending anything. */
  note(message: string): void {
    this.message = message;
  }

  /** Waits for notifications already handed to the client. */
  flush(): Promise<void> {
    return this.chain;
  }

  private beat(): void {
    if (this.done >= this.total) return;
    if (this.clock.now() - this.lastSentAt < (this.heartbeatMs * 3) / 4) return;
    this.beats += 1;
    void this.send(this.done + this.beats / (this.beats + 1));
  }

  private send(progress: number): Promise<void> {
    this.lastSentAt = this.clock.now();
    this.sent = progress;
    const total = this.total;
    const message = this.message;
    const sink = this.sink;
    this.chain = this.chain.then(async () => {
      try {
        await sink?.(progress, total, message);
      } catch {
        // A client that went away must not fail the sync; its call ends on its own.
      }
    });
    return this.chain;
  }
}
