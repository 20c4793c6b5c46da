/**
 * Where corpus operations run. The server uses the worker thread (worker/client.ts), so the MCP
 * loop only routes calls; the inline host runs them on the calling thread — the corpus worker's
 * own, and the bench's baseline of the former single-threaded server (`corpusThread: "inline"`).
 */
import type { OpArgs, OpName, OpResult } from "./ops.js";

export interface HostCallOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, message: string) => void | Promise<void>;
}

export type CorpusStatus =
  | { status: "idle" }
  | { status: "opening" }
  | { status: "open" }
  | { status: "failed"; error: Error };

export interface CorpusHost {
  call<K extends OpName>(op: K, args: OpArgs<K>, opts?: HostCallOptions): Promise<OpResult<K>>;
  /** Starts opening the stores without waiting (HTTP start-up). */
  open(): void;
  /** For /readyz: idle (never asked), opening, open, or the last open's failure. */
  status(): CorpusStatus;
  close(): Promise<void>;
}

/** Runs the operations on this thread, opening the stores through `opened` (state.corpus). */
export class InlineCorpusHost implements CorpusHost {
  private state: CorpusStatus = { status: "idle" };

  constructor(private readonly opened: () => Promise<unknown>) {}

  status(): CorpusStatus {
    return this.state;
  }

  open(): void {
    this.track();
  }

  async call<K extends OpName>(
    op: K,
    args: OpArgs<K>,
    opts: HostCallOptions = {},
  ): Promise<OpResult<K>> {
    this.track();
    const { OPS } = await import("./ops.js");
    const fn = OPS[op] as (ctx: unknown, ...a: unknown[]) => Promise<OpResult<K>>;
    const signal = opts.signal ?? new AbortController().signal;
    return fn({ signal, progress: opts.onProgress }, ...(args as unknown[]));
  }

  async close(): Promise<void> {}

  private track(): void {
    if (this.state.status === "open" || this.state.status === "opening") return;
    this.state = { status: "opening" };
    this.opened().then(
      () => (this.state = { status: "open" }),
      (err: unknown) =>
        (this.state = {
          status: "failed",
          error: err instanceof Error ? err : new Error(String(err)),
        }),
    );
  }
}
