/**
 * Requests and replies between a thread and its owner, over worker_threads messages. Either side
 * may ask the other: `request` sends a named request and returns a promise of its reply, `notify`
 * sends one that gets none; each side answers the other's from its table of handlers. A port
 * keeps its messages in order, and a handler starts as its message arrives, so a notification
 * sent before a request is handled before it.
 *
 * A request whose signal aborts rejects at once with the abort's reason; the other side is told,
 * and its handler's own signal aborts. Errors cross as WireError (../threads.ts) and are rebuilt
 * with their class from the table they are given (ERROR_CLASSES of ../errors.ts, which a thread
 * need not load). Both sides are an Endpoint: the owner's, ThreadChannel, and the thread's,
 * parentChannel(), are in ./thread-channel.ts.
 */
import type { TransferListItem } from "node:worker_threads";
import type { ErrorClasses } from "../errors.js";
import { fromWire, toWire, type WireError } from "../threads.js";

/** A request as its handler sees it. */
export interface Served<P = never> {
  /** The request's id: a request made while serving it names it (RequestOptions.within). */
  readonly id: number;
  /** Aborted when the asker gives up on the request, or its thread ends. */
  readonly signal: AbortSignal;
  /** Tells the asker how far the work is (RequestOptions.onProgress). */
  progress(value: P): void;
  /** Buffers the reply hands over instead of copying (they become unusable here). */
  transfer(list: readonly TransferListItem[]): void;
}

/** A handler: one argument (none for some), and the request it serves (none for notifications). */
type Handler = (arg: never, served: never) => unknown;
/** What one side answers: its handlers by name. */
export type Api = Record<string, Handler>;
type Name<A extends Api> = keyof A & string;
/** A handler's argument then `O`: the argument may be left out when the handler takes none. */
type Args<F extends Handler, O> =
  Parameters<F> extends [] ? [arg?: undefined, more?: O] : [arg: Parameters<F>[0], more?: O];
type Result<F extends Handler> = Awaited<ReturnType<F>>;
type ProgressOf<F> = F extends (arg: never, served: Served<infer P>) => unknown ? P : never;

export interface RequestOptions<P = unknown> {
  signal?: AbortSignal;
  /** Buffers the request hands over instead of copying. */
  transfer?: readonly TransferListItem[];
  onProgress?: (value: P) => unknown;
  /** The request being served that this one is made for: it ends with that one (see #serve). */
  within?: number;
  /** Called once the other side answered, or ended, even after the asker gave up waiting. */
  finished?: () => void;
}

/** What crosses between the two sides. */
export type Message =
  | { kind: "request"; id: number; name: string; arg: unknown; within?: number }
  | { kind: "notify"; name: string; arg: unknown }
  | { kind: "cancel"; id: number }
  | { kind: "progress"; id: number; value: unknown }
  | { kind: "reply"; id: number; value: unknown }
  | { kind: "error"; id: number; error: WireError };

/** Where one side posts: a Worker, or the thread's parentPort. */
export interface Port {
  postMessage(value: unknown, transferList?: readonly TransferListItem[]): void;
}

interface Asked {
  name: string;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  onProgress?: (value: unknown) => unknown;
  finished?: () => void;
  /** Stops listening to the request's signal. */
  unlisten?: () => void;
  /** Requests being served for this one, aborted when it ends. */
  within?: Set<number>;
}

interface Serving {
  controller: AbortController;
  /** The handler's promise, when it returned one. */
  done?: Promise<void>;
}

/** One side of a channel: what both the owner and the thread do. */
export abstract class Endpoint<Remote extends Api> {
  #next = 1;
  /** Requests sent and not yet answered, not given up. */
  readonly #asked = new Map<number, Asked>();
  /** Requests given up but still with the other side, whose `finished` waits for it. */
  readonly #gaveUp = new Map<number, () => void>();
  readonly #served = new Map<number, Serving>();

  constructor(
    private readonly errors: ErrorClasses | undefined,
    protected handlers: Api,
  ) {}

  /** Where messages go: `sending` a request or notification may start the thread. */
  protected abstract target(sending: boolean): Port | undefined;

  /** After each answer and each request given up: ThreadChannel's idle handling. */
  protected quiet(): void {}

  /** Requests sent and still awaited (not those given up). */
  get pending(): number {
    return this.#asked.size;
  }

  request<K extends Name<Remote>>(
    name: K,
    ...[arg, opts = {}]: Args<Remote[K], RequestOptions<ProgressOf<Remote[K]>>>
  ): Promise<Result<Remote[K]>> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#next++;
    return new Promise<Result<Remote[K]>>((resolve, reject) => {
      const asked: Asked = {
        name,
        resolve: resolve as (value: unknown) => void,
        reject,
        onProgress: opts.onProgress as Asked["onProgress"],
        finished: opts.finished,
      };
      if (signal) {
        const onAbort = () => this.#giveUp(id, asked, signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        asked.unlisten = () => signal.removeEventListener("abort", onAbort);
      }
      this.#asked.set(id, asked);
      const msg: Message = { kind: "request", id, name, arg };
      if (opts.within !== undefined) msg.within = opts.within;
      try {
        this.target(true)?.postMessage(msg, opts.transfer);
      } catch (err) {
        this.#asked.delete(id);
        asked.unlisten?.();
        reject(err);
      }
    });
  }

  notify<K extends Name<Remote>>(
    name: K,
    ...[arg, transfer]: Args<Remote[K], readonly TransferListItem[]>
  ): void {
    this.target(true)?.postMessage({ kind: "notify", name, arg } satisfies Message, transfer);
  }

  /** Aborts every request being served and resolves once their handlers have settled. */
  async drain(): Promise<void> {
    const serving = [...this.#served.values()];
    for (const s of serving) s.controller.abort();
    await Promise.allSettled(serving.map((s) => s.done));
  }

  protected receive(msg: Message): void {
    switch (msg.kind) {
      case "request":
        return this.#serve(msg);
      case "notify":
        return void (this.handlers[msg.name] as ((arg: unknown) => unknown) | undefined)?.(msg.arg);
      case "cancel":
        return this.#served.get(msg.id)?.controller.abort();
      case "progress": {
        const onProgress = this.#asked.get(msg.id)?.onProgress;
        return onProgress && void Promise.resolve(onProgress(msg.value)).catch(() => undefined);
      }
      case "reply":
      case "error":
        return this.#answered(msg);
    }
  }

  /**
   * The other side is gone (its thread ended, or was ended): the requests it served are aborted
   * and their replies dropped; each request it had fails with `error(name)`.
   */
  protected lost(error: (name: string) => Error): void {
    for (const s of this.#served.values()) s.controller.abort();
    this.#served.clear();
    const asked = [...this.#asked.values()];
    const gaveUp = [...this.#gaveUp.values()];
    this.#asked.clear();
    this.#gaveUp.clear();
    for (const a of asked) {
      a.unlisten?.();
      a.reject(error(a.name));
    }
    for (const finished of [...asked.map((a) => a.finished), ...gaveUp]) finished?.();
  }

  #answered(msg: Extract<Message, { kind: "reply" | "error" }>): void {
    const asked = this.#asked.get(msg.id);
    const finished = asked ? asked.finished : this.#gaveUp.get(msg.id);
    this.#gaveUp.delete(msg.id);
    if (asked) {
      this.#end(msg.id, asked);
      if (msg.kind === "reply") asked.resolve(msg.value);
      else asked.reject(fromWire(msg.error, this.errors ?? NO_CLASSES));
    }
    finished?.();
    this.quiet();
  }

  #giveUp(id: number, asked: Asked, reason: unknown): void {
    this.#end(id, asked);
    if (asked.finished) this.#gaveUp.set(id, asked.finished);
    this.target(false)?.postMessage({ kind: "cancel", id } satisfies Message);
    asked.reject(reason);
    this.quiet();
  }

  /** A request answered or given up: so are those served for it. */
  #end(id: number, asked: Asked): void {
    this.#asked.delete(id);
    asked.unlisten?.();
    for (const s of asked.within ?? []) this.#served.get(s)?.controller.abort();
  }

  /**
   * Runs the handler of a request and posts its answer. A request made `within` one of ours is
   * aborted as soon as ours ends here, without waiting for the other side to cancel it.
   */
  #serve({ id, name, arg, within }: Extract<Message, { kind: "request" }>): void {
    const serving: Serving = { controller: new AbortController() };
    this.#served.set(id, serving);
    const parent = within === undefined ? undefined : this.#asked.get(within);
    if (parent) (parent.within ??= new Set()).add(id);
    let transfer: readonly TransferListItem[] = [];
    const live = () => this.#served.get(id) === serving;
    const answer = (msg: Message) => {
      if (!live()) return; // the other side is gone
      this.#served.delete(id);
      parent?.within?.delete(id);
      this.#post(msg, msg.kind === "reply" ? transfer : []);
    };
    const served: Served<unknown> = {
      id,
      signal: serving.controller.signal,
      progress: (value) => live() && this.#post({ kind: "progress", id, value }),
      transfer: (list) => void (transfer = list),
    };
    let result: unknown;
    try {
      const handler = this.handlers[name] as
        ((a: unknown, s: Served<unknown>) => unknown) | undefined;
      if (!handler) throw new Error(`Nothing here answers "${name}".`);
      result = handler(arg, served);
    } catch (err) {
      return answer({ kind: "error", id, error: toWire(err) });
    }
    if (!(result instanceof Promise)) return answer({ kind: "reply", id, value: result });
    serving.done = result.then(
      (value: unknown) => answer({ kind: "reply", id, value }),
      (err: unknown) => answer({ kind: "error", id, error: toWire(err) }),
    );
  }

  #post(msg: Message, transfer: readonly TransferListItem[] = []): void {
    this.target(false)?.postMessage(msg, transfer);
  }
}

const NO_CLASSES: ErrorClasses = { byName: new Map(), byCode: new Map() };
