/**
 * How long NCBI's replies are kept in the response cache (src/net/cache.ts holds them): one time
 * to live per E-utility. Every hit is a request NCBI never has to serve, which is the spirit of
 * its usage rules as much as the rate ceiling is (docs/configuration.md: NCBI_CACHE_TTL_SECONDS).
 */
import type { Params, Utility } from "./types.js";

const HOUR_MS = 3_600_000;

/**
 * Record-level answers (EInfo, and EFetch/ESummary/ELink by id) change at most daily; ESearch,
 * ESpell and ECitMatch depend on the index, which NCBI updates during the day. EPost creates
 * server state and history-based calls (usehistory=y, WebEnv, query_key) name server state that
 * expires, so neither is ever cached.
 */
const TTL_MS: Record<Utility, number> = {
  einfo: 24 * HOUR_MS,
  efetch: 24 * HOUR_MS,
  esummary: 24 * HOUR_MS,
  elink: 24 * HOUR_MS,
  esearch: HOUR_MS,
  espell: HOUR_MS,
  ecitmatch: HOUR_MS,
  epost: 0,
};

/** ID conversions change as PMC adds articles, rarely within a day. */
export const IDCONV_TTL_MS = 24 * HOUR_MS;

/** TTL in ms for this call, 0 when it must not be cached. `overrideSeconds` is NCBI_CACHE_TTL_SECONDS. */
export function cacheTtlMs(
  utility: Utility,
  params: Params,
  overrideSeconds: number | undefined,
): number {
  if (TTL_MS[utility] === 0) return 0;
  for (const [k, v] of Object.entries(params)) {
    const key = k.toLowerCase();
    if (v === undefined) continue;
    if (key === "webenv" || key === "query_key") return 0;
    if (key === "usehistory" && String(v).toLowerCase() === "y") return 0;
  }
  return overrideSeconds === undefined ? TTL_MS[utility] : overrideSeconds * 1000;
}
