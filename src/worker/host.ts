/**
 * Where corpus operations run. The server uses the worker thread (worker/client.ts), so the MCP
 * loop only routes calls; the inline host runs them on the calling thread: the bench's baseline
 * of the former single-threaded server (`corpusThread: "inline"`, ./process.ts).
 */
import type { EutilsClient } from "../ncbi/client.js";
import type { OpArgs, OpName, OpResult } from "./ops.js";
import type { CorpusStores } from "./stores.js";

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

/** Runs the operations on this thread, on stores it opens itself (./stores.ts). */
export class InlineCorpusHost implements CorpusHost {
  private state: CorpusStatus = { status: "idle" };

  constructor(
    private readonly stores: CorpusStores,
    /** This thread's E-utilities client, read per call (tests swap the state's client). */
    private readonly eutils: () => EutilsClient,
  ) {}

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
    const { runOp } = await import("./ops.js");
    const signal = opts.signal ?? new AbortController().signal;
    const ctx = { signal, progress: opts.onProgress, eutils: this.eutils() };
    return (await runOp(op, args, ctx, this.stores)) as OpResult<K>;
  }

  async close(): Promise<void> {
    await this.stores.close();
  }

  private track(): void {
    if (this.state.status === "open" || this.state.status === "opening") return;
    this.state = { status: "opening" };
    this.stores.open().then(
      () => (this.state = { status: "open" }),
      (err: unknown) =>
        (this.state = {
          status: "failed",
          error: err instanceof Error ? err : new Error(String(err)),
        }),
    );
  }
}
