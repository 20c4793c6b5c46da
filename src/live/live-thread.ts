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
 * - EFetch replies of PARSE_IN_THREAD_CHARS or more, parsed by parseEFetch
 *   (../ncbi/parse/efetch.ts) there. A reply the thread fails to parse (or still had when it died)
 *   is parsed again here: the same articles, or the same error with its own class (UpstreamError,
 *   EntrezError, RateLimitError), as ../corpus/prepare-thread.ts does.
 * - JATS full text of JATS_IN_THREAD_CHARS or more, parsed by parseJats (../jats/parse.ts)
 *   there, and every pubmed_trend chart (./chart.ts: its cost does not depend on the
 *   years drawn, and Vega loads there, not here). One at a time, in the order sent. A call whose
 *   signal aborts rejects at once and, not yet started, is dropped there. Errors keep their class
 *   (the thread sends the code); if the thread dies, the call fails with an InvariantError: a
 *   reply that may have killed it is not tried again here.
 *
 * The thread starts on first use and stays (citation-js's engines, Vega, stay built) until it has
 * been idle IDLE_MS; it is referenced only while it has work, so it never keeps the process alive.
 * It runs at the process's priority: its work is a live call's (the corpus threads lower theirs).
 * Requests, cancels, errors and the thread's start, end and idling go through the thread channel
 * (../net/channel.ts, ../net/thread-channel.ts).
 */
import { ERROR_CLASSES, InvariantError, RateLimitError } from "../errors.js";
import { parseJats as parseJatsHere } from "../jats/parse.js";
import { readJatsWith } from "../jats/read.js";
import type { JatsDocument } from "../jats/types.js";
import { log } from "../log.js";
import type { Served } from "../net/channel.js";
import { ThreadChannel } from "../net/thread-channel.js";
import type { YearCount } from "./chart.js";
import { startThread } from "../threads.js";
import { readArticlesWith } from "../ncbi/articles.js";
import type { CitationStyle } from "./citations.js";
import { parseEFetch } from "../ncbi/parse/efetch.js";
import type { Article } from "../ncbi/types.js";

/** What the thread answers (../net/channel.ts); each stops early when its signal aborts. */
export type LiveApi = {
  /** One call at a time (the caller waits for the answer before it sends the next). */
  cite(
    job: { articles: readonly Article[]; styles: readonly CitationStyle[] },
    served: Served,
  ): Promise<Record<string, string>[]>;
  parse(xml: string): Article[];
  jats(job: { xml: string; service: string }, served: Served): Promise<JatsDocument>;
  chart(job: { query: string; counts: readonly YearCount[] }, served: Served): Promise<string>;
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

/** What the thread does for each request, in the error if it dies first. */
const DOING: Record<keyof LiveApi, string> = {
  cite: "formats citations",
  parse: "parses EFetch replies",
  jats: "reads full text",
  chart: "draws charts",
};

/** A citation call waiting here for the thread to finish the one before it. */
interface CiteJob {
  articles: readonly Article[];
  styles: readonly CitationStyle[];
  signal: AbortSignal;
  resolve: (value: Record<string, string>[]) => void;
  reject: (err: unknown) => void;
  /** Drops the job from the queue (its signal aborted while it waited). */
  onAbort: () => void;
}

export class LiveThread {
  readonly #waiting: CiteJob[] = [];
  /** Whether the thread is formatting a citation call (its answer not yet back). */
  #citing = false;
  readonly #channel = new ThreadChannel<LiveApi>({
    start: () => startThread("live-worker", import.meta.url, undefined, { unref: true }),
    errors: ERROR_CLASSES,
    stopped: (code, name) =>
      new InvariantError(
        `The thread that ${DOING[name as keyof LiveApi]} ${
          code === null ? "was closed" : `stopped (exit code ${code})`
        } before answering; retry the call.`,
      ),
    failed: (err) => log.error("live thread failed", { error: err.message }),
    idle: { ms: IDLE_MS, unref: true, busy: () => this.#citing || this.#waiting.length > 0 },
  });

  /** Citation calls waiting for the thread (not the one it formats). */
  get waitingCitations(): number {
    return this.#waiting.length;
  }

  /** True while the thread formats a citation call. */
  get citing(): boolean {
    return this.#citing;
  }

  /** The thread's id (worker_threads threadId) while it runs. */
  get threadId(): number | undefined {
    return this.#channel.threadId;
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
    return new Promise<Record<S, string>[]>((resolve, reject) => {
      const job: CiteJob = {
        articles,
        styles,
        signal,
        resolve: resolve as CiteJob["resolve"],
        reject,
        onAbort: () => {
          this.#waiting.splice(this.#waiting.indexOf(job), 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener("abort", job.onAbort, { once: true });
      this.#waiting.push(job);
      this.#nextCitation();
    });
  }

  /** parseEFetch of `xml`: in the thread for a long reply, with the same result or error. */
  async parseEFetch(xml: string): Promise<Article[]> {
    if (xml.length < PARSE_IN_THREAD_CHARS) return parseEFetch(xml);
    // A reply the thread fails to parse, or had when it ended, is parsed here: the same error.
    return this.#channel.request("parse", xml).catch(() => parseEFetch(xml));
  }

  /**
   * parseJats of ../jats/parse.ts (`service` names the sender in its errors): in the thread for a
   * long reply, with the same document or error.
   */
  async parseJats(xml: string, service: string, signal?: AbortSignal): Promise<JatsDocument> {
    if (xml.length < JATS_IN_THREAD_CHARS) return parseJatsHere(xml, service);
    return this.#channel.request("jats", { xml, service }, { signal });
  }

  /** renderTrendSvg of ./chart.ts (the SVG document), in the thread. */
  renderTrendSvg(
    query: string,
    counts: readonly YearCount[],
    signal?: AbortSignal,
  ): Promise<string> {
    return this.#channel.request("chart", { query, counts }, { signal });
  }

  /**
   * Ends the thread; citations (the one being formatted and those waiting for it), JATS and
   * charts fail, EFetch parses are done here.
   */
  async close(): Promise<void> {
    for (const job of this.#waiting.splice(0)) {
      job.signal.removeEventListener("abort", job.onAbort);
      job.reject(
        new InvariantError(
          `The thread that ${DOING.cite} was closed before answering; retry the call.`,
        ),
      );
    }
    await this.#channel.close();
  }

  /** Ends the thread the way a crash would (tests of the failure path). */
  crashForTests(): Promise<void> {
    return this.#channel.terminate();
  }

  /**
   * Sends the next waiting citation call unless one is being formatted. Given up, the one being
   * formatted still holds the thread until it answers (it stops at its next record); if the
   * thread dies, the calls still waiting go to a new one.
   */
  #nextCitation(): void {
    if (this.#citing) return;
    const job = this.#waiting.shift();
    if (!job) return;
    job.signal.removeEventListener("abort", job.onAbort);
    this.#citing = true;
    const finished = () => {
      this.#citing = false;
      this.#nextCitation();
    };
    const { articles, styles, signal } = job;
    this.#channel
      .request("cite", { articles, styles }, { signal, finished })
      .then(job.resolve, job.reject);
  }
}

let current: LiveThread | undefined;

/** The process's live thread (started on its first use). */
export function liveThread(): LiveThread {
  return (current ??= new LiveThread());
}

// Long EFetch replies and JATS articles of the live tools are read in this thread, off the MCP
// loop (src/ncbi/articles.ts and src/jats/read.ts, parts below this one, ask through these).
readArticlesWith((xml) => liveThread().parseEFetch(xml));
readJatsWith((xml, service, signal) => liveThread().parseJats(xml, service, signal));
