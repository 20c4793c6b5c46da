/**
 * The MCP thread's side of the corpus worker: calls by name with request ids and promises,
 * progress events, cancellation, and the worker's NCBI requests run on this thread's
 * EutilsClient (remote-eutils.ts). The thread starts on first use (or `open()`), and again
 * after it died; `close()` ends it after the stores are closed.
 *
 * A call whose signal aborts rejects here at once with the abort's reason, so a tool's deadline
 * holds whatever the worker is doing; the worker is told to abort the call's own signal, which
 * stops the sync or search there.
 */
import type { Worker } from "node:worker_threads";
import type { Config } from "../config.js";
import { StoreError } from "../errors.js";
import { log } from "../log.js";
import { startThread } from "../threads.js";
import type { EutilsClient } from "../ncbi/client.js";
import type { CorpusHost, CorpusStatus, HostCallOptions } from "./host.js";
import type { OpArgs, OpName, OpResult } from "./ops.js";
import { fromWire, toWire, type FromWorker, type ToWorker } from "./protocol.js";

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  onProgress?: HostCallOptions["onProgress"];
  /** NCBI requests in flight for this call, aborted with it. */
  requests: Set<number>;
}

/** How long close() waits for the worker to close its stores before terminating it. */
const CLOSE_GRACE_MS = 15_000;

export class CorpusWorker implements CorpusHost {
  private worker: Worker | undefined;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly requests = new Map<number, AbortController>();
  private state: CorpusStatus = { status: "idle" };
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: Config,
    /** The MCP thread's client, read per request (tests swap the state's client). */
    private readonly eutilsClient: () => EutilsClient,
  ) {}

  status(): CorpusStatus {
    return this.state;
  }

  open(): void {
    if (this.state.status === "open" || this.state.status === "opening") return;
    this.state = { status: "opening" };
    this.send({ type: "open" });
  }

  call<K extends OpName>(op: K, args: OpArgs<K>, opts: HostCallOptions = {}): Promise<OpResult<K>> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.next++;
    return new Promise<OpResult<K>>((resolve, reject) => {
      const onAbort = () => {
        const p = this.pending.get(id);
        if (!p) return;
        this.finish(id);
        this.worker?.postMessage({ type: "cancel", id } satisfies ToWorker);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, {
        resolve: (v) => (done(), resolve(v as OpResult<K>)),
        reject: (e) => (done(), reject(e)),
        onProgress: opts.onProgress,
        requests: new Set(),
      });
      if (this.state.status === "idle") this.state = { status: "opening" };
      this.send({ type: "call", id, op, args: args as unknown[] });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const timer = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
    worker.postMessage({ type: "close" } satisfies ToWorker);
    await this.exited;
    clearTimeout(timer);
  }

  private send(msg: ToWorker): void {
    (this.worker ?? this.start()).postMessage(msg);
  }

  private start(): Worker {
    const worker = startThread("entry", import.meta.url, this.config);
    worker.on("message", (msg: FromWorker) => this.receive(msg));
    worker.on("error", (err) => log.error("corpus worker failed", { error: err.message }));
    this.exited = new Promise((resolve) =>
      worker.once("exit", (code) => resolve(this.onExit(code))),
    );
    this.worker = worker;
    return worker;
  }

  /** The thread ended (closed, or died): pending calls fail; the next call starts a new one. */
  private async onExit(code: number): Promise<void> {
    this.worker = undefined;
    this.state = { status: "idle" };
    for (const c of this.requests.values()) c.abort();
    this.requests.clear();
    const err = new StoreError(
      `The corpus worker stopped (exit code ${code}) before answering; retry the call.`,
    );
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(err);
    }
    if (code !== 0 && !this.config.databaseUrl) {
      const { releaseOwnLock } = await import("../store/file-lock.js");
      await releaseOwnLock(this.config.dataDir).catch(() => undefined);
    }
  }

  private finish(id: number): Pending | undefined {
    const p = this.pending.get(id);
    this.pending.delete(id);
    for (const r of p?.requests ?? []) this.requests.get(r)?.abort();
    return p;
  }

  private receive(msg: FromWorker): void {
    switch (msg.type) {
      case "result":
        return this.pending.has(msg.id) ? this.finish(msg.id)?.resolve(msg.value) : undefined;
      case "error":
        return this.pending.has(msg.id)
          ? this.finish(msg.id)?.reject(fromWire(msg.error))
          : undefined;
      case "progress":
        return void Promise.resolve(
          this.pending.get(msg.id)?.onProgress?.(msg.done, msg.total, msg.message),
        ).catch(() => undefined);
      case "opened":
        this.state = { status: "open" };
        return;
      case "open-failed":
        this.state = { status: "failed", error: fromWire(msg.error) };
        return;
      case "eutils":
        return void this.eutils(msg);
      case "eutils-cancel":
        return this.requests.get(msg.id)?.abort();
    }
  }

  private async eutils(msg: Extract<FromWorker, { type: "eutils" }>): Promise<void> {
    const controller = new AbortController();
    this.requests.set(msg.id, controller);
    if (msg.callId !== null) this.pending.get(msg.callId)?.requests.add(msg.id);
    let reply: ToWorker;
    try {
      const opts = { ...msg.opts, signal: controller.signal };
      const client = this.eutilsClient();
      const value = msg.bytes
        ? await client.requestBytes(msg.utility, msg.params, opts)
        : await client.request(msg.utility, msg.params, opts);
      reply = { type: "eutils-reply", id: msg.id, ok: true, value };
    } catch (err) {
      reply = { type: "eutils-reply", id: msg.id, ok: false, error: toWire(err) };
    } finally {
      this.requests.delete(msg.id);
      if (msg.callId !== null) this.pending.get(msg.callId)?.requests.delete(msg.id);
    }
    // A reply's bytes are in shared memory (PoliteClient.requestBytes): the worker gets them
    // without a copy, and so does the sync's prepare thread after it.
    this.worker?.postMessage(reply);
  }
}
