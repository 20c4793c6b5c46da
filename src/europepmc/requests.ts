/**
 * Europe PMC's REST requests (https://europepmc.org/RestfulWebService), each through the service's
 * polite client (src/net/clients.ts: its limiter, retries, deadline and cache) and read by
 * ./europepmc.ts, or for full text by src/jats:
 *
 *   searchEuropePmc(client, "asthma", { sources: ["MED", "PPR"], resultType: "core" }) → EuropePmcSearch
 *   fetchEuropePmcLinks(client, "20516115", "citations", { signal })                 → EuropePmcLinks
 *   fetchEuropePmcFullText(client, "PMC3040717", signal) → JatsDocument | { unavailable } (404 / error bean)
 *
 * Thrown: RateLimitError / UpstreamError naming Europe PMC, ValidationError for malformed ids.
 */
import { ValidationError } from "../errors.js";
import { quoted } from "../excerpt.js";
import { readJats } from "../jats/read.js";
import type { JatsDocument } from "../jats/types.js";
import { normalizePmcid } from "../ncbi/ids.js";
import type { PoliteClient } from "../net/polite-client.js";
import { isRecord, list, parseJsonReply, str, type Json } from "../net/reply.js";
import {
  fullTextXmlProblem,
  parseEuropePmcLinks,
  parseEuropePmcSearch,
  type EuropePmcLinks,
  type EuropePmcSearch,
} from "./europepmc.js";

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
export async function searchEuropePmc(
  client: PoliteClient,
  query: string,
  opts: EuropePmcSearchOptions = {},
): Promise<EuropePmcSearch> {
  const sources = opts.sources ?? [];
  const restricted =
    sources.length === 0
      ? query
      : `(${query}) AND (${sources.map((s) => `SRC:${s}`).join(" OR ")})`;
  const reply = await client.request(
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
  return parseEuropePmcSearch(reply.body, { abstractChars: opts.abstractChars });
}

/** A search page's records as Europe PMC sends them, for a caller with its own reading of them. */
export interface EuropePmcRecords {
  /** 0 when the reply has none. */
  hitCount: number;
  records: unknown[];
  nextCursorMark?: string;
}

/**
 * One search page (`resultType` core or lite), its records left as Europe PMC's JSON: the
 * reviews read them into their candidates (src/review/gather.ts).
 */
export async function searchEuropePmcRecords(
  client: PoliteClient,
  page: { query: string; resultType: "lite" | "core"; pageSize: number; cursorMark: string },
  signal?: AbortSignal,
): Promise<EuropePmcRecords> {
  const reply = await client.request(
    "search",
    {
      query: page.query,
      format: "json",
      resultType: page.resultType,
      pageSize: page.pageSize,
      cursorMark: page.cursorMark,
    },
    { signal, accept: "json", label: "search" },
  );
  const json: Json = parseJsonReply(reply.body, "Europe PMC", "search");
  const next = str(json.nextCursorMark);
  return {
    hitCount: Number(json.hitCount) || 0,
    records: list(isRecord(json.resultList) ? json.resultList.result : undefined),
    ...(next === undefined ? {} : { nextCursorMark: next }),
  };
}

/**
 * Papers citing a PubMed record, or the references it cites, as Europe PMC links them
 * (GET /MED/{pmid}/citations|references): pubmed_related's fallback when ELink has none.
 */
export async function fetchEuropePmcLinks(
  client: PoliteClient,
  pmid: string,
  kind: "citations" | "references",
  opts: { signal?: AbortSignal; page?: number; pageSize?: number } = {},
): Promise<EuropePmcLinks> {
  if (!/^\d{1,9}$/.test(pmid)) {
    throw new ValidationError(`${quoted(pmid)} is not a PMID: digits, e.g. "20516115".`);
  }
  const reply = await client.request(
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

/**
 * Europe PMC's JATS for a PMCID (GET /{PMCID}/fullTextXML), read by src/jats (a long article off
 * the MCP loop). Articles it has no full text for (404, an error bean, a reply that is not an
 * <article>) come back as `{ unavailable: why }`.
 */
export async function fetchEuropePmcFullText(
  client: PoliteClient,
  pmcid: string,
  signal?: AbortSignal,
): Promise<JatsDocument | { unavailable: string }> {
  const id = normalizePmcid(pmcid);
  if (id === null) {
    throw new ValidationError(
      `${quoted(pmcid)} is not a PMCID: "PMC" + digits, e.g. "PMC3040717".`,
    );
  }
  const reply = await client.request(
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
  return readJats(reply.body, "Europe PMC", signal);
}
