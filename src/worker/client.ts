/**
 * The MCP thread's side of the corpus worker, over the thread channel (../net/thread-channel.ts;
 * what each side asks: ./protocol.ts): calls by name, their progress, and the worker's NCBI
 * requests run on this thread's EutilsClient (remote-eutils.ts). The thread starts on first use
 * (or `open()`), and again after it died; `close()` ends it after the stores are closed.
 *
 * A call whose signal aborts rejects here at once with the abort's reason, so a tool's deadline
 * holds whatever the worker is doing; the worker's signal for the call aborts too, which stops the
 * sync or search there, and so do the NCBI requests it made for the call.
 */
import type { Config } from "../config.js";
import { ERROR_CLASSES, StoreError } from "../errors.js";
import { log } from "../log.js";
import { ThreadChannel } from "../net/thread-channel.js";
import { startThread } from "../threads.js";
import type { EutilsClient } from "../ncbi/client.js";
import type { CorpusHost, CorpusStatus, HostCallOptions } from "./host.js";
import type { OpArgs, OpName, OpResult } from "./ops.js";
import { fromWire, type OwnerApi, type WorkerApi } from "./protocol.js";

/** How long close() waits for the worker to close its stores before terminating it. */
const CLOSE_GRACE_MS = 15_000;

export class CorpusWorker implements CorpusHost {
  private state: CorpusStatus = { status: "idle" };
  private readonly channel: ThreadChannel<WorkerApi>;

  constructor(
    private readonly config: Config,
    /** The MCP thread's client, read per request (tests swap the state's client). */
    private readonly eutilsClient: () => EutilsClient,
  ) {
    const handlers: OwnerApi = {
      eutils: ({ utility, params, opts, bytes }, served) => {
        const client = this.eutilsClient();
        const o = { ...opts, signal: served.signal };
        // A reply's bytes are in shared memory (PoliteClient.requestBytes): the worker gets them
        // without a copy, and so does the sync's prepare thread after it.
        return bytes ? client.requestBytes(utility, params, o) : client.request(utility, params, o);
      },
      idconv: ({ params, opts }, served) =>
        this.eutilsClient().idconv(params, { ...opts, signal: served.signal }),
      opened: () => {
        this.state = { status: "open" };
      },
      openFailed: (error) => {
        this.state = { status: "failed", error: fromWire(error) };
      },
    };
    this.channel = new ThreadChannel<WorkerApi>({
      start: () => startThread("entry", import.meta.url, config),
      errors: ERROR_CLASSES,
      stopped: (code) =>
        new StoreError(
          `The corpus worker stopped (exit code ${code}) before answering; retry the call.`,
        ),
      failed: (err) => log.error("corpus worker failed", { error: err.message }),
      exited: (code) => this.exited(code),
      handlers,
    });
  }

  status(): CorpusStatus {
    return this.state;
  }

  open(): void {
    if (this.state.status === "open" || this.state.status === "opening") return;
    this.state = { status: "opening" };
    this.channel.notify("open");
  }

  call<K extends OpName>(op: K, args: OpArgs<K>, opts: HostCallOptions = {}): Promise<OpResult<K>> {
    const { signal, onProgress } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.state.status === "idle") this.state = { status: "opening" };
    return this.channel.request(
      "call",
      { op, args: args as unknown[] },
      { signal, onProgress: onProgress && ((p) => onProgress(p.done, p.total, p.message)) },
    ) as Promise<OpResult<K>>;
  }

  async close(): Promise<void> {
    if (!this.channel.running) return;
    const timer = setTimeout(() => void this.channel.terminate(), CLOSE_GRACE_MS);
    this.channel.notify("close");
    await this.channel.ended;
    clearTimeout(timer);
  }

  /** The thread ended (closed, or died): its calls fail next; the next call starts a new one. */
  private async exited(code: number): Promise<void> {
    this.state = { status: "idle" };
    if (code !== 0 && !this.config.databaseUrl) {
      const { releaseOwnLock } = await import("../store/file-lock.js");
      await releaseOwnLock(this.config.dataDir).catch(() => undefined);
    }
  }
}
