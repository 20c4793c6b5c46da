/**
 * PLACEHOLDER — being replaced by the full client (p-queue, retries, deadline, error detection).
 * The exported API below is fixed.
 */
import type { Config } from "../config.js";
import { UpstreamError } from "../errors.js";

export type Utility =
  | "einfo"
  | "esearch"
  | "esummary"
  | "efetch"
  | "elink"
  | "espell"
  | "ecitmatch"
  | "epost";

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

export class EutilsClient {
  constructor(private readonly cfg: Config["ncbi"]) {}

  publicUrl(utility: Utility, params: Params): string {
    return `${this.cfg.baseUrl}/${utility}.fcgi?${new URLSearchParams(flat(params)).toString()}`;
  }

  async request(utility: Utility, params: Params, opts: CallOptions = {}): Promise<EutilsResponse> {
    const url = this.publicUrl(utility, { ...params, tool: this.cfg.tool });
    const res = await fetch(url, { signal: opts.signal });
    if (!res.ok) throw new UpstreamError(`NCBI answered HTTP ${res.status}`);
    return { body: await res.text(), url, method: "GET", fromCache: false };
  }

  info(): EutilsInfo {
    return {
      maxRps: this.cfg.maxRps,
      apiKeyInUse: Boolean(this.cfg.apiKey),
      tool: this.cfg.tool,
      queueSize: 0,
      pending: 0,
      requestsStarted: 0,
      lastContact: null,
      cache: { hits: 0, misses: 0, entries: 0 },
    };
  }
}

function flat(params: Params): [string, string][] {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]);
}
