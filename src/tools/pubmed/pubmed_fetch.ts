import { z } from "zod";
import { fetchPubmed } from "../../pubmed/fetch.js";
import { articleSchema } from "../outputs.js";
import { READ_ONLY_LIVE, flag, numeric, pmidListSchema, textOrNumber } from "../params.js";
import { defineTool } from "../tool.js";

/** Parsed levels fill articles and notFoundPmids; full_xml and medline_text fill detailLevel and text. */
const fetchOutput = z.object({
  articles: z.array(articleSchema).optional(),
  notFoundPmids: z.array(z.string()).optional(),
  detailLevel: z.enum(["full_xml", "medline_text"]).optional(),
  text: z.string().optional(),
  eFetchDetails: z.object({ urls: z.array(z.string()), requestMethod: z.enum(["GET", "POST"]) }),
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
    'Up to 200 PMIDs per call. Example: {"pmids": ["31452104"]}.',
  annotations: { title: "Fetch PubMed records", ...READ_ONLY_LIVE },
  parameters: z
    .object({
      pmids: pmidListSchema(200)
        .optional()
        .describe('PMIDs to fetch, e.g. ["31452104", "29190235"].'),
      webEnv: z.string().trim().min(1).optional().describe("WebEnv of an ESearch history."),
      queryKey: textOrNumber(z.string().trim().regex(/^\d+$/).optional()).describe(
        "query_key in that history.",
      ),
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
    .refine((a) => a.pmids !== undefined || (a.webEnv !== undefined && a.queryKey !== undefined), {
      error: "give either pmids or both webEnv and queryKey",
    })
    .refine((a) => a.pmids === undefined || a.webEnv === undefined, {
      error: "give pmids or webEnv/queryKey, not both",
    }),
  output: fetchOutput,
  execute: async (args, { signal }) =>
    // src/pubmed/article-output.ts builds what articleSchema declares;
    // __tests__/tools/output-schemas.test.ts checks it on synthetic and recorded records.
    (await fetchPubmed(
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
    )) as z.output<typeof fetchOutput>,
});
