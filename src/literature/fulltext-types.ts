/**
 * The shapes of a parsed JATS article (src/literature/jats.ts) and of the article part of a
 * `pubmed_fulltext` answer (src/literature/fulltext-budget.ts), with the zod schema the tool advertises.
 * Outputs are compact: empty lists and absent values are left out rather than sent as null or [].
 */
import { z } from "zod";

/** One section of <body>, in document order; nesting is carried by `level` (1 = top). */
export interface JatsSection {
  level: number;
  /** Absent for the untitled section that holds paragraphs standing outside any <sec>. */
  title?: string;
  paragraphs: string[];
}

/** A figure, table or supplementary-material item: its label and caption as plain text. */
export interface JatsCaption {
  id?: string;
  label?: string;
  caption?: string;
}

/** A table: caption, plus its rows as "cell | cell" lines (returned only when asked for). */
export interface JatsTable extends JatsCaption {
  rows: string[];
}

export interface JatsReference {
  label?: string;
  /** One formatted line: authors, title, source, year;volume(issue):pages. */
  citation: string;
  pmid?: string;
  pmcid?: string;
  doi?: string;
}

export interface JatsLicense {
  /** `license-type` attribute, e.g. "open-access", "cc-by". */
  type?: string;
  /** ali:license_ref, else the <license> xlink:href, else a Creative Commons link in its text. */
  url?: string;
  text?: string;
}

/** Why a parsed reply is not the article's full text; the fallback chain moves on. */
export type NotFullTextReason = "no_body" | "withheld" | "empty_body";

export interface JatsArticle {
  pmid?: string;
  /** Always "PMC" + digits, whichever form the reply used. */
  pmcid?: string;
  doi?: string;
  title: string;
  /** The <article article-type> attribute, e.g. "research-article", "review-article", "correction". */
  articleType?: string;
  journal?: string;
  /** ISO-8601 date (YYYY, YYYY-MM or YYYY-MM-DD): the electronic, else the print, else the issue date. */
  publicationDate?: string;
  license?: JatsLicense;
  /** Plain text; a structured abstract's sections read "Label: text", joined by a blank line. */
  abstract?: string;
  sections: JatsSection[];
  figures: JatsCaption[];
  tables: JatsTable[];
  supplementary: JatsCaption[];
  referenceCount: number;
  references: JatsReference[];
  hasBody: boolean;
  /** Set when the reply is not full text (no <body>, withheld by the publisher, or empty). */
  notFullText?: { reason: NotFullTextReason; message: string };
}

/** What `parseJats` returns for one reply: its articles, and PMC's per-id <error> messages. */
export interface JatsDocument {
  articles: JatsArticle[];
  errors: { id?: string; message: string }[];
}

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
