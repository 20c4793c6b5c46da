/**
 * The clients of the upstreams beside NCBI (Europe PMC, Unpaywall, PubTator, Crossref), each a
 * PoliteClient with its own limiter, built on first use from the configuration (src/state.ts:
 * getEuropePmc(), getUnpaywall(), getPubtator(), getCrossref()). Their requests and the reading
 * of their replies are their folders' (src/europepmc, src/unpaywall, src/pubtator, src/crossref),
 * which take the client as a parameter. They share one response cache (keys carry the service),
 * sized like NCBI's (NCBI_CACHE_MAX_MB), and NCBI's retry count, timeout and deadline. The PMC ID
 * Converter is NCBI's and goes through EutilsClient.idconv, under NCBI's limiter.
 *
 * Rates: PubTator3 asks for at most 3 requests per second
 * (https://www.ncbi.nlm.nih.gov/research/pubtator3/api); Europe PMC and Unpaywall publish no
 * per-second ceiling (Unpaywall: 100,000 calls a day), so 10 per second is a polite default.
 * Crossref allows list queries (the `filter=` requests src/crossref/crossref.ts makes) 3 per second
 * and 3 at once in its polite pool (with a `mailto`), 1 and 1 in its public pool (limits of
 * December 2025: https://www.crossref.org/blog/announcing-changes-to-rest-api-rate-limits/ and
 * its "Access and authentication" page); we keep to 2 and 2 with a mailto, 1 and 1 without.
 */
import type { Config } from "../config.js";
import { ResponseCache } from "./cache.js";
import { classifyServiceReply, type ServiceReply } from "./body.js";
import type { Outcome } from "./failures.js";
import { PoliteClient, type CachedReply, type ClientDeps } from "./polite-client.js";

export const SERVICE_MAX_RPS = { europePmc: 10, unpaywall: 10, pubtator: 3 } as const;
/** Crossref's list-query ceilings we keep to, in its polite pool (a mailto) and in its public one. */
export const CROSSREF_LIMITS = {
  polite: { maxRps: 2, concurrency: 2 },
  public: { maxRps: 1, concurrency: 1 },
} as const;

const HOUR_MS = 3_600_000;
/** Searches follow the index (updated during the day); records, full text and exports change rarely. */
const TTL_MS = { search: HOUR_MS, record: 24 * HOUR_MS } as const;

export class ServiceClients {
  private cache: ResponseCache<CachedReply> | undefined;
  private built: {
    europePmc?: PoliteClient;
    unpaywall?: PoliteClient;
    pubtator?: PoliteClient;
    crossref?: PoliteClient;
  } = {};

  constructor(
    private readonly config: Config,
    /** Injected network edge and timings (tests shrink the backoff). */
    private readonly deps: ClientDeps = {},
  ) {}

  get europePmc(): PoliteClient {
    this.built.europePmc ??= this.client({
      name: "Europe PMC",
      id: "europepmc",
      baseUrlVar: "EUROPEPMC_BASE_URL",
      baseUrl: this.config.services.europePmcBaseUrl,
      maxRps: SERVICE_MAX_RPS.europePmc,
      searchPaths: /^search/,
    });
    return this.built.europePmc;
  }

  /** Undefined without UNPAYWALL_EMAIL: Unpaywall requires an email on every request. */
  get unpaywall(): PoliteClient | undefined {
    const email = this.config.services.unpaywallEmail;
    if (email === undefined) return undefined;
    this.built.unpaywall ??= this.client({
      name: "Unpaywall",
      id: "unpaywall",
      baseUrlVar: "UNPAYWALL_BASE_URL",
      baseUrl: this.config.services.unpaywallBaseUrl,
      maxRps: SERVICE_MAX_RPS.unpaywall,
      // The operator's address: sent, never echoed back in URLs or logs.
      secretParams: [["email", email]],
    });
    return this.built.unpaywall;
  }

  get pubtator(): PoliteClient {
    this.built.pubtator ??= this.client({
      name: "PubTator",
      id: "pubtator",
      baseUrlVar: "PUBTATOR_BASE_URL",
      baseUrl: this.config.services.pubtatorBaseUrl,
      maxRps: SERVICE_MAX_RPS.pubtator,
    });
    return this.built.pubtator;
  }

  /**
   * Undefined unless the operator opted in (CROSSREF_MAILTO or CROSSREF_BASE_URL set): then
   * nothing is ever sent to Crossref.
   */
  get crossref(): PoliteClient | undefined {
    const c = this.config.services.crossref;
    if (!c.enabled) return undefined;
    const limits = c.mailto === undefined ? CROSSREF_LIMITS.public : CROSSREF_LIMITS.polite;
    this.built.crossref ??= this.client({
      name: "Crossref",
      id: "crossref",
      baseUrlVar: "CROSSREF_BASE_URL",
      baseUrl: c.baseUrl,
      ...limits,
      // Notices are found by list queries over works, which change as publishers deposit.
      searchPaths: /^works/,
      // Crossref's polite pool asks for a `mailto` parameter: the operator's address, sent, never
      // echoed back in URLs, logs or messages.
      secretParams: c.mailto === undefined ? undefined : [["mailto", c.mailto]],
      classify: classifyCrossref,
    });
    return this.built.crossref;
  }

  private client(o: {
    name: string;
    id: string;
    baseUrlVar: string;
    baseUrl: string;
    maxRps: number;
    concurrency?: number;
    searchPaths?: RegExp;
    secretParams?: [string, string][];
    classify?: (reply: ServiceReply) => Outcome;
  }): PoliteClient {
    const ncbi = this.config.ncbi;
    this.cache ??= new ResponseCache<CachedReply>(ncbi.cacheMaxBytes, this.deps.now ?? Date.now);
    const override = ncbi.cacheTtlSeconds;
    return new PoliteClient(
      {
        name: o.name,
        id: o.id,
        baseUrlVar: o.baseUrlVar,
        baseUrl: o.baseUrl,
        maxRps: o.maxRps,
        concurrency: o.concurrency,
        timeoutMs: ncbi.timeoutMs,
        deadlineMs: ncbi.deadlineMs,
        maxRetries: ncbi.maxRetries,
        cache: this.cache,
        cacheTtlMs: (path) =>
          override !== undefined
            ? override * 1000
            : o.searchPaths?.test(path)
              ? TTL_MS.search
              : TTL_MS.record,
        secretParams: o.secretParams,
        reservedParams: o.secretParams?.map(([k]) => k),
        classify: o.classify,
      },
      this.deps,
    );
  }
}

/**
 * A Crossref work list (`{"status": "ok", "message": {"items": [...]}}`, the only replies
 * src/crossref/crossref.ts asks for) or a failed reply: anything else in a 2xx is retried like a
 * cut-off body, and never cached.
 */
function classifyCrossref(r: ServiceReply): Outcome {
  const outcome = classifyServiceReply(r);
  if (!outcome.ok || r.status >= 300) return outcome;
  const reply = jsonOrNull(outcome.body) as {
    status?: unknown;
    message?: { items?: unknown };
  } | null;
  if (reply?.status === "ok" && Array.isArray(reply.message?.items)) return outcome;
  const advice = "Crossref may be in maintenance; try again later.";
  const what = "a reply that is not a work list";
  return { ok: false, failure: { rateLimited: false, what, advice } };
}

function jsonOrNull(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}
