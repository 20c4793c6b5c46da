import { z } from "zod";
import { searchPubmed } from "../../pubmed/search.js";
import { briefSummarySchema, count } from "../outputs.js";
import {
  MAX_QUERY_CHARS,
  READ_ONLY_LIVE,
  entrezDateSchema,
  maxChars,
  numeric,
  requiredText,
} from "../params.js";
import { defineTool } from "../tool.js";

export const pubmedSearch = defineTool({
  name: "pubmed_search",
  description:
    "Search PubMed (NCBI ESearch) with full PubMed query syntax: field tags like [ti], [au], [mh], " +
    "boolean operators, date ranges. Returns the total hit count, one page of PMIDs, NCBI's query " +
    "translation and, on request, brief summaries (title, authors, journal, date, DOI) of the first " +
    "hits, with notices of retraction, correction, expression of concern or withdrawal (absent: " +
    "none known). Use it first to find papers, then pubmed_fetch for abstracts and details. Pages " +
    'reach at most 10,000 records. Example: {"query": "metformin AND aging[ti]", "maxResults": 5, ' +
    '"fetchBriefSummaries": 5}.',
  toolset: "live",
  annotations: { title: "Search PubMed", ...READ_ONLY_LIVE },
  parameters: z.object({
    query: requiredText(MAX_QUERY_CHARS).describe(
      'PubMed query, e.g. "crispr[ti] AND 2020:2024[dp]".',
    ),
    maxResults: numeric(z.int().min(1).max(1000).default(20)).describe("PMIDs to return (1–1000)."),
    offset: numeric(z.int().min(0).max(9998).default(0)).describe(
      "Index of the first PMID (paging).",
    ),
    sort: z
      .enum(["relevance", "pub_date", "author", "journal"])
      .optional()
      .describe("Sort order; NCBI's default (relevance) when omitted."),
    dateRange: z
      .object({
        minDate: entrezDateSchema.optional().describe("Earliest date, YYYY[/MM[/DD]]."),
        maxDate: entrezDateSchema.optional().describe("Latest date, YYYY[/MM[/DD]]."),
        dateType: z
          .enum(["pdat", "mdat", "edat"])
          .default("pdat")
          .describe("pdat = publication, mdat = modification, edat = Entrez (added) date."),
      })
      .refine((r) => !r.minDate || !r.maxDate || r.minDate <= r.maxDate, {
        error: "minDate must not be after maxDate",
      })
      .optional()
      .describe("Restrict by date."),
    publicationTypes: z
      .array(z.string().max(100, maxChars(100)).trim().min(1))
      .max(20)
      .optional()
      .describe('Publication types to require (any of), e.g. ["Randomized Controlled Trial"].'),
    fetchBriefSummaries: numeric(z.int().min(0).max(100).default(0)).describe(
      "Also return brief summaries for this many of the first PMIDs (0–100).",
    ),
  }),
  narrower: "Ask for fewer results (maxResults) or brief summaries (fetchBriefSummaries).",
  output: z.object({
    effectiveQuery: z.string(),
    totalFound: count,
    offset: count,
    pmids: z.array(z.string()),
    briefSummaries: z.array(briefSummarySchema),
    queryTranslation: z.string().nullable(),
    warnings: z.array(z.string()),
    eSearchUrl: z.string(),
  }),
  execute: (args, { signal }) => searchPubmed(args, signal),
});
