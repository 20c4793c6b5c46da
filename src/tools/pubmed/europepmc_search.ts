import { z } from "zod";
import { europePmcSearchSchema } from "../../europepmc/europepmc.js";
import { EUROPE_PMC_SOURCES } from "../../europepmc/requests.js";
import { europePmcSearch } from "../../pubmed/europepmc-search.js";
import { READ_ONLY_LIVE, maxChars, numeric, requiredText } from "../params.js";
import { answerCeiling, defineTool } from "../tool.js";

/**
 * The longest query: Europe PMC is searched by GET, and a URL much past 8 KB is refused on the
 * way; percent-encoding can triple a query's length.
 */
const MAX_EUROPE_PMC_QUERY_CHARS = 2_000;

/** Europe PMC's sort parameter for each of ours; relevance is its default (no sort sent). */
const SORT = {
  relevance: undefined,
  cited: "CITED desc",
  newest: "P_PDATE_D desc",
} as const;

/** Bytes a hit may take beside its abstract (ids, title, authors, journal, flags, notices). */
const HIT_BYTES = 2_000;

/**
 * The page size that fits the answer's ceiling (src/tools/answer.ts): a page of 100 hits with
 * 5,000-character abstracts would be some 600 kB. Asked for more, the page is smaller and the
 * cursor pages on from where it ends.
 */
function fittingPageSize(args: { pageSize: number; resultType: string; abstractChars: number }) {
  const perHit = HIT_BYTES + (args.resultType === "core" ? Math.ceil(args.abstractChars * 1.5) : 0);
  return Math.max(1, Math.min(args.pageSize, Math.floor(answerCeiling({}) / perHit)));
}

export const europepmcSearch = defineTool({
  name: "europepmc_search",
  description:
    "Search Europe PMC: PubMed plus preprints, PMC, patents, theses and guidelines, in Europe PMC " +
    "syntax (TITLE:, AUTH:, PUB_YEAR:[2020 TO 2024], OPEN_ACCESS:y, EXT_ID:). Use it for " +
    'preprints (sources ["PPR"]), citation counts or beyond PubMed. Hits carry source, id, ' +
    "PMID/PMCID/DOI, citedByCount, retracted/preprint flags and notices (retraction, correction, " +
    'expression of concern, withdrawal; absent: none known); "core" adds abstracts and the ' +
    "links notices are read from. Page on with nextCursorMark (absent on the last page) and " +
    "the same query, sources and sort. " +
    'Example: {"query": "long covid AND PUB_YEAR:[2023 TO 2024]", "sources": ["PPR"]}.',
  toolset: "reading",
  annotations: { title: "Search Europe PMC", ...READ_ONLY_LIVE },
  parameters: z.object({
    query: requiredText(MAX_EUROPE_PMC_QUERY_CHARS).describe(
      'Europe PMC query, e.g. "TITLE:crispr AND OPEN_ACCESS:y".',
    ),
    sources: z
      .array(z.enum(EUROPE_PMC_SOURCES))
      .min(1)
      .max(EUROPE_PMC_SOURCES.length)
      .optional()
      .describe(
        "Only these (all when omitted): MED PubMed, PMC, PPR preprints, AGR Agricola, CBA " +
          "Chinese Biological Abstracts, CTX CiteXplore, ETH theses, HIR guidelines, PAT patents.",
      ),
    pageSize: numeric(z.int().min(1).max(100).default(10)).describe("Hits per page (1–100)."),
    cursorMark: z
      .string()
      .max(500, maxChars(500))
      .trim()
      .min(1)
      .optional()
      .describe("The previous page's nextCursorMark; omit for the first page."),
    resultType: z
      .enum(["lite", "core"])
      .default("lite")
      .describe("lite: bibliographic fields; core: also abstracts."),
    abstractChars: numeric(z.int().min(100).max(5000).default(600)).describe(
      "core only: most characters of each abstract (cut at a word).",
    ),
    sort: z.enum(["relevance", "cited", "newest"]).default("relevance").describe("Order of hits."),
  }),
  output: europePmcSearchSchema,
  narrower: "Ask for a smaller pageSize or abstractChars.",
  execute: async (args, { signal }) => {
    const pageSize = fittingPageSize(args);
    const page = await europePmcSearch(args.query, {
      signal,
      sources: args.sources ? [...new Set(args.sources)] : undefined,
      cursorMark: args.cursorMark,
      pageSize,
      resultType: args.resultType,
      abstractChars: args.abstractChars,
      sort: SORT[args.sort],
    });
    if (pageSize === args.pageSize) return page;
    const note =
      `pageSize ${args.pageSize} lowered to ${pageSize}: more hits would pass the answer's ` +
      `ceiling of ${answerCeiling({})} bytes (MCP_MAX_ANSWER_BYTES); nextCursorMark pages on.`;
    return { ...page, warnings: [...(page.warnings ?? []), note] };
  },
});
