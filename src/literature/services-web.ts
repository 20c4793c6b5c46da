/**
 * The Europe PMC, Unpaywall and PubTator calls of the reading tools, each through its service's
 * polite client (src/state.ts getters: own limiter, retries, deadline, cache) and read by the
 * phase-1 parsers:
 *
 *   europePmcFullTextXml("PMC3040717", signal)      → JatsDocument | { unavailable }   (404 / error bean)
 *   europePmcSearch("asthma", { sources: ["MED", "PPR"], resultType: "core" }) → EuropePmcSearch
 *   europePmcLinks("20516115", "citations", { signal }) → EuropePmcLinks
 *   unpaywallLookup("10.1038/ng.590", signal)        → UnpaywallRecord | { skipped }   (no UNPAYWALL_EMAIL)
 *   pubtatorExport(["22663011"], false, { signal })  → { articles, notFound }
 *
 * Thrown: RateLimitError / UpstreamError naming the service, NotFoundError (Unpaywall: DOI
 * unknown), ValidationError for malformed identifiers.
 */
import { ValidationError } from "../errors.js";
import { quoted } from "../excerpt.js";
import { getEuropePmc, getPubtator, getUnpaywall } from "../state.js";
import { withCrossrefNotices } from "../crossref/crossref.js";
import {
  fullTextXmlProblem,
  parseEuropePmcLinks,
  parseEuropePmcSearch,
  type EuropePmcLinks,
  type EuropePmcSearch,
} from "../europepmc/europepmc.js";
import type { JatsDocument } from "./fulltext-types.js";
import { doiOf } from "../ncbi/idconv.js";
import { normalizePmcid } from "./identity.js";
import { parsePubtatorExport, type AnnotatedArticle, type PubtatorOptions } from "../pubtator/pubtator.js";
import { parseUnpaywall, type UnpaywallRecord } from "../unpaywall/unpaywall.js";
import { liveThread } from "../live/live-thread.js";

/**
 * Europe PMC's JATS for a PMCID (GET /{PMCID}/fullTextXML). Articles it has no full text for
 * (404, an error bean, a reply that is not an <article>) come back as `{ unavailable: why }`.
 */
export async function europePmcFullTextXml(
  pmcid: string,
  signal?: AbortSignal,
): Promise<JatsDocument | { unavailable: string }> {
  const id = normalizePmcid(pmcid);
  if (id === null) {
    throw new ValidationError(
      `${quoted(pmcid)} is not a PMCID: "PMC" + digits, e.g. "PMC3040717".`,
    );
  }
  const reply = await getEuropePmc().request(
    `${id}/fullTextXML`,
    {},
    {
      signal,
      accept: "xml",
      label: "fullTextXML",
      okStatuses: [404],
      emptyOk: true,
    },
  );
  const problem = fullTextXmlProblem(reply.body, reply.status);
  if (problem !== null) return { unavailable: problem };
  return liveThread().parseJats(reply.body, "Europe PMC", signal);
}

/** Europe PMC source codes: MED (PubMed), PMC, PPR (preprints), AGR, CBA, CTX, ETH, HIR, PAT. */
export const EUROPE_PMC_SOURCES = [
  "MED",
  "PMC",
  "PPR",
  "AGR",
  "CBA",
  "CTX",
  "ETH",
  "HIR",
  "PAT",
] as const;
export type EuropePmcSource = (typeof EUROPE_PMC_SOURCES)[number];

export interface EuropePmcSearchOptions {
  signal?: AbortSignal;
  /** Restricts hits to these sources (added to the query as SRC:…); all when absent. */
  sources?: readonly EuropePmcSource[];
  /** "*" (default) for the first page, then the previous reply's nextCursorMark. */
  cursorMark?: string;
  /** 1–1000; default 25. */
  pageSize?: number;
  /** lite (default): bibliographic fields; core: also abstracts (cut to abstractChars). */
  resultType?: "lite" | "core";
  abstractChars?: number;
  /** Europe PMC sort, e.g. "CITED desc" or "P_PDATE_D desc"; relevance when absent. */
  sort?: string;
}

/** Europe PMC REST search (full Europe PMC query syntax), one page, cursor-paged. */
export async function europePmcSearch(
  query: string,
  opts: EuropePmcSearchOptions = {},
): Promise<EuropePmcSearch> {
  const sources = opts.sources ?? [];
  const restricted =
    sources.length === 0
      ? query
      : `(${query}) AND (${sources.map((s) => `SRC:${s}`).join(" OR ")})`;
  const reply = await getEuropePmc().request(
    "search",
    {
      query: restricted,
      format: "json",
      resultType: opts.resultType ?? "lite",
      pageSize: Math.min(Math.max(opts.pageSize ?? 25, 1), 1000),
      cursorMark: opts.cursorMark ?? "*",
      sort: opts.sort,
    },
    { signal: opts.signal, accept: "json", label: "search" },
  );
  const page = parseEuropePmcSearch(reply.body, { abstractChars: opts.abstractChars });
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

/**
 * Papers citing a PubMed record, or the references it cites, as Europe PMC links them
 * (GET /MED/{pmid}/citations|references): pubmed_related's fallback when ELink has none.
 */
export async function europePmcLinks(
  pmid: string,
  kind: "citations" | "references",
  opts: { signal?: AbortSignal; page?: number; pageSize?: number } = {},
): Promise<EuropePmcLinks> {
  if (!/^\d{1,9}$/.test(pmid)) {
    throw new ValidationError(`${quoted(pmid)} is not a PMID: digits, e.g. "20516115".`);
  }
  const reply = await getEuropePmc().request(
    `MED/${pmid}/${kind}`,
    {
      format: "json",
      page: opts.page ?? 1,
      pageSize: Math.min(Math.max(opts.pageSize ?? 25, 1), 1000),
    },
    { signal: opts.signal, accept: "json", label: kind },
  );
  return parseEuropePmcLinks(reply.body, kind);
}

export const UNPAYWALL_SKIPPED =
  "UNPAYWALL_EMAIL is not set: Unpaywall requires an email address on every request, so this tier was skipped.";

/**
 * Unpaywall's best open-access location for a DOI (GET /{doi}?email=…; the email never appears
 * in URLs returned or logged). `{ skipped }` without UNPAYWALL_EMAIL; NotFoundError for a DOI
 * Unpaywall does not know.
 */
export async function unpaywallLookup(
  doi: string,
  signal?: AbortSignal,
): Promise<UnpaywallRecord | { skipped: string }> {
  const bare = doiOf(doi);
  if (bare === null) {
    throw new ValidationError(
      `${quoted(doi)} is not a DOI: a DOI must look like 10.<4–9 digits>/<suffix>, e.g. "10.1038/ng.590".`,
    );
  }
  const client = getUnpaywall();
  if (client === undefined) return { skipped: UNPAYWALL_SKIPPED };
  const path = bare.split("/").map(encodeURIComponent).join("/");
  const reply = await client.request(
    path,
    {},
    {
      signal,
      accept: "json",
      label: "DOI lookup",
      okStatuses: [404, 422],
    },
  );
  // Error bodies may quote the request's email back; it never reaches a message.
  return parseUnpaywall(client.redact(reply.body), reply.status);
}

/** PubTator's export takes at most this many PMIDs per request. */
export const PUBTATOR_MAX_PMIDS = 100;

/**
 * PubTator3 BioC JSON export for up to 100 PMIDs, annotations grouped per entity. `fullText`
 * asks for the PMC passages where PubTator has them. An empty export means nothing was found.
 */
export async function pubtatorExport(
  pmids: readonly string[],
  fullText: boolean,
  opts: Omit<PubtatorOptions, "fullText"> & { signal?: AbortSignal } = {},
): Promise<{ articles: AnnotatedArticle[]; notFound: string[] }> {
  const bad = pmids.findIndex((p) => !/^\d{1,9}$/.test(p));
  if (bad !== -1) {
    throw new ValidationError(`pmids[${bad}] must be digits, e.g. "22663011".`);
  }
  if (pmids.length === 0 || pmids.length > PUBTATOR_MAX_PMIDS) {
    throw new ValidationError(`pmids must list 1–${PUBTATOR_MAX_PMIDS} PMIDs.`);
  }
  const { signal, ...limits } = opts;
  const reply = await getPubtator().request(
    "publications/export/biocjson",
    { pmids: pmids.join(","), full: fullText ? "true" : undefined },
    { signal, accept: "json", label: "export", emptyOk: true },
  );
  return parsePubtatorExport(reply.body, { ...limits, fullText }, pmids);
}
