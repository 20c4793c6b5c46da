/**
 * The only code that talks to NCBI E-utilities. Every call passes one RateLimiter (NCBI_MAX_RPS
 * over any sliding second, a concurrency cap, a shared cool-down after 429), is retried with
 * exponential backoff and full jitter on transient trouble, and honours the caller's signal (the
 * tool call's deadline or cancel) at every wait. Identical idempotent calls are answered from an
 * in-memory cache. NCBI usage rules: https://www.ncbi.nlm.nih.gov/books/NBK25497/
 */
import type { Config } from "../config.js";
import { AppError, RateLimitError } from "../errors.js";
import { log } from "../log.js";
import type { SharedBudget } from "./budget.js";
import { ResponseCache, cacheKey, cacheTtlMs } from "./cache.js";
import {
  classifyReply,
  connectionFailure,
  deadlinePassed,
  expectedFormat,
  retriesExhausted,
  timeoutFailure,
  type BodyFormat,
  type Failure,
  type Outcome,
} from "./detect.js";
import { CoolDownError, RateLimiter, setDeadline, sleep, type Ticket } from "./limiter.js";

export type Utility =
  "einfo" | "esearch" | "esummary" | "efetch" | "elink" | "espell" | "ecitmatch" | "epost";

export type Params = Record<string, string | number | boolean | string[] | undefined>;

export interface CallOptions {
  /** Cancels the call, including its wait in the queue; a TimeoutError reason means the tool's deadline passed. */
  signal?: AbortSignal;
  /** Skip the response cache for this call. */
  noCache?: boolean;
}

export interface EutilsResponse {
  body: string;
  /** The request URL with api_key removed (safe to echo back). */
  url: string;
  method: "GET" | "POST";
  fromCache: boolean;
}

export interface EutilsInfo {
  maxRps: number;
  apiKeyInUse: boolean;
  tool: string;
  queueSize: number;
  pending: number;
  requestsStarted: number;
  lastContact: string | null;
  cache: { hits: number; misses: number; entries: number };
}

export interface ClientDeps {
  fetch?: typeof fetch;
  /** Wall clock (ms epoch) for cache expiry and lastContact. */
  now?: () => number;
  /** First backoff step in ms (default 1000); tests shrink it. */
  backoffBaseMs?: number;
  /** Uniform [0,1) source for the jitter. */
  random?: () => number;
  /** NCBI's budget shared with other processes (replicas on one database); see budget.ts. */
  budget?: SharedBudget;
}

/** Paths as NCBI documents them (https://www.ncbi.nlm.nih.gov/books/NBK25499/): ECitMatch is a .cgi. */
export const ENDPOINTS: Readonly<Record<Utility, string>> = {
  einfo: "einfo.fcgi",
  esearch: "esearch.fcgi",
  esummary: "esummary.fcgi",
  efetch: "efetch.fcgi",
  elink: "elink.fcgi",
  espell: "espell.fcgi",
  epost: "epost.fcgi",
  ecitmatch: "ecitmatch.cgi",
};

/** NCBI asks for POST when a URL would be long; many servers cut URLs near 2,000 characters. */
const MAX_GET_URL = 2000;
const MAX_GET_IDS = 200;

interface Call {
  utility: Utility;
  endpoint: string;
  /** Public parameters (tool, email, no api_key), as sent apart from the key. */
  query: [string, string][];
  method: "GET" | "POST";
  format: BodyFormat;
  publicUrl: string;
}

export class EutilsClient {
  private readonly limiter: RateLimiter;
  private readonly cache: ResponseCache<Omit<EutilsResponse, "fromCache">>;
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly backoffBaseMs: number;
  private readonly random: () => number;
  private lastContact: number | null = null;

  constructor(
    private readonly cfg: Config["ncbi"],
    deps: ClientDeps = {},
  ) {
    this.limiter = new RateLimiter({ maxRps: cfg.maxRps, shared: deps.budget });
    this.now = deps.now ?? Date.now;
    this.cache = new ResponseCache(cfg.cacheMaxBytes, this.now);
    this.fetchFn = deps.fetch ?? fetch;
    this.backoffBaseMs = deps.backoffBaseMs ?? 1000;
    this.random = deps.random ?? Math.random;
  }

  /** The URL NCBI is asked for, with tool/email but never api_key; safe to show and log. */
  publicUrl(utility: Utility, params: Params): string {
    return `${this.endpoint(utility)}?${new URLSearchParams(this.publicParams(params))}`;
  }

  async request(utility: Utility, params: Params, opts: CallOptions = {}): Promise<EutilsResponse> {
    const query = this.publicParams(params);
    const publicUrl = `${this.endpoint(utility)}?${new URLSearchParams(query)}`;
    const key = cacheKey(utility, query);
    const ttl = cacheTtlMs(utility, params, this.cfg.cacheTtlSeconds);
    if (ttl > 0 && !opts.noCache) {
      const hit = this.cache.get(key);
      if (hit) return { ...hit, fromCache: true };
    }
    const method: "GET" | "POST" =
      utility !== "ecitmatch" && needsPost(publicUrl, params) ? "POST" : "GET";
    const call: Call = {
      utility,
      endpoint: this.endpoint(utility),
      query,
      method,
      format: expectedFormat(utility, params),
      publicUrl,
    };
    // Without a caller's signal the configured per-call deadline still applies.
    const signal =
      opts.signal ??
      setDeadline(
        AbortSignal.timeout(this.cfg.deadlineMs),
        performance.now() + this.cfg.deadlineMs,
      );
    const body = await this.withRetries(call, signal);
    const response = { body, url: publicUrl, method };
    if (ttl > 0) this.cache.set(key, response, ttl, 2 * (body.length + key.length));
    return { ...response, fromCache: false };
  }

  info(): EutilsInfo {
    const { hits, misses, entries } = this.cache.stats();
    return {
      maxRps: this.cfg.maxRps,
      apiKeyInUse: Boolean(this.cfg.apiKey),
      tool: this.cfg.tool,
      queueSize: this.limiter.size,
      pending: this.limiter.pending,
      requestsStarted: this.limiter.started,
      lastContact: this.lastContact === null ? null : new Date(this.lastContact).toISOString(),
      cache: { hits, misses, entries },
    };
  }

  /** Backoff sleeps happen outside the queue, so a waiting retry never holds a slot. */
  private async withRetries(call: Call, signal: AbortSignal): Promise<string> {
    let last: Failure | undefined;
    for (let attempt = 1; ; attempt++) {
      let outcome: Outcome;
      try {
        outcome = await this.limiter.run((t) => this.attempt(call, attempt, signal, t), signal);
      } catch (err) {
        if (err instanceof CoolDownError) throw this.coolingPastDeadline(call.utility, err.waitMs);
        if (err instanceof AppError || !signal.aborted) throw err;
        throw this.stopped(signal, last);
      }
      if (outcome.ok) {
        this.limiter.accepted();
        return outcome.body;
      }
      last = outcome.failure;
      if (last.rateLimited) {
        const pause = last.retryAfterMs ?? this.backoffCeiling(attempt);
        log.warn("NCBI rate limit hit; pausing all requests", { utility: call.utility, ms: pause });
        this.limiter.coolDown(pause);
      }
      if (attempt > this.cfg.maxRetries) throw retriesExhausted(call.utility, last, attempt);
      try {
        await sleep(this.random() * this.backoffCeiling(attempt), signal);
      } catch {
        throw this.stopped(signal, last);
      }
    }
  }

  private async attempt(
    call: Call,
    attempt: number,
    signal: AbortSignal,
    ticket: Ticket,
  ): Promise<Outcome> {
    const started = performance.now();
    const timeout = AbortSignal.timeout(this.cfg.timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    const sent = new URLSearchParams(call.query);
    if (this.cfg.apiKey) sent.set("api_key", this.cfg.apiKey);
    const headers = ticket.headers;
    let status: number | undefined;
    let outcome: Outcome | undefined;
    try {
      const res =
        call.method === "GET"
          ? await this.fetchFn(`${call.endpoint}?${sent}`, { headers, signal: both })
          : await this.fetchFn(call.endpoint, {
              method: "POST",
              body: sent,
              headers,
              signal: both,
            });
      status = res.status;
      this.lastContact = this.now();
      const body = await res.text();
      outcome = classifyReply({
        ...call,
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        body,
        redact: (t: string) => this.redact(t),
      });
      return outcome;
    } catch (err) {
      if (err instanceof AppError || signal.aborted) throw err;
      outcome = {
        ok: false,
        failure: timeout.aborted
          ? timeoutFailure(this.cfg.timeoutMs)
          : connectionFailure(err, status),
      };
      return outcome;
    } finally {
      log.debug("ncbi request", {
        url: call.publicUrl,
        method: call.method,
        status: status ?? null,
        ms: Math.round(performance.now() - started),
        attempt,
        outcome: outcome === undefined ? "error" : outcome.ok ? "ok" : outcome.failure.what,
      });
    }
  }

  /** The caller's signal ended the call: the tool deadline passed (TimeoutError), or a cancel. */
  private stopped(signal: AbortSignal, last: Failure | undefined): unknown {
    const reason: unknown = signal.reason;
    // By name, not instanceof: a DOMException may come from another realm (vm contexts, jest).
    const deadline = (reason as { name?: unknown } | undefined)?.name === "TimeoutError";
    return deadline ? deadlinePassed(this.cfg.deadlineMs, last) : reason;
  }

  /** Nothing was sent: NCBI's pause outlasts the call's deadline, so say when to come back. */
  private coolingPastDeadline(utility: Utility, waitMs: number): RateLimitError {
    const seconds = Math.ceil(waitMs / 1000);
    const retryAt = new Date(this.now() + waitMs).toISOString();
    return new RateLimitError(
      `NCBI asked for a pause after a rate-limit refusal; it accepts requests again at ${retryAt} (in ${seconds} s), after this call's deadline (NCBI_DEADLINE_MS), so nothing was sent. Try again then.`,
      { utility, retryAfterSeconds: seconds, retryAt },
    );
  }

  /** base·2^(attempt−1), capped at 16 bases; the sleep is a uniform draw below it (full jitter). */
  private backoffCeiling(attempt: number): number {
    return this.backoffBaseMs * 2 ** Math.min(attempt - 1, 4);
  }

  private endpoint(utility: Utility): string {
    return `${this.cfg.baseUrl}/${ENDPOINTS[utility]}`;
  }

  /** NCBI requires tool (and asks for email) on every request; api_key is added only when sending. */
  private publicParams(params: Params): [string, string][] {
    const out = flat(params).filter(([k]) => !["tool", "email", "api_key"].includes(k));
    out.push(["tool", this.cfg.tool]);
    if (this.cfg.email) out.push(["email", this.cfg.email]);
    return out;
  }

  private redact(text: string): string {
    const key = this.cfg.apiKey;
    return key ? text.split(key).join("[redacted]") : text;
  }
}

function flat(params: Params): [string, string][] {
  return Object.entries(params)
    .filter((e): e is [string, NonNullable<Params[string]>] => e[1] !== undefined)
    .map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]);
}

function needsPost(publicUrl: string, params: Params): boolean {
  const ids = Array.isArray(params.id)
    ? params.id.length
    : String(params.id ?? "").split(",").length;
  return publicUrl.length > MAX_GET_URL || ids > MAX_GET_IDS;
}
