/**
 * A JATS article as src/jats/parse.ts reads it (PMC's EFetch db=pmc reply, a PMC Open Access
 * .nxml file, Europe PMC's fullTextXML): front matter, body sections in document order, floats'
 * captions and references, and whether it is full text at all. The full-text chain
 * (src/literature/fulltext-chain.ts) judges it and src/literature/fulltext-budget.ts cuts it to
 * the answer a caller asked for (docs/reference.md, pubmed_fulltext).
 */

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
