import { z } from "zod";
import { CITATION_STYLES } from "../../eutils/cite.js";
import { citePubmed } from "../../pubmed/cite.js";
import { READ_ONLY_LIVE, pmidSchema } from "../params.js";
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
    pmids: z
      .array(pmidSchema)
      .min(1, { error: "must list at least one PMID" })
      .max(50, { error: "must list at most 50 PMIDs; split the list" })
      .describe('PMIDs to cite, e.g. ["31452104"].'),
    styles: z
      .array(z.enum(CITATION_STYLES))
      .min(1)
      .default(["ris"])
      .describe("Citation formats to produce."),
  }),
  execute: (args, { signal }) =>
    citePubmed([...new Set(args.pmids)], [...new Set(args.styles)], signal),
});
