/**
 * europepmc_search: one page of Europe PMC's search (src/europepmc/requests.ts) with Crossref's
 * integrity notices for the hits' DOIs merged into Europe PMC's own when Crossref is configured
 * (src/trust/notices.ts, docs/trust.md).
 */
import type { EuropePmcSearch } from "../europepmc/europepmc.js";
import { searchEuropePmc, type EuropePmcSearchOptions } from "../europepmc/requests.js";
import { getEuropePmc } from "../state.js";
import { withCrossrefNotices } from "../trust/notices.js";

/** Europe PMC REST search (full Europe PMC query syntax), one page, cursor-paged. */
export async function europePmcSearch(
  query: string,
  opts: EuropePmcSearchOptions = {},
): Promise<EuropePmcSearch> {
  const page = await searchEuropePmc(getEuropePmc(), query, opts);
  return withCrossref(page, opts.signal);
}

/** Crossref's notices for the hits' DOIs, when configured, merged with Europe PMC's own. */
async function withCrossref(page: EuropePmcSearch, signal?: AbortSignal): Promise<EuropePmcSearch> {
  const records = page.results.map((h) => ({ doi: h.doi, notices: h.notices ?? [] }));
  const found = await withCrossrefNotices(records, signal, "Europe PMC");
  const results = page.results.map((h, i) => {
    const notices = found.notices[i] ?? [];
    return notices.length === 0 ? h : { ...h, notices };
  });
  return found.warning === undefined
    ? { ...page, results }
    : { ...page, results, warnings: [found.warning] };
}
