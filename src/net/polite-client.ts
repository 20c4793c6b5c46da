/**
 * The one polite HTTP client for every outside service (NCBI E-utilities and ID Converter through
 * EutilsClient, Europe PMC, Unpaywall, PubTator through src/net/clients.ts).
 *
 *   const c = new PoliteClient({ name: "Europe PMC", id: "europepmc", baseUrlVar: "EUROPEPMC_BASE_URL",
 *     baseUrl, maxRps: 10, timeoutMs, deadlineMs, maxRetries, cache });
 *   const { status, body, url } = await c.request("search", { query, format: "json" },
 *     { signal, accept: "json", label: "search", okStatuses: [404] });
 *
 * Every request passes a RateLimiter (its own, or one shared with other clients: the ID Converter
 * shares NCBI's), is retried with exponential backoff and full jitter on 429, 408/5xx, timeouts,
 * dropped connections, HTML pages and empty or cut-off bodies (after a 429 the limiter pauses
 * every request to that service for Retry-After, probing now and then), and honours the caller's
 * signal at every wait — the tool call's deadline (setDeadline, registered by src/tools/tool.ts)
 * or a cancel. Without a signal, `deadlineMs` bounds the call. Replies the classifier accepts are
 * returned with their status (2xx, or one of `okStatuses`); others throw RateLimitError /
 * UpstreamError naming the service. Returned URLs never carry `secretParams` (API keys, emails),
 * and those values are redacted from any text the service echoes into an error.
 */
import { AppError } from "../errors.js";
import type { ResponseCache } from "./cache.js";
import { cacheKey } from "./cache.js";
import {
  BudgetSaturatedError,
  CoolDownError,
  RateLimiter,
  setDeadline,
  type Ticket,
} from "./limiter.js";
import { sleep } from "../sleep.js";
import { log } from "../log.js";
import { classifyServiceReply, type ServiceReply } from "./body.js";
import {
  budgetPastDeadline,
  connectionFailure,
  coolingPastDeadline,
  deadlinePassed,
  queuedPastDeadline,
  retriesExhausted,
  timeoutFailure,
  type BodyFormat,
  type Failure,
  type Outcome,
  type ServiceInfo,
} from "./failures.js";

export type Params = Record<string, string | number | boolean | string[] | undefined>;

/** What the cache keeps of a reply. */
export interface CachedReply {
  status: number;
  body: string;
  url: string;
  method: "GET" | "POST";
}

export interface ServiceResponse extends CachedReply {
  fromCache: boolean;
  /** The reply's cache key when the cache holds it (for values derived from it), else undefined. */
  cacheKey?: string;
}

/** A reply as UTF-8 bytes (`requestBytes`): for another thread to decode, never cached. */
export interface BytesResponse {
  status: number;
  /**
   * The body's bytes, in shared memory of their own (a SharedArrayBuffer): posted to another
   * thread, and on from there, they are shared, never copied.
   */
  bytes: Uint8Array<SharedArrayBuffer>;
  url: string;
  method: "GET" | "POST";
}

export interface PoliteClientOptions extends ServiceInfo {
  /** Paths are joined to it with "/"; an empty path requests the base URL itself. */
  baseUrl: string;
  /** Most requests started in any sliding second (ignored when `limiter` is given). */
  maxRps: number;
  /** Most requests in flight at once; defaults to maxRps. */
  concurrency?: number;
  timeoutMs: number;
  /** Bounds a call made without a signal (a tool call's signal carries its own deadline). */
  deadlineMs: number;
  maxRetries: number;
  /** A limiter shared with another client (NCBI's E-utilities and ID Converter share one). */
  limiter?: RateLimiter;
  /** Response cache (may be shared; keys carry the service id) and the TTL of each request. */
  cache?: ResponseCache<CachedReply>;
  cacheTtlMs?: (path: string, params: Params) => number;
  /** What a cache key starts with (then the sorted parameters); default "<id>:<path>". */
  cacheScope?: (path: string, label: string | undefined) => string;
  /** Sorts a reply into success, retryable failure, or thrown error; default classifyServiceReply. */
  classify?: (reply: ServiceReply) => Outcome;
  /** Sent with every request and shown in returned URLs (NCBI's tool and email). */
  publicParams?: [string, string][];
  /** Sent with every request, never shown or logged (NCBI's api_key, Unpaywall's email). */
  secretParams?: [string, string][];
  /** Parameter names callers may not set (the client's identity: tool, email, api_key). */
  reservedParams?: string[];
  /** Error details naming what failed; default `{ service: id }`. */
  details?: (label: string | undefined) => Record<string, unknown>;
}

export interface RequestOptions {
  /** Cancels the call, including its wait in the queue; a TimeoutError reason means the tool's deadline passed. */
  signal?: AbortSignal;
  method?: "GET" | "POST";
  /** The body format a success has (checked for truncation; sent as Accept). Default json. */
  accept?: BodyFormat;
  /** Named in messages and logs ("esearch", "search", "fullTextXML"). */
  label?: string;
  /** Non-2xx statuses whose bodies the caller reads (e.g. 404 "unknown DOI"), returned, not thrown. */
  okStatuses?: readonly number[];
  /** An empty 2xx body is an answer, not a failed reply. */
  emptyOk?: boolean;
  /** Skip the response cache for this call. */
  noCache?: boolean;
  /** This request's cache TTL in ms, overriding the client's `cacheTtlMs`. */
  ttlMs?: number;
}

export interface ClientDeps {
  fetch?: typeof fetch;
  /** Wall clock (ms epoch) for cache expiry and lastContact. */
  now?: () => number;
  /** First backoff step in ms (default 1000); tests shrink it. */
  backoffBaseMs?: number;
  /** Uniform [0,1) source for the jitter. */
  random?: () => number;
}

const ACCEPT: Record<BodyFormat, string> = {
  json: "application/json",
  xml: "application/xml, text/xml;q=0.9",
  text: "text/plain",
};

interface Call {
  path: string;
  label: string | undefined;
  endpoint: string;
  query: [string, string][];
  method: "GET" | "POST";
  format: BodyFormat;
  publicUrl: string;
  okStatuses: readonly number[];
  emptyOk: boolean;
  /** Read as bytes (requestBytes): the classifier sees the head and tail of a long body only. */
  bytes?: boolean;
}

interface Attempt {
  outcome: Outcome;
  status: number;
  bytes?: Uint8Array<SharedArrayBuffer>;
}

/** A reply read: its text (or, `partial`, its head and tail) and, asked for, its bytes. */
interface ReadBody {
  body: string;
  bytes?: Uint8Array<SharedArrayBuffer>;
  partial?: boolean;
}

export class PoliteClient {
  readonly limiter: RateLimiter;
  readonly service: ServiceInfo;
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly backoffBaseMs: number;
  private readonly random: () => number;
  private readonly classify: (reply: ServiceReply) => Outcome;
  private contact: number | null = null;

  constructor(
    private readonly opts: PoliteClientOptions,
    deps: ClientDeps = {},
  ) {
    this.service = { name: opts.name, id: opts.id, baseUrlVar: opts.baseUrlVar };
    this.limiter =
      opts.limiter ?? new RateLimiter({ maxRps: opts.maxRps, concurrency: opts.concurrency });
    this.fetchFn = deps.fetch ?? fetch;
    this.now = deps.now ?? Date.now;
    this.backoffBaseMs = deps.backoffBaseMs ?? 1000;
    this.random = deps.random ?? Math.random;
    this.classify = opts.classify ?? classifyServiceReply;
  }

  /** The URL for `path` and `params` as returned to callers: public parameters only. */
  publicUrl(path: string, params: Params = {}): string {
    const query = new URLSearchParams(this.publicQuery(params)).toString();
    return query ? `${this.endpoint(path)}?${query}` : this.endpoint(path);
  }

  /** ms epoch of the last reply from this service, or null. */
  get lastContact(): number | null {
    return this.contact;
  }

  async request(
    path: string,
    params: Params = {},
    o: RequestOptions = {},
  ): Promise<ServiceResponse> {
    const call = this.call(path, params, o);
    const { query, method } = call;
    const cache = this.opts.cache;
    const fixed = new Set((this.opts.publicParams ?? []).map(([k]) => k));
    const scope = this.opts.cacheScope?.(path, o.label) ?? `${this.opts.id}:${path}`;
    const key = cacheKey(
      scope,
      query.filter(([k]) => !fixed.has(k)),
    );
    const ttl = cache ? (o.ttlMs ?? this.opts.cacheTtlMs?.(path, params) ?? 0) : 0;
    if (cache && ttl > 0 && !o.noCache) {
      const hit = cache.get(key);
      if (hit) return { ...hit, fromCache: true, cacheKey: key };
    }
    const { body, status } = await this.withRetries(call, this.signal(o));
    const reply: CachedReply = { status, body, url: call.publicUrl, method };
    if (cache && ttl > 0) {
      cache.set(key, reply, ttl, 2 * (body.length + key.length));
      return { ...reply, fromCache: false, cacheKey: key };
    }
    return { ...reply, fromCache: false };
  }

  /**
   * `request` for a reply of megabytes that another thread reads (a sync's EFetch batch): its
   * bytes as they came, never decoded into a string here and never cached. Checked as `request`
   * checks a reply, on the whole body up to WHOLE_TEXT bytes and on its head and tail beyond.
   */
  async requestBytes(
    path: string,
    params: Params = {},
    o: Omit<RequestOptions, "noCache" | "ttlMs"> = {},
  ): Promise<BytesResponse> {
    const call = { ...this.call(path, params, o), bytes: true };
    const { bytes, status } = await this.withRetries(call, this.signal(o));
    return {
      status,
      bytes: bytes ?? new Uint8Array(new SharedArrayBuffer(0)),
      url: call.publicUrl,
      method: call.method,
    };
  }

  private call(path: string, params: Params, o: RequestOptions): Call {
    return {
      path,
      label: o.label,
      endpoint: this.endpoint(path),
      query: this.publicQuery(params),
      method: o.method ?? "GET",
      format: o.accept ?? "json",
      publicUrl: this.publicUrl(path, params),
      okStatuses: o.okStatuses ?? [],
      emptyOk: o.emptyOk ?? false,
    };
  }

  /** The caller's signal; without one the configured per-call deadline still applies. */
  private signal(o: RequestOptions): AbortSignal {
    return (
      o.signal ??
      setDeadline(
        AbortSignal.timeout(this.opts.deadlineMs),
        performance.now() + this.opts.deadlineMs,
      )
    );
  }

  /** Removes every secret parameter's value from `text` (service error bodies may echo them). */
  redact(text: string): string {
    let out = text;
    for (const [, value] of this.opts.secretParams ?? []) {
      if (value) out = out.split(value).join("[redacted]");
    }
    return out;
  }

  private details(label: string | undefined): Record<string, unknown> {
    return this.opts.details?.(label) ?? { service: this.opts.id };
  }

  /** Backoff sleeps happen outside the queue, so a waiting retry never holds a slot. */
  private async withRetries(
    call: Call,
    signal: AbortSignal,
  ): Promise<{ body: string; status: number; bytes?: Uint8Array<SharedArrayBuffer> }> {
    let last: Failure | undefined;
    for (let attempt = 1; ; attempt++) {
      let result: Attempt;
      let began = false;
      try {
        result = await this.limiter.run((t) => {
          began = true;
          return this.attempt(call, attempt, signal, t);
        }, signal);
      } catch (err) {
        const details = this.details(call.label);
        if (err instanceof CoolDownError) {
          throw coolingPastDeadline(this.service, err.waitMs, this.now(), details);
        }
        if (err instanceof BudgetSaturatedError) {
          throw budgetPastDeadline(
            this.service,
            this.limiter.maxRps,
            err.waitMs,
            err.queued,
            details,
          );
        }
        if (err instanceof AppError || !signal.aborted) throw err;
        if (!began && last === undefined && timedOut(signal)) {
          const waiting = this.limiter.size + this.limiter.pending;
          throw queuedPastDeadline(
            this.service,
            this.opts.deadlineMs,
            this.limiter.maxRps,
            waiting,
            details,
          );
        }
        throw this.stopped(call, signal, last);
      }
      const { outcome } = result;
      if (outcome.ok) {
        this.limiter.accepted();
        return { body: outcome.body, status: result.status, bytes: result.bytes };
      }
      last = outcome.failure;
      if (last.rateLimited) {
        const pause = last.retryAfterMs ?? this.backoffCeiling(attempt);
        log.warn(`${this.service.name} rate limit hit; pausing all requests to it`, {
          service: this.opts.id,
          label: call.label,
          ms: pause,
        });
        this.limiter.coolDown(pause);
      }
      if (attempt > this.opts.maxRetries) {
        throw retriesExhausted(this.service, call.label, last, attempt, this.details(call.label));
      }
      try {
        await sleep(this.random() * this.backoffCeiling(attempt), signal);
      } catch {
        throw this.stopped(call, signal, last);
      }
    }
  }

  private async attempt(
    call: Call,
    attempt: number,
    signal: AbortSignal,
    ticket: Ticket,
  ): Promise<Attempt> {
    const started = performance.now();
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    const sent = new URLSearchParams(call.query);
    for (const [k, v] of this.opts.secretParams ?? []) sent.set(k, v);
    const headers = { ...ticket.headers, accept: ACCEPT[call.format] };
    let status: number | undefined;
    let outcome: Outcome | undefined;
    try {
      const qs = sent.toString();
      const res =
        call.method === "GET"
          ? await this.fetchFn(qs ? `${call.endpoint}?${qs}` : call.endpoint, {
              headers,
              signal: both,
            })
          : await this.fetchFn(call.endpoint, {
              method: "POST",
              body: sent,
              headers,
              signal: both,
            });
      status = res.status;
      this.contact = this.now();
      const read: ReadBody = call.bytes ? await readBytes(res) : { body: await readText(res) };
      const { body } = read;
      outcome = this.classify({
        service: this.service,
        label: call.label,
        format: call.format,
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        body,
        okStatuses: call.okStatuses,
        emptyOk: call.emptyOk,
        partial: read.partial,
        redact: (t: string) => this.redact(t),
      });
      return { outcome, status: res.status, bytes: read.bytes };
    } catch (err) {
      if (err instanceof AppError || signal.aborted) throw err;
      outcome = {
        ok: false,
        failure: timeout.aborted
          ? timeoutFailure(this.service, this.opts.timeoutMs)
          : connectionFailure(this.service, err, status),
      };
      return { outcome, status: status ?? 0 };
    } finally {
      log.debug(`${this.opts.id} request`, {
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
  private stopped(call: Call, signal: AbortSignal, last: Failure | undefined): unknown {
    return timedOut(signal)
      ? deadlinePassed(this.service, this.opts.deadlineMs, last, this.details(call.label))
      : signal.reason;
  }

  /** base·2^(attempt−1), capped at 16 bases; the sleep is a uniform draw below it (full jitter). */
  private backoffCeiling(attempt: number): number {
    return this.backoffBaseMs * 2 ** Math.min(attempt - 1, 4);
  }

  private endpoint(path: string): string {
    if (path === "") return this.opts.baseUrl;
    return `${this.opts.baseUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  }

  /** The caller's parameters (any client-fixed or secret one it passes is dropped) plus publicParams. */
  private publicQuery(params: Params): [string, string][] {
    const fixed = [
      ...(this.opts.reservedParams ?? []),
      ...[...(this.opts.publicParams ?? []), ...(this.opts.secretParams ?? [])].map(([k]) => k),
    ];
    const out = flat(params).filter(([k]) => !fixed.includes(k));
    out.push(...(this.opts.publicParams ?? []));
    return out;
  }
}

/**
 * The reply's text as `res.text()` gives it (UTF-8, a leading BOM dropped, malformed bytes
 * replaced), decoded chunk by chunk as the chunks arrive: `res.text()` decodes a reply of several
 * megabytes (an EFetch batch of a sync) in one piece, which held the MCP thread for 15–37 ms a
 * reply while a sync ran (bench loop section); this way no task decodes more than one chunk.
 */
export async function readText(res: Response): Promise<string> {
  if (!res.body) return "";
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of res.body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** Bodies up to this many bytes are checked whole; beyond, by their head and tail. */
export const WHOLE_TEXT = 64 * 1024;
const HEAD_BYTES = 16 * 1024;
const TAIL_BYTES = 4 * 1024;

/**
 * The reply's bytes in shared memory of their own, and the text its checks read: the body
 * decoded as `readText` decodes it, or for a body over WHOLE_TEXT bytes its head and tail only
 * (`partial`): every check of a long body reads no more (services/body.ts, eutils/detect.ts).
 */
export async function readBytes(
  res: Response,
): Promise<ReadBody & { bytes: Uint8Array<SharedArrayBuffer> }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      chunks.push(chunk);
      size += chunk.byteLength;
    }
  }
  const bytes = new Uint8Array(new SharedArrayBuffer(size));
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  if (size <= WHOLE_TEXT) return { bytes, body: new TextDecoder().decode(bytes) };
  const head = new TextDecoder().decode(bytes.subarray(0, HEAD_BYTES));
  const tail = new TextDecoder().decode(bytes.subarray(size - TAIL_BYTES));
  return { bytes, body: `${head}\n${tail}`, partial: true };
}

function flat(params: Params): [string, string][] {
  return Object.entries(params)
    .filter((e): e is [string, NonNullable<Params[string]>] => e[1] !== undefined)
    .map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]);
}

/** The call's deadline passed (its signal's timeout), as against a cancellation. */
function timedOut(signal: AbortSignal): boolean {
  // By name, not instanceof: a DOMException may come from another realm (vm contexts, jest).
  return (signal.reason as { name?: unknown } | undefined)?.name === "TimeoutError";
}
