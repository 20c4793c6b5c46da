import { z } from "zod";
import { CITATION_STYLES } from "../../eutils/cite.js";
import { citePubmed } from "../../pubmed/cite.js";
import { READ_ONLY_LIVE, pmidListSchema } from "../params.js";
import { defineTool } from "../tool.js";

export const pubmedCite = defineTool({
  name: "pubmed_cite",
  description:
    "Format citations for PubMed articles in RIS, BibTeX, APA, MLA, Vancouver or CSL-JSON, built " +
    "from the PubMed record (authors, journal, volume, pages, DOI). Use it to produce reference " +
    "lists or import files. Up to 50 PMIDs. Example: " +
    '{"pmids": ["31452104"], "styles": ["apa", "bibtex"]}.',
  annotations: { title: "Cite PubMed articles", ...READ_ONLY_LIVE },
  parameters: z.object({
    pmids: pmidListSchema(50).describe('PMIDs to cite, e.g. ["31452104"].'),
    styles: z
      .array(z.enum(CITATION_STYLES))
      .min(1)
      .default(["ris"])
      .describe("Citation formats to produce."),
  }),
  output: z.object({
    citations: z.array(
      z.object({
        pmid: z.string(),
        formats: z.partialRecord(z.enum(CITATION_STYLES), z.string()),
      }),
    ),
    notFoundPmids: z.array(z.string()),
  }),
  execute: (args, { signal }) =>
    citePubmed([...new Set(args.pmids)], [...new Set(args.styles)], signal),
});
