/**
 * pubmed_search: ESearch, then ESummary v2.0 for brief summaries of the first hits.
 */
import { ValidationError } from "../errors.js";
import { isoFromPubDate } from "../ncbi/dates.js";
import { linkNotices, mergeNotices, noticesFromArticle, type Notice } from "../ncbi/notices.js";
import type { BriefSummary } from "../ncbi/types.js";
import { getEutils } from "../state.js";
import { withCrossrefNotices } from "../trust/notices.js";

export type SortOrder = "relevance" | "pub_date" | "author" | "journal";

export interface SearchInput {
  query: string;
  maxResults: number;
  offset: number;
  sort?: SortOrder;
  dateRange?: { minDate?: string; maxDate?: string; dateType: "pdat" | "mdat" | "edat" };
  publicationTypes?: string[];
  fetchBriefSummaries: number;
}

/** A brief summary as pubmed_search returns it; `notices` only when some are known. */
export type SummaryOutput = Omit<BriefSummary, "publicationTypes" | "references"> & {
  notices?: Notice[];
};

export interface SearchOutput {
  effectiveQuery: string;
  totalFound: number;
  offset: number;
  pmids: string[];
  briefSummaries: SummaryOutput[];
  queryTranslation: string | null;
  warnings: string[];
  eSearchUrl: string;
}

/** ESearch's sort names differ from ours. */
const SORT_PARAM: Record<SortOrder, string> = {
  relevance: "relevance",
  pub_date: "pub_date",
  author: "Author",
  journal: "JournalName",
};

/** ESearch cannot page past its 10,000th record (retstart + retmax ≤ 10,000). */
export const ESEARCH_REACH = 10_000;

export function effectiveQuery(query: string, publicationTypes: string[] = []): string {
  if (publicationTypes.length === 0) return query;
  const types = publicationTypes.map((t) => `"${t.replace(/"/g, "")}"[Publication Type]`);
  return `(${query}) AND (${types.join(" OR ")})`;
}

export async function searchPubmed(input: SearchInput, signal: AbortSignal): Promise<SearchOutput> {
  if (input.offset + input.maxResults > ESEARCH_REACH) {
    throw new ValidationError(
      `offset + maxResults must be at most ${ESEARCH_REACH.toLocaleString("en-US")} (ESearch cannot page further); narrow the query or a dateRange instead.`,
    );
  }
  const term = effectiveQuery(input.query, input.publicationTypes);
  const range = input.dateRange;
  const dates =
    range && (range.minDate || range.maxDate)
      ? {
          datetype: range.dateType,
          // NCBI needs both ends of a date range; an open end becomes the widest date it accepts.
          mindate: range.minDate ?? "1000",
          maxdate: range.maxDate ?? "3000",
        }
      : {};
  const eutils = getEutils();
  const params = {
    db: "pubmed" as const,
    term,
    retmax: input.maxResults,
    retstart: input.offset,
    ...(input.sort ? { sort: SORT_PARAM[input.sort] } : {}),
    ...dates,
  };
  const { value: found, url } = await eutils.esearch(params, { signal });
  const warnings = [...found.warnings, ...meshHint(found.warnings)];
  let briefSummaries: SummaryOutput[] = [];
  const summaryIds = found.ids.slice(0, input.fetchBriefSummaries);
  if (summaryIds.length > 0) {
    const { value: parsed } = await eutils.esummary(summaryIds, { signal });
    for (const e of parsed.errors) warnings.push(`No summary for PMID ${e.uid}: ${e.message}`);
    const withNotices = await summaryNotices(parsed.summaries, signal);
    if (withNotices.warning !== undefined) warnings.push(withNotices.warning);
    briefSummaries = parsed.summaries.map((b, i) => {
      const { publicationTypes: _types, references: _refs, ...rest } = b;
      const notices = withNotices.notices[i] ?? [];
      return {
        ...rest,
        pubDate: isoFromPubDate(b.pubDate),
        ...(notices.length > 0 ? { notices } : {}),
      };
    });
  }
  return {
    effectiveQuery: term,
    totalFound: found.count,
    offset: input.offset,
    pmids: found.ids,
    briefSummaries,
    queryTranslation: found.queryTranslation,
    warnings,
    eSearchUrl: url,
  };
}

/**
 * Each summary's notices: its References and PubType flags, a notice among the summaries pointing
 * back at it (linkNotices), and Crossref's for its DOI when Crossref is configured.
 */
function summaryNotices(summaries: readonly BriefSummary[], signal: AbortSignal) {
  const linked = linkNotices(
    summaries.map((b) => {
      const iso = isoFromPubDate(b.pubDate);
      const year = /^\d{4}/.test(iso) ? iso.slice(0, 4) : null;
      const month = iso.length >= 7 ? iso.slice(5, 7) : null;
      return {
        ...b,
        commentsCorrections: b.references,
        journalInfo: { publicationDate: { year, month } },
      };
    }),
  );
  const records = summaries.map((b) => ({
    doi: b.doi,
    notices: mergeNotices([
      ...noticesFromArticle({
        publicationTypes: b.publicationTypes,
        commentsCorrections: b.references,
      }),
      ...(linked.get(b.pmid) ?? []),
    ]),
  }));
  return withCrossrefNotices(records, signal, "PubMed");
}

/**
 * NCBI's ErrorList names phrases and fields it did not find (src/ncbi/parse/esearch.ts words them
 * "Phrase not found: …", "Field not found: …"); one more warning points the agent at the tools that
 * mend such a query.
 */
export function meshHint(warnings: readonly string[]): string[] {
  const missing = warnings
    .map((w) => /^(Quoted phrase|Phrase|Field) not found: "(.*)"$/.exec(w))
    .filter((m) => m !== null);
  if (missing.length === 0) return [];
  const phrase = missing.find((m) => m[1] !== "Field")?.[2];
  const example = phrase ? ` (${JSON.stringify({ term: phrase })})` : "";
  return [
    `Some of the query was not found: pubmed_mesh${example} gives MeSH headings, their entry ` +
      'terms and a ready search tag such as "Asthma"[Mesh]; pubmed_spell checks spelling; ' +
      "field tags are e.g. [tiab], [mh], [au].",
  ];
}
