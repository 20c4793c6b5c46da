import { z } from "zod";
import { resolvePmids } from "../../literature/resolve-pmids.js";
import { fetchPubmed } from "../../pubmed/fetch.js";
import { fetchPages } from "../../pubmed/fetch-pages.js";
import { doiListSchema, pmcidListSchema } from "../id-params.js";
import { articleSchema } from "../outputs.js";
import {
  READ_ONLY_LIVE,
  flag,
  maxChars,
  numeric,
  pmidListSchema,
  textOrNumber,
} from "../params.js";
import type { Pages } from "../answer.js";
import { defineTool } from "../tool.js";

/** NCBI's WebEnv strings are under 100 characters; room for a longer form, no more. */
const MAX_WEBENV_CHARS = 500;

/** How many of the id lists (pmids, pmcids, dois) a call gives. */
const idLists = (a: { pmids?: unknown; pmcids?: unknown; dois?: unknown }): number =>
  [a.pmids, a.pmcids, a.dois].filter((l) => l !== undefined).length;

/** Parsed levels fill articles and notFoundPmids; full_xml and medline_text fill detailLevel and text. */
const fetchOutput = z.object({
  articles: z.array(articleSchema).optional(),
  notFoundPmids: z.array(z.string()).optional(),
  /** pmcids or dois asked for that have no PMID. */
  unresolvedIds: z.array(z.string()).optional(),
  detailLevel: z.enum(["full_xml", "medline_text"]).optional(),
  text: z.string().optional(),
  eFetchDetails: z.object({ urls: z.array(z.string()), requestMethod: z.enum(["GET", "POST"]) }),
  /** Only when Crossref (CROSSREF_MAILTO / CROSSREF_BASE_URL) was asked for notices and failed. */
  warnings: z.array(z.string()).optional(),
});

export const pubmedFetch = defineTool({
  name: "pubmed_fetch",
  description:
    "Fetch full PubMed records (NCBI EFetch) by PMID, or a page of a search history (webEnv + " +
    "queryKey). abstract_plus (default) returns parsed articles: title, abstract (abstractSections " +
    "only for structured abstracts), authors with ORCID and affiliations, journal, dates, DOI, PMC " +
    "id, MeSH terms, publication types, retraction status and comments/corrections; citation_data " +
    "returns only bibliographic fields; full_xml and medline_text return NCBI's raw text. Empty " +
    "fields are left out; dates are ISO-8601. PMIDs with no record are listed in notFoundPmids. " +
    "notices lists retractions, corrections, expressions of concern and withdrawals (absent: none " +
    "known). " +
    "Also takes pmcids or dois instead (resolved by NCBI's PMC ID Converter, which knows PMC " +
    'articles only; others are listed in unresolvedIds). Up to 200 ids per call. Example: {"pmids": ["31452104"]}.',
  toolset: "live",
  annotations: { title: "Fetch PubMed records", ...READ_ONLY_LIVE },
  parameters: z
    .object({
      pmids: pmidListSchema(200)
        .optional()
        .describe('PMIDs to fetch, e.g. ["31452104", "29190235"].'),
      pmcids: pmcidListSchema(200).optional().describe('Or PMC ids, e.g. ["PMC3040717"].'),
      dois: doiListSchema(200).optional().describe('Or DOIs, e.g. ["10.1038/ng.590"].'),
      webEnv: z
        .string()
        .max(MAX_WEBENV_CHARS, maxChars(MAX_WEBENV_CHARS))
        .trim()
        .min(1)
        .optional()
        .describe("WebEnv of an ESearch history."),
      queryKey: textOrNumber(
        z.string().max(10, maxChars(10)).trim().regex(/^\d+$/).optional(),
      ).describe("query_key in that history."),
      retstart: numeric(z.int().min(0).default(0)).describe(
        "First record of the history to fetch.",
      ),
      retmax: numeric(z.int().min(1).max(200).default(20)).describe(
        "Records to fetch from the history.",
      ),
      detailLevel: z
        .enum(["abstract_plus", "full_xml", "medline_text", "citation_data"])
        .default("abstract_plus")
        .describe("What to return (see the description)."),
      includeMeshTerms: flag(z.boolean().default(true)).describe("Include MeSH terms."),
      includeGrantInfo: flag(z.boolean().default(false)).describe("Include grants."),
    })
    .refine((a) => idLists(a) > 0 || (a.webEnv !== undefined && a.queryKey !== undefined), {
      error: "give either pmids or both webEnv and queryKey (pmcids or dois may stand for pmids)",
    })
    .refine((a) => idLists(a) + (a.webEnv === undefined ? 0 : 1) <= 1, {
      error: "give one of pmids, pmcids, dois or webEnv/queryKey, not several",
    }),
  output: fetchOutput,
  pages: fetchPages as Pages,
  narrower: 'Ask for fewer records, or for detailLevel "citation_data".',
  execute: async (args, { signal }) => {
    const ids = idLists(args) > 0 ? await resolvePmids(args, signal) : undefined;
    // src/pubmed/article-output.ts builds what articleSchema declares;
    // __tests__/tools/output-schemas.test.ts checks it on synthetic and recorded records.
    const out = (await fetchPubmed(
      {
        target: ids
          ? { pmids: ids.pmids }
          : {
              webEnv: args.webEnv ?? "",
              queryKey: args.queryKey ?? "",
              retstart: args.retstart,
              retmax: args.retmax,
            },
        detailLevel: args.detailLevel,
        includeMeshTerms: args.includeMeshTerms,
        includeGrantInfo: args.includeGrantInfo,
      },
      signal,
    )) as z.output<typeof fetchOutput>;
    return ids?.unresolvedIds.length ? { ...out, unresolvedIds: ids.unresolvedIds } : out;
  },
});
