/**
 * The article part of a `pubmed_fulltext` answer (src/literature/fulltext-budget.ts builds it from
 * a JatsArticle, src/jats/types.ts), with the zod schema the tool advertises. Outputs are compact:
 * empty lists and absent values are left out rather than sent as null or [].
 */
import { z } from "zod";

const captionSchema = z.object({
  label: z.string().optional(),
  caption: z.string().optional(),
});

/**
 * The article part of a `pubmed_fulltext` result (src/literature/fulltext-budget.ts builds it). In the
 * default mode sections carry `paragraphs`; in `mode: "outline"` they carry `characters` (their
 * own paragraphs) and `totalCharacters` (with their subsections, when they have any) instead.
 */
export const fulltextArticleSchema = z.object({
  pmid: z.string().optional(),
  pmcid: z.string().optional(),
  doi: z.string().optional(),
  title: z.string(),
  articleType: z.string().optional(),
  journal: z.string().optional(),
  publicationDate: z.string().optional(),
  license: z
    .object({
      type: z.string().optional(),
      url: z.string().optional(),
      text: z.string().optional(),
    })
    .optional(),
  abstract: z.string().optional(),
  abstractCharacters: z.int().min(0).optional(),
  sections: z
    .array(
      z.object({
        level: z.int().min(1),
        title: z.string().optional(),
        paragraphs: z.array(z.string()).optional(),
        characters: z.int().min(0).optional(),
        totalCharacters: z.int().min(0).optional(),
      }),
    )
    .optional(),
  figures: z.array(captionSchema).optional(),
  tables: z.array(captionSchema.extend({ rows: z.array(z.string()).optional() })).optional(),
  supplementary: z.array(captionSchema).optional(),
  referenceCount: z.int().min(0),
  references: z
    .array(
      z.object({
        label: z.string().optional(),
        citation: z.string(),
        pmid: z.string().optional(),
        pmcid: z.string().optional(),
        doi: z.string().optional(),
      }),
    )
    .optional(),
  /** Section names asked for in `sections` that matched nothing. */
  unmatchedSections: z.array(z.string()).optional(),
  truncated: z
    .object({
      sections: z.array(
        z.object({
          section: z.string(),
          paragraphsDropped: z.int().min(0),
          charactersDropped: z.int().min(0),
          cut: z.literal(true).optional(),
        }),
      ),
      paragraphsDropped: z.int().min(0),
      charactersDropped: z.int().min(0),
      totalCharacters: z.int().min(0),
      returnedCharacters: z.int().min(0),
    })
    .optional(),
});

export type FulltextArticle = z.output<typeof fulltextArticleSchema>;
