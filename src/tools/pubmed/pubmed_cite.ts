import { z } from "zod";
import { CITATION_STYLES } from "../../live/citations.js";
import { resolvePmids } from "../../literature/resolve-pmids.js";
import { citePubmed } from "../../pubmed/cite.js";
import { doiListSchema, pmcidListSchema } from "../id-params.js";
import { READ_ONLY_LIVE, pmidListSchema } from "../params.js";
import { arrayPages, sameArguments } from "../answer.js";
import { defineTool } from "../tool.js";

export const pubmedCite = defineTool({
  name: "pubmed_cite",
  description:
    "Format citations for PubMed articles in RIS, BibTeX, APA, MLA, Vancouver or CSL-JSON, built " +
    "from the PubMed record (authors, journal, volume, pages, DOI). Use it to produce reference " +
    "lists or import files. Also takes pmcids or dois (resolved by NCBI's PMC ID Converter, PMC " +
    "articles only; others are listed in unresolvedIds). Up to 50 ids. Example: " +
    '{"pmids": ["31452104"], "styles": ["apa", "bibtex"]}.',
  toolset: "live",
  annotations: { title: "Cite PubMed articles", ...READ_ONLY_LIVE },
  parameters: z
    .object({
      pmids: pmidListSchema(50).optional().describe('PMIDs to cite, e.g. ["31452104"].'),
      pmcids: pmcidListSchema(50).optional().describe('Or PMC ids, e.g. ["PMC3040717"].'),
      dois: doiListSchema(50).optional().describe('Or DOIs, e.g. ["10.1038/ng.590"].'),
      styles: z
        .array(z.enum(CITATION_STYLES))
        .min(1)
        .max(CITATION_STYLES.length)
        .default(["ris"])
        .describe("Citation formats to produce."),
    })
    .refine((a) => [a.pmids, a.pmcids, a.dois].filter((l) => l !== undefined).length === 1, {
      error: "give exactly one of pmids, pmcids or dois",
    }),
  output: z.object({
    citations: z.array(
      z.object({
        pmid: z.string(),
        formats: z.partialRecord(z.enum(CITATION_STYLES), z.string()),
      }),
    ),
    notFoundPmids: z.array(z.string()),
    /** pmcids or dois asked for that have no PMID. */
    unresolvedIds: z.array(z.string()).optional(),
  }),
  pages: arrayPages("citations", (args, omitted) => {
    const { pmcids: _pmcids, dois: _dois, ...kept } = args;
    return sameArguments(kept, { pmids: omitted.map((c) => (c as { pmid: string }).pmid) });
  }),
  narrower: "Ask for fewer pmids or fewer styles.",
  execute: async (args, { signal }) => {
    const ids = await resolvePmids(args, signal);
    const out = await citePubmed(ids.pmids, [...new Set(args.styles)], signal);
    return ids.unresolvedIds.length > 0 ? { ...out, unresolvedIds: ids.unresolvedIds } : out;
  },
});
