import { z } from "zod";
import {
  ENTITY_TYPES,
  PUBTATOR_MAX_PMIDS,
  annotatedArticleSchema,
} from "../../pubtator/pubtator.js";
import { pubtatorExport } from "../../literature/reading.js";
import { READ_ONLY_LIVE, flag, numeric, pmidListSchema } from "../params.js";
import { arrayPages, sameArguments } from "../answer.js";
import { defineTool } from "../tool.js";

const annotationsOutput = z.object({
  articles: z.array(annotatedArticleSchema),
  notFoundPmids: z.array(z.string()).optional(),
  warnings: z.array(z.string()).optional(),
});

export const pubmedAnnotations = defineTool({
  name: "pubmed_annotations",
  description:
    "Genes, diseases, chemicals, species, variants and cell lines in PubMed articles, as " +
    "PubTator3 text-mines them: one entry per entity and article with its normalised id " +
    "(NCBIGene:673, MESH:D008545, NCBITaxon:9606, rs113488022), name, mention texts, count and " +
    "[offset, length] of its first mentions in title + abstract. Use it to see what papers are " +
    "about or to get ids for other databases. fullText also reads PMC open-access full text. Up " +
    "to 100 PMIDs (about 2 KB per abstract; types and maxEntities shrink it). Example: " +
    '{"pmids": ["22663011"], "types": ["Gene", "Variant"]}.',
  toolset: "reading",
  annotations: { title: "PubTator entity annotations", ...READ_ONLY_LIVE },
  parameters: z.object({
    pmids: pmidListSchema(PUBTATOR_MAX_PMIDS).describe('PMIDs to annotate, e.g. ["22663011"].'),
    fullText: flag(z.boolean().default(false)).describe(
      "Also annotate the full text where PubTator has it.",
    ),
    types: z
      .array(z.enum(ENTITY_TYPES))
      .min(1)
      .max(ENTITY_TYPES.length)
      .optional()
      .describe("Only these entity types; all when omitted."),
    maxEntities: numeric(z.int().min(1).max(100).default(25)).describe(
      "Most entities per article, the most mentioned kept (1–100).",
    ),
  }),
  output: annotationsOutput,
  pages: arrayPages("articles", (args, omitted) =>
    sameArguments(args, { pmids: omitted.map((a) => (a as { pmid: string }).pmid) }),
  ),
  narrower: "Ask for fewer pmids, fewer types or a smaller maxEntities.",
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
