/**
 * The literature services beside NCBI, each a PoliteClient with its own limiter, built on first
 * use from the configuration (src/state.ts: getEuropePmc(), getUnpaywall(), getPubtator()). They
 * share one response cache (keys carry the service), sized like NCBI's (NCBI_CACHE_MAX_MB), and
 * NCBI's retry count, timeout and deadline. The PMC ID Converter is NCBI's and goes through
 * EutilsClient.idconv, under NCBI's limiter.
 *
 * Rates: PubTator3 asks for at most 3 requests per second
 * (https://www.ncbi.nlm.nih.gov/research/pubtator3/api); Europe PMC and Unpaywall publish no
 * per-second ceiling (Unpaywall: 100,000 calls a day), so 10 per second is a polite default.
 */
import type { Config } from "../config.js";
import { ResponseCache } from "../eutils/cache.js";
import { PoliteClient, type CachedReply, type ClientDeps } from "./polite-client.js";

export const SERVICE_MAX_RPS = { europePmc: 10, unpaywall: 10, pubtator: 3 } as const;

const HOUR_MS = 3_600_000;
/** Searches follow the index (updated during the day); records, full text and exports change rarely. */
const TTL_MS = { search: HOUR_MS, record: 24 * HOUR_MS } as const;

export class ServiceClients {
  private cache: ResponseCache<CachedReply> | undefined;
  private built: { europePmc?: PoliteClient; unpaywall?: PoliteClient; pubtator?: PoliteClient } =
    {};

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

  private client(o: {
    name: string;
    id: string;
    baseUrlVar: string;
    baseUrl: string;
    maxRps: number;
    searchPaths?: RegExp;
    secretParams?: [string, string][];
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
      },
      this.deps,
    );
  }
}
