import { z } from "zod";
import { ENTITY_TYPES, annotatedArticleSchema } from "../../literature/pubtator.js";
import { PUBTATOR_MAX_PMIDS, pubtatorExport } from "../../literature/services.js";
import { READ_ONLY_LIVE, flag, numeric, pmidListSchema } from "../params.js";
import { defineTool } from "../tool.js";

const annotationsOutput = z.object({
  articles: z.array(annotatedArticleSchema),
  notFoundPmids: z.array(z.string()).optional(),
  warnings: z.array(z.string()).optional(),
});

export const pubmedAnnotations = defineTool({
  name: "pubmed_annotations",
  description:
    "Biomedical entities in PubMed articles, as NCBI's PubTator3 text-mines them: genes, " +
    "diseases, chemicals, species, variants and cell lines, each grouped once per article with " +
    "its normalised identifier (NCBIGene:673, MESH:D008545, NCBITaxon:9606, rs113488022, " +
    "CVCL_0030), PubTator's name, its distinct mention texts, how often it is mentioned and the " +
    "[offset, length] of its first mentions (in title + ' ' + abstract). Use it to see which genes, " +
    "drugs or diseases a set of papers is about, or to get identifiers for other databases. " +
    "Title and abstract by default; fullText also reads the full text where PubTator has it (PMC " +
    "open access). Up to 100 PMIDs in one call (about 2 KB per abstract); types and maxEntities " +
    'shrink the answer. Example: {"pmids": ["22663011"], "types": ["Gene", "Variant"]}.',
  annotations: { title: "PubTator entity annotations", ...READ_ONLY_LIVE },
  parameters: z.object({
    pmids: pmidListSchema(PUBTATOR_MAX_PMIDS).describe('PMIDs to annotate, e.g. ["22663011"].'),
    fullText: flag(z.boolean().default(false)).describe(
      "Also annotate the full text where PubTator has it.",
    ),
    types: z
      .array(z.enum(ENTITY_TYPES))
      .min(1)
      .optional()
      .describe("Only these entity types; all when omitted."),
    maxEntities: numeric(z.int().min(1).max(100).default(25)).describe(
      "Most entities per article, the most mentioned kept (1–100).",
    ),
  }),
  output: annotationsOutput,
  execute: async (args, { signal }) => {
    const pmids = [...new Set(args.pmids)];
    const { articles, notFound } = await pubtatorExport(pmids, args.fullText, {
      signal,
      types: args.types,
      maxEntities: args.maxEntities,
    });
    // Articles PubTator has no full text for were read from title and abstract only.
    const abstractOnly = args.fullText
      ? articles.filter((a) => a.fullText !== true).map((a) => a.pmid)
      : [];
    return {
      articles,
      ...(notFound.length > 0 ? { notFoundPmids: notFound } : {}),
      ...(abstractOnly.length > 0
        ? {
            warnings: [
              `No full text at PubTator for ${abstractOnly.join(", ")}: title and abstract only.`,
            ],
          }
        : {}),
    };
  },
});
