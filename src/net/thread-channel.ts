/**
 * The two sides of a thread's channel (./channel.ts): ThreadChannel, the owner's, starts the
 * thread on first use and again after it ended, fails what it had not answered when it ends, and
 * can end it when idle; parentChannel() is the thread's.
 */
import { parentPort, type MessagePort, type Worker } from "node:worker_threads";
import type { ErrorClasses } from "../errors.js";
import { Endpoint, type Api, type Message, type Port } from "./channel.js";

export interface ThreadOptions {
  /** Starts the thread (startThread of ../threads.ts): on first use, and after it ended. */
  start: () => Worker;
  /** The classes errors are rebuilt with: ERROR_CLASSES of ../errors.ts. */
  errors: ErrorClasses;
  /** What a request fails with when the thread ends first: closed (code null), or it died. */
  stopped: (code: number | null, name: string) => Error;
  /** The thread's uncaught error (its exit follows). */
  failed: (err: Error) => void;
  /** The thread ended by itself (not closed): runs before its requests fail. */
  exited?: (code: number) => void | Promise<void>;
  /** The thread's requests and notifications to its owner. */
  handlers?: Api;
  /**
   * With no request awaited and nothing `busy`, the thread ends after `ms` (the next request
   * starts a new one); `unref`: the thread is referenced only while it has work.
   */
  idle?: { ms: number; unref?: boolean; busy?: () => boolean };
}

/** The owner's side of a thread. */
export class ThreadChannel<Remote extends Api> extends Endpoint<Remote> {
  #worker: Worker | undefined;
  #idle: NodeJS.Timeout | undefined;
  #ended: Promise<void> = Promise.resolve();

  constructor(private readonly opts: ThreadOptions) {
    super(opts.errors, opts.handlers ?? {});
  }

  /** Whether a thread is running (it starts on the next request otherwise). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** The running thread's id (worker_threads threadId). */
  get threadId(): number | undefined {
    return this.#worker?.threadId;
  }

  /** Settles once the running thread has ended and `exited` has run (at once with none). */
  get ended(): Promise<void> {
    return this.#ended;
  }

  /** Starts the thread now, if none runs; idle, it ends as it would after an answer. */
  warm(): void {
    this.#worker ??= this.#start();
    this.quiet();
  }

  /** Ends the thread: its requests fail with `stopped(null, name)`; its exit is not reported. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#worker = undefined;
    clearTimeout(this.#idle);
    this.lost((name) => this.opts.stopped(null, name));
    await worker.terminate();
  }

  /** Ends the thread as a crash would: reported as its exit (`exited`, `stopped(code, name)`). */
  async terminate(): Promise<void> {
    await this.#worker?.terminate();
  }

  protected override target(sending: boolean): Worker | undefined {
    if (!sending) return this.#worker;
    clearTimeout(this.#idle);
    const worker = (this.#worker ??= this.#start());
    if (this.opts.idle?.unref) worker.ref();
    return worker;
  }

  protected override quiet(): void {
    const idle = this.opts.idle;
    const worker = this.#worker;
    if (!idle || !worker || this.pending > 0 || idle.busy?.()) return;
    if (idle.unref) worker.unref();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.pending === 0 && !idle.busy?.()) void this.close();
    }, idle.ms).unref();
  }

  #start(): Worker {
    const worker = this.opts.start();
    worker.on("message", (msg: Message) => {
      if (this.#worker === worker) this.receive(msg);
    });
    worker.on("error", (err) => this.opts.failed(err));
    this.#ended = new Promise((resolve) => {
      worker.once("exit", (code) => resolve(this.#exited(worker, code)));
    });
    return worker;
  }

  async #exited(worker: Worker, code: number): Promise<void> {
    if (this.#worker !== worker) return; // closed, or ended idle
    this.#worker = undefined;
    clearTimeout(this.#idle);
    const exited = this.opts.exited?.(code);
    this.lost((name) => this.opts.stopped(code, name));
    await exited;
  }
}

/** The thread's side of its owner's channel: `serve` answers the owner's requests. */
export class ParentChannel<Remote extends Api = Api> extends Endpoint<Remote> {
  constructor(
    private readonly port: MessagePort,
    errors?: ErrorClasses,
  ) {
    super(errors, {});
  }

  /** Starts answering: messages wait until then (a thread may set up first). */
  serve(handlers: Api): this {
    this.handlers = handlers;
    this.port.on("message", (msg: Message) => this.receive(msg));
    return this;
  }

  protected override target(): Port {
    return this.port;
  }
}

/**
 * This thread's channel to its owner; `file` names it in the error if it is not a thread.
 * `errors` (ERROR_CLASSES) rebuilds the errors of the thread's own requests, if it makes any.
 */
export function parentChannel<Remote extends Api = Api>(
  file: string,
  errors?: ErrorClasses,
): ParentChannel<Remote> {
  if (!parentPort) throw new Error(`${file} runs as a worker thread only`);
  return new ParentChannel<Remote>(parentPort, errors);
}
