/**
 * The live tools' heavy work in a thread of their own, off the MCP loop (issue "Bounded at every
 * edge": a 50 × 6 pubmed_cite blocked the loop 1.3–7 s, the parse of a 200-record EFetch reply a
 * few hundred ms, and every session with it; issue 45: the JATS of an article 30–90 ms, of the
 * longest some 1 s, a trend chart 20–30 ms, the first 0.3 s). Four kinds of work, in
 * ./live-worker.ts:
 * - citations (citation-js: loading it, building its style engines, rendering): one call at a
 *   time, record by record, at most MAX_WAITING_CITATIONS calls waiting here behind it. A call
 *   whose signal aborts rejects at once with the abort's reason; waiting, it is dropped, running,
 *   the thread is told to stop at its next record. If the thread dies, the calls it had fail with
 *   an InvariantError saying so (never a hang) and the next call starts a new thread.
 * - EFetch replies of PARSE_IN_THREAD_CHARS or more, parsed by parseEFetchFast there. A reply the
 *   thread fails to parse (or still had when it died) is parsed again here: the same articles, or
 *   the same error with its own class (UpstreamError, EntrezError, RateLimitError), as
 *   ./prepare-thread.ts in the corpus does.
 * - JATS full text of JATS_IN_THREAD_CHARS or more, parsed by parseJats (../literature/jats.ts)
 *   there, and every pubmed_trend chart (../pubmed/chart.ts: its cost does not depend on the
 *   years drawn, and Vega loads there, not here). One at a time, in the order sent. A call whose
 *   signal aborts rejects at once and, not yet started, is dropped there. Errors keep their class
 *   (the thread sends the code); if the thread dies, the call fails with an InvariantError: a
 *   reply that may have killed it is not tried again here.
 *
 * The thread starts on first use and stays (citation-js's engines, Vega, stay built) until it has
 * been idle IDLE_MS; it is referenced only while it has work, so it never keeps the process alive.
 * It runs at the process's priority: its work is a live call's (the corpus threads lower theirs).
 */
import type { Worker } from "node:worker_threads";
import { InvariantError, RateLimitError, UpstreamError, type ErrorCode } from "../errors.js";
import type { JatsDocument } from "../literature/fulltext-types.js";
import { parseJats as parseJatsHere } from "../literature/jats.js";
import { log } from "../log.js";
import type { YearCount } from "./chart.js";
import { startThread } from "../threads.js";
import type { BodyParser } from "../ncbi/client.js";
import type { CitationStyle } from "./citations.js";
import { parseEFetchFast } from "../ncbi/parse/efetch.js";
import type { Article } from "../ncbi/types.js";

export type ToLiveThread =
  | { type: "cite"; id: number; articles: readonly Article[]; styles: readonly CitationStyle[] }
  | { type: "parse"; id: number; xml: string }
  | { type: "jats"; id: number; xml: string; service: string }
  | { type: "chart"; id: number; query: string; counts: readonly YearCount[] }
  | { type: "cancel"; id: number };
export type FromLiveThread =
  | { id: number; ok: true; value: unknown }
  | {
      id: number;
      ok: false;
      message: string;
      stack?: string;
      /** An AppError's code and details, and its cause's message. */
      code?: ErrorCode;
      details?: Record<string, unknown> | null;
      cause?: string;
    };

/**
 * Calls waiting behind the one being formatted; one more is refused (RATE_LIMIT). A warm thread
 * formats a 50 × 6 call in about half a second, so the last of them would wait some 15 s: near
 * NCBI_DEADLINE_MS (20 s by default), past which waiting is pointless.
 */
export const MAX_WAITING_CITATIONS = 32;
/**
 * Replies shorter than this are parsed on the calling thread: about 2 ms of parsing at most
 * (the fast reader reads some 100 MB/s), less than a thread's round trip would save.
 */
export const PARSE_IN_THREAD_CHARS = 128 * 1024;
/**
 * JATS shorter than this is parsed on the calling thread, a few ms at most: parseJats reads only
 * some 1–6 KB a ms (it builds xml2js's ordered tree). That is front matter alone (a withheld
 * article) or an error; every real article (80–200 KB, up to a few MB) goes to the thread.
 */
export const JATS_IN_THREAD_CHARS = 8 * 1024;
/** Idle this long, the thread ends and frees its memory (citation-js and its engines). */
const IDLE_MS = 10 * 60_000;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** A parse to do again here when the thread fails it. */
  xml?: string;
  /** What the thread does for it, in the error if the thread dies ("formats citations"). */
  doing?: string;
}

/** The classes of what parseJats throws, rebuilt here from the code the thread sends. */
const ERROR_CLASSES: Partial<Record<ErrorCode, typeof UpstreamError | typeof RateLimitError>> = {
  UPSTREAM: UpstreamError,
  RATE_LIMIT: RateLimitError,
};

type Job = Extract<ToLiveThread, { type: "jats" | "chart" }>;

interface CiteJob {
  id: number;
  articles: readonly Article[];
  styles: readonly CitationStyle[];
}

export class LiveThread {
  #worker: Worker | undefined;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #waiting: CiteJob[] = [];
  /** The citation call the thread is formatting (its answer not yet back), if any. */
  #citing: number | undefined;
  #idle: NodeJS.Timeout | undefined;

  /** Citation calls waiting for the thread (not the one it formats). */
  get waitingCitations(): number {
    return this.#waiting.length;
  }

  /** True while the thread formats a citation call. */
  get citing(): boolean {
    return this.#citing !== undefined;
  }

  /** The thread's id (worker_threads threadId) while it runs. */
  get threadId(): number | undefined {
    return this.#worker?.threadId;
  }

  /** `formatCitations(article, styles)` of ./cite.ts for each article, in order, in the thread. */
  formatCitations<S extends CitationStyle>(
    articles: readonly Article[],
    styles: readonly S[],
    signal: AbortSignal,
  ): Promise<Record<S, string>[]> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (articles.length === 0) return Promise.resolve([]);
    if (this.#waiting.length >= MAX_WAITING_CITATIONS) {
      return Promise.reject(
        new RateLimitError(
          `${MAX_WAITING_CITATIONS} citation calls are already waiting to be formatted; retry in a few seconds.`,
        ),
      );
    }
    const id = this.#next++;
    return new Promise<Record<S, string>[]>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#waiting.findIndex((j) => j.id === id);
        if (at >= 0) this.#waiting.splice(at, 1);
        else if (this.#citing === id) this.#worker?.postMessage({ type: "cancel", id });
        this.#pending.delete(id);
        reject(signal.reason);
        this.#settled();
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const pending: Pending = {
        resolve: (v) => (
          signal.removeEventListener("abort", onAbort),
          resolve(v as Record<S, string>[])
        ),
        reject: (e) => (signal.removeEventListener("abort", onAbort), reject(e)),
      };
      this.#pending.set(id, pending);
      this.#waiting.push({ id, articles, styles });
      this.#nextCitation();
    });
  }

  /** parseEFetchFast of `xml`: in the thread for a long reply, with the same result or error. */
  async parseEFetch(xml: string): Promise<Article[]> {
    if (xml.length < PARSE_IN_THREAD_CHARS) return parseEFetchFast(xml);
    const id = this.#next++;
    return new Promise<Article[]>((resolve, reject) => {
      this.#pending.set(id, { resolve: (v) => resolve(v as Article[]), reject, xml });
      this.#post({ type: "parse", id, xml });
    });
  }

  /**
   * parseJats of ../literature/jats.ts (`service` names the sender in its errors): in the thread
   * for a long reply, with the same document or error.
   */
  async parseJats(xml: string, service: string, signal?: AbortSignal): Promise<JatsDocument> {
    if (xml.length < JATS_IN_THREAD_CHARS) return parseJatsHere(xml, service);
    return this.#job({ type: "jats", id: this.#next++, xml, service }, "reads full text", signal);
  }

  /** renderTrendSvg of ../pubmed/chart.ts (the SVG document), in the thread. */
  renderTrendSvg(
    query: string,
    counts: readonly YearCount[],
    signal?: AbortSignal,
  ): Promise<string> {
    return this.#job({ type: "chart", id: this.#next++, query, counts }, "draws charts", signal);
  }

  /** Ends the thread; citations, JATS and charts fail, EFetch parses are done here. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#waiting.length = 0;
    this.#stopped(worker, "was closed");
    await worker.terminate();
  }

  /** Ends the thread the way a crash would (tests of the failure path). */
  async crashForTests(): Promise<void> {
    await this.#worker?.terminate();
  }

  /** A JATS or chart job; its call's abort rejects it at once and drops it there if waiting. */
  #job<T>(msg: Job, doing: string, signal: AbortSignal | undefined): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.#pending.delete(msg.id);
        this.#worker?.postMessage({ type: "cancel", id: msg.id });
        reject(signal?.reason);
        this.#settled();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      this.#pending.set(msg.id, {
        resolve: (v) => (done(), resolve(v as T)),
        reject: (e) => (done(), reject(e)),
        doing,
      });
      this.#post(msg);
    });
  }

  #nextCitation(): void {
    if (this.#citing !== undefined) return;
    const job = this.#waiting.shift();
    if (!job) return;
    this.#citing = job.id;
    this.#post({ type: "cite", id: job.id, articles: job.articles, styles: job.styles });
  }

  #post(msg: ToLiveThread): void {
    clearTimeout(this.#idle);
    const worker = this.#worker ?? this.#start();
    worker.ref();
    worker.postMessage(msg);
  }

  #start(): Worker {
    const worker = startThread("live-worker", import.meta.url, undefined, { unref: true });
    worker.on("message", (msg: FromLiveThread) => this.#receive(msg));
    worker.on("error", (err) => log.error("live thread failed", { error: err.message }));
    worker.once("exit", (code) => {
      if (this.#worker === worker) this.#stopped(worker, `stopped (exit code ${code})`);
    });
    this.#worker = worker;
    return worker;
  }

  #receive(msg: FromLiveThread): void {
    if (msg.id === this.#citing) this.#citing = undefined;
    const p = this.#pending.get(msg.id);
    this.#pending.delete(msg.id);
    if (p) {
      if (msg.ok) p.resolve(msg.value);
      else if (p.xml !== undefined) this.#parseHere(p);
      else p.reject(rebuilt(msg));
    }
    this.#nextCitation();
    this.#settled();
  }

  /**
   * The thread is gone: the citation call it formatted and its JATS and charts fail, its EFetch
   * parses are done here; citation calls still waiting go to a new thread.
   */
  #stopped(worker: Worker, how: string): void {
    if (this.#worker === worker) this.#worker = undefined;
    clearTimeout(this.#idle);
    this.#citing = undefined;
    const waiting = new Set(this.#waiting.map((j) => j.id));
    for (const [id, p] of this.#pending) {
      if (waiting.has(id)) continue;
      this.#pending.delete(id);
      if (p.xml !== undefined) this.#parseHere(p);
      else {
        p.reject(
          new InvariantError(
            `The thread that ${p.doing ?? "formats citations"} ${how} before answering; retry the call.`,
          ),
        );
      }
    }
    this.#nextCitation();
  }

  #parseHere(p: Pending): void {
    try {
      p.resolve(parseEFetchFast(p.xml ?? ""));
    } catch (err) {
      p.reject(err);
    }
  }

  /** With no work left the thread is unreferenced and, idle IDLE_MS, ended. */
  #settled(): void {
    const worker = this.#worker;
    if (!worker || this.#pending.size > 0 || this.#citing !== undefined) return;
    worker.unref();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => void this.close(), IDLE_MS).unref();
  }
}

/** The error the thread sent: of its own class when it is one of ERROR_CLASSES. */
function rebuilt(msg: Extract<FromLiveThread, { ok: false }>): Error {
  const Class = msg.code === undefined ? undefined : ERROR_CLASSES[msg.code];
  const opts = msg.cause === undefined ? undefined : { cause: new Error(msg.cause) };
  if (Class) return new Class(msg.message, msg.details ?? null, opts);
  return Object.assign(new Error(msg.message, opts), msg.stack ? { stack: msg.stack } : {});
}

let current: LiveThread | undefined;

/** The process's live thread (started on its first use). */
export function liveThread(): LiveThread {
  return (current ??= new LiveThread());
}

/**
 * The parsed detail levels read the cached parse, not the cached XML (issue 12, item 4). The
 * reader is the corpus sync's (parseEFetchFast: the same articles and errors as xml2js, about ten
 * times faster); a long reply is read in the live thread, off the MCP loop.
 */
export const EFETCH_ARTICLES: BodyParser<Article[]> = {
  name: "articles",
  parse: (xml) => liveThread().parseEFetch(xml),
};
