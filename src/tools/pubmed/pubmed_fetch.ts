import { z } from "zod";
import { fetchPubmed } from "../../pubmed/fetch.js";
import { READ_ONLY_LIVE, pmidSchema } from "../params.js";
import { defineTool } from "../tool.js";

export const pubmedFetch = defineTool({
  name: "pubmed_fetch",
  description:
    "Fetch full PubMed records (NCBI EFetch) by PMID, or a page of a search history (webEnv + " +
    "queryKey). abstract_plus (default) returns parsed articles: title, abstract with its labelled " +
    "sections, authors with ORCID and affiliations, journal, dates, DOI, PMC id, MeSH terms, " +
    "publication types, retraction status and comments/corrections; citation_data returns only " +
    "bibliographic fields; full_xml and medline_text return NCBI's raw text. PMIDs with no record " +
    'are listed in notFoundPmids. Up to 200 PMIDs per call. Example: {"pmids": ["31452104"]}.',
  annotations: { title: "Fetch PubMed records", ...READ_ONLY_LIVE },
  parameters: z
    .object({
      pmids: z
        .array(pmidSchema)
        .min(1, { error: "must list at least one PMID" })
        .max(200, { error: "must list at most 200 PMIDs; split the list" })
        .optional()
        .describe('PMIDs to fetch, e.g. ["31452104", "29190235"].'),
      webEnv: z.string().trim().min(1).optional().describe("WebEnv of an ESearch history."),
      queryKey: z.string().trim().regex(/^\d+$/).optional().describe("query_key in that history."),
      retstart: z.int().min(0).default(0).describe("First record of the history to fetch."),
      retmax: z.int().min(1).max(200).default(20).describe("Records to fetch from the history."),
      detailLevel: z
        .enum(["abstract_plus", "full_xml", "medline_text", "citation_data"])
        .default("abstract_plus")
        .describe("What to return (see the description)."),
      includeMeshTerms: z.boolean().default(true).describe("Include MeSH terms."),
      includeGrantInfo: z.boolean().default(false).describe("Include grants."),
    })
    .refine((a) => a.pmids !== undefined || (a.webEnv !== undefined && a.queryKey !== undefined), {
      error: "give either pmids or both webEnv and queryKey",
    })
    .refine((a) => a.pmids === undefined || a.webEnv === undefined, {
      error: "give pmids or webEnv/queryKey, not both",
    }),
  execute: (args, { signal }) =>
    fetchPubmed(
      {
        target: args.pmids
          ? { pmids: [...new Set(args.pmids)] }
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
    ),
});
