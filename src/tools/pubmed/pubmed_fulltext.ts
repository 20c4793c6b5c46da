import { z } from "zod";
import { DEFAULT_MAX_CHARACTERS } from "../../literature/fulltext-budget.js";
import { FULLTEXT_MAX_IDS, readFullText } from "../../literature/fulltext-chain.js";
import { fulltextOutputSchema } from "../../literature/fulltext-output.js";
import type { RequestedId } from "../../literature/identity.js";
import { doiListSchema, pmcidListSchema } from "../id-params.js";
import { READ_ONLY_LIVE, flag, maxChars, numeric, pmidListSchema } from "../params.js";
import { arrayPages, sameArguments } from "../answer.js";
import { defineTool } from "../tool.js";

const MAX = FULLTEXT_MAX_IDS;

export const pubmedFulltext = defineTool({
  name: "pubmed_fulltext",
  description:
    "Read a paper's full text (open-access articles) by PMID, PMCID or DOI — use it after " +
    "pubmed_search/pubmed_fetch when the abstract is not enough. Tries PMC, then Europe PMC " +
    "(text: title, abstract, nested sections, figure/table captions, licence), then Unpaywall " +
    "(a link to a legal open-access copy, no text; needs UNPAYWALL_EMAIL). Every article is " +
    "checked to carry the id asked for. Per result: source, tried (tiers that failed and why). " +
    "Each article is cut at paragraph boundaries to maxCharacters (default 12,000) with a " +
    '`truncated` account; ask for mode "outline" first to see section sizes, then for the ' +
    'sections you need. Up to 10 ids. Example: {"pmcids": ["PMC3040717"], "sections": ["results"]}.',
  toolset: "reading",
  annotations: { title: "Read full text", ...READ_ONLY_LIVE },
  parameters: z
    .object({
      pmids: pmidListSchema(MAX).optional().describe('PMIDs, e.g. ["20516115"].'),
      pmcids: pmcidListSchema(MAX).optional().describe('PMC ids, e.g. ["PMC3040717"].'),
      dois: doiListSchema(MAX).optional().describe('DOIs, e.g. ["10.1038/ng.590"].'),
      maxCharacters: numeric(
        z.int().min(500).max(100_000).default(DEFAULT_MAX_CHARACTERS),
      ).describe("Text budget per article (title, abstract, sections, captions, references)."),
      sections: z
        .preprocess(
          (v) => (typeof v === "string" ? [v] : v),
          z.array(z.string().max(100, maxChars(100)).trim().min(1)).max(20),
        )
        .optional()
        .describe(
          'Keep only sections whose title contains one of these (case-insensitive), e.g. ["methods", "results"]; also "abstract", "figures", "tables".',
        ),
      mode: z
        .enum(["full", "outline"])
        .default("full")
        .describe("outline: section titles with their sizes, no text."),
      includeReferences: flag(z.boolean().default(false)).describe("Add the reference list."),
      includeTables: flag(z.boolean().default(false)).describe("Add table rows under captions."),
    })
    .refine((a) => [a.pmids, a.pmcids, a.dois].filter((l) => l !== undefined).length === 1, {
      error: "give exactly one of pmids, pmcids or dois",
    }),
  output: fulltextOutputSchema,
  pages: arrayPages("results", (args, omitted) => {
    const list = args.pmids ? "pmids" : args.pmcids ? "pmcids" : "dois";
    return sameArguments(args, { [list]: omitted.map((r) => (r as { id: string }).id) });
  }),
  narrower: 'Ask for fewer ids, a smaller maxCharacters, some sections, or mode "outline".',
  execute: async (args, { signal }) => {
    const ids: RequestedId[] = [
      ...(args.pmids ?? []).map((value) => ({ type: "pmid" as const, value })),
      ...(args.pmcids ?? []).map((value) => ({ type: "pmcid" as const, value })),
      ...(args.dois ?? []).map((value) => ({ type: "doi" as const, value })),
    ];
    const unique = [...new Map(ids.map((id) => [id.value.toLowerCase(), id])).values()];
    const results = await readFullText(
      unique,
      {
        maxCharacters: args.maxCharacters,
        sections: args.sections,
        mode: args.mode,
        includeReferences: args.includeReferences,
        includeTables: args.includeTables,
      },
      signal,
    );
    return { results };
  },
});
