/**
 * The only code that talks to NCBI (E-utilities, and the PMC ID Converter through `idconv`). Both
 * go through the polite client (src/net/polite-client.ts) with one RateLimiter between them
 * (NCBI_MAX_RPS over any sliding second, a concurrency cap, a shared cool-down after 429), retries
 * with exponential backoff and full jitter, the caller's signal (the tool call's deadline or
 * cancel) honoured at every wait, and one in-memory response cache. What is NCBI's own lives
 * here: endpoints, tool/email/api_key, POST for long id lists, cache lifetimes (./ttl.ts) and the
 * checking of its bodies (./detect.ts: 200-status error documents). The typed methods callers use
 * (esearch, efetchArticles, convertIds, …) are ./eutils.ts's. NCBI usage rules:
 * https://www.ncbi.nlm.nih.gov/books/NBK25497/
 *
 *   await eutils.efetchPmc("PMC3040717", { signal }); // JATS <pmc-articleset>
 *   await eutils.convertIds(["PMC3040717"], { signal });
 */
import { DEFAULT_IDCONV_BASE_URL, type Config } from "../config.js";
import {
  PoliteClient,
  type CachedReply,
  type ClientDeps as PoliteDeps,
  type RequestOptions,
} from "../net/polite-client.js";
import type { SharedBudget } from "../net/shared-budget.js";
import { ResponseCache } from "../net/cache.js";
import { RateLimiter } from "../net/limiter.js";
import type {
  BodyParser,
  CallOptions,
  EutilsBytes,
  EutilsResponse,
  IdconvResponse,
  ParsedResponse,
} from "./calls.js";
import { classifyReply, expectedFormat } from "./detect.js";
import { Eutils } from "./eutils.js";
import { IDCONV_TTL_MS, cacheTtlMs } from "./ttl.js";
import type { Params, Utility } from "./types.js";

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

export interface ClientDeps extends PoliteDeps {
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

export class EutilsClient extends Eutils {
  private readonly limiter: RateLimiter;
  private readonly cache: ResponseCache<CachedReply>;
  private readonly http: PoliteClient;
  private readonly idconvHttp: PoliteClient;

  constructor(
    private readonly cfg: Config["ncbi"],
    deps: ClientDeps = {},
  ) {
    super();
    this.limiter = new RateLimiter({ maxRps: cfg.maxRps, shared: deps.budget });
    this.cache = new ResponseCache(cfg.cacheMaxBytes, deps.now ?? Date.now);
    // NCBI requires tool (and asks for email) on every request; api_key is added only when sending.
    const identity: [string, string][] = [["tool", cfg.tool]];
    if (cfg.email) identity.push(["email", cfg.email]);
    const common = {
      maxRps: cfg.maxRps,
      timeoutMs: cfg.timeoutMs,
      deadlineMs: cfg.deadlineMs,
      maxRetries: cfg.maxRetries,
      limiter: this.limiter,
      cache: this.cache,
      publicParams: identity,
      reservedParams: ["tool", "email", "api_key"],
    };
    this.http = new PoliteClient(
      {
        ...common,
        name: "NCBI",
        id: "ncbi",
        baseUrlVar: "NCBI_EUTILS_BASE_URL",
        baseUrl: cfg.baseUrl,
        secretParams: cfg.apiKey ? [["api_key", cfg.apiKey]] : [],
        classify: (r) =>
          classifyReply({
            utility: r.label as Utility,
            format: r.format,
            status: r.status,
            retryAfter: r.retryAfter,
            body: r.body,
            partial: r.partial,
            redact: r.redact,
          }),
        details: (label) => ({ utility: label }),
        cacheScope: (_path, label) => label ?? "",
      },
      deps,
    );
    // The ID Converter documents tool and email, not api_key; its requests count against NCBI's rate.
    this.idconvHttp = new PoliteClient(
      {
        ...common,
        name: "NCBI's PMC ID Converter",
        id: "idconv",
        baseUrlVar: "NCBI_IDCONV_BASE_URL",
        baseUrl: cfg.idconvBaseUrl ?? DEFAULT_IDCONV_BASE_URL,
        cacheTtlMs: () =>
          cfg.cacheTtlSeconds === undefined ? IDCONV_TTL_MS : cfg.cacheTtlSeconds * 1000,
      },
      deps,
    );
  }

  /** The URL NCBI is asked for, with tool/email but never api_key; safe to show and log. */
  publicUrl(utility: Utility, params: Params): string {
    return this.http.publicUrl(ENDPOINTS[utility], params);
  }

  override async request(
    utility: Utility,
    params: Params,
    opts: CallOptions = {},
  ): Promise<EutilsResponse> {
    const o = this.options(utility, params, opts);
    const { body, url, fromCache } = await this.http.request(ENDPOINTS[utility], params, o);
    return { body, url, method: o.method ?? "GET", fromCache };
  }

  /**
   * `request` for a reply another thread reads (a sync's EFetch batch of megabytes): its bytes,
   * neither decoded on this thread nor cached. Checked as `request` checks a reply (a long body
   * by its head and tail: see PoliteClient.requestBytes).
   */
  override async requestBytes(
    utility: Utility,
    params: Params,
    opts: Omit<CallOptions, "noCache"> = {},
  ): Promise<EutilsBytes> {
    const o = this.options(utility, params, opts);
    const { bytes, url, method } = await this.http.requestBytes(ENDPOINTS[utility], params, o);
    return { bytes, url, method };
  }

  private options(utility: Utility, params: Params, opts: CallOptions): RequestOptions {
    const publicUrl = this.publicUrl(utility, params);
    return {
      signal: opts.signal,
      noCache: opts.noCache,
      method: utility !== "ecitmatch" && needsPost(publicUrl, params) ? "POST" : "GET",
      accept: expectedFormat(utility, params),
      label: utility,
      ttlMs: cacheTtlMs(utility, params, this.cfg.cacheTtlSeconds),
    };
  }

  /**
   * `request`, parsed by `parser`, with the parse kept beside the cached body: a repeat inside the
   * TTL neither asks NCBI nor parses again. A body that fails to parse keeps no value, so every
   * repeat fails the same way. Callers must not mutate the value: later hits share it.
   */
  override async requestParsed<T>(
    utility: Utility,
    params: Params,
    parser: BodyParser<T>,
    opts: CallOptions = {},
  ): Promise<ParsedResponse<T>> {
    const res = await this.http.request(
      ENDPOINTS[utility],
      params,
      this.options(utility, params, opts),
    );
    const key = res.cacheKey;
    const kept = key === undefined ? undefined : this.cache.derived(key, parser.name);
    if (kept !== undefined) {
      return { value: kept as T, url: res.url, method: res.method, fromCache: res.fromCache };
    }
    const value = await parser.parse(res.body);
    // Estimate: the parsed objects hold about the body's text, at two bytes a character.
    if (key !== undefined) this.cache.setDerived(key, parser.name, value, 2 * res.body.length);
    return { value, url: res.url, method: res.method, fromCache: res.fromCache };
  }

  /**
   * One PMC ID Converter request (`ids`, `idtype`, `format=json`, `versions`; tool and email are
   * added): through NCBI's limiter, cache and retries. A 400/404 reply is returned with its
   * status for src/ncbi/idconv.ts to read ("ID type mismatch" is the caller's mistake).
   */
  override async idconv(params: Params, opts: CallOptions = {}): Promise<IdconvResponse> {
    const res = await this.idconvHttp.request("", params, {
      signal: opts.signal,
      noCache: opts.noCache,
      accept: "json",
      label: "request",
      okStatuses: [400, 404],
    });
    return {
      body: res.body,
      url: res.url,
      method: res.method,
      fromCache: res.fromCache,
      status: res.status,
    };
  }

  info(): EutilsInfo {
    const { hits, misses, entries } = this.cache.stats();
    const contacts = [this.http.lastContact, this.idconvHttp.lastContact].filter(
      (t): t is number => t !== null,
    );
    return {
      maxRps: this.cfg.maxRps,
      apiKeyInUse: Boolean(this.cfg.apiKey),
      tool: this.cfg.tool,
      queueSize: this.limiter.size,
      pending: this.limiter.pending,
      requestsStarted: this.limiter.started,
      lastContact: contacts.length === 0 ? null : new Date(Math.max(...contacts)).toISOString(),
      cache: { hits, misses, entries },
    };
  }
}

function needsPost(publicUrl: string, params: Params): boolean {
  const ids = Array.isArray(params.id)
    ? params.id.length
    : String(params.id ?? "").split(",").length;
  return publicUrl.length > MAX_GET_URL || ids > MAX_GET_IDS;
}
