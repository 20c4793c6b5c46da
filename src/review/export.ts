/**
 * Exports of review records: RIS, BibTeX, CSL-JSON and CSV, written in batches so a large review
 * streams: `header() + write(batch)… + footer()` is one valid file.
 *
 * RIS and BibTeX are written here rather than by citation-js, although it is fast enough (10,000
 * records in about 1 s each): its RIS wraps values at 70 characters and leaves out DO, its BibTeX
 * turns non-ASCII into LaTeX accents, has no pmid or abstract field and keys entries without
 * knowing the batches before. __tests__/review/export.test.ts reads every format back with
 * citation-js's parsers (and CSV with an RFC 4180 parser) to prove the files import.
 */
import type { CslItem, CslName } from "../live/citations.js";
import { bibtexWriter } from "./export-bibtex.js";
import {
  isPreprint,
  notes,
  noticeText,
  oneLine,
  pageRange,
  urlOf,
  type ExportWriter,
} from "./export-common.js";
import type { ExportFormat, ReviewAuthor, ReviewRecord } from "../store/review-types.js";

export type { ExportWriter } from "./export-common.js";

/**
 * CslItem widened for review records: a record found only outside PubMed has no PMID (nor a
 * PubMed URL), and a preprint is CSL's "article". `note` carries notices and decisions.
 */
export type ReviewCslItem = Omit<CslItem, "type" | "PMID" | "URL"> & {
  type: CslItem["type"] | "article";
  PMID?: string;
  URL?: string;
  note?: string;
};

/** `{ key: value }` when value is non-empty, else `{}`: absent fields are left out, not emptied. */
function field<K extends string, V>(key: K, value: V | undefined | ""): { [P in K]?: V } {
  return value === undefined || value === "" ? {} : ({ [key]: value } as { [P in K]?: V });
}

/**
 * One record as CSL-JSON. MeSH terms go to `keyword` joined by "; ": headings carry commas
 * ("Aged, 80 and over").
 */
export function recordToCsl(record: ReviewRecord): ReviewCslItem {
  const [first, last] = pageRange(record.pages);
  const authors = record.authors.map((a): CslName =>
    a.given ? { family: a.family, given: a.given } : { family: a.family },
  );
  const note = notes(record).join("\n");
  return {
    id: record.id,
    type: isPreprint(record) ? "article" : "article-journal",
    ...field("title", oneLine(record.title)),
    ...field("container-title", record.journal),
    ...field("author", authors.length > 0 ? authors : undefined),
    ...field("issued", record.year ? { "date-parts": [[record.year]] as [number[]] } : undefined),
    ...field("volume", record.volume),
    ...field("issue", record.issue),
    ...field("page", first && last ? `${first}-${last}` : first),
    ...field("DOI", record.doi),
    ...field("PMID", record.pmid),
    ...field("PMCID", record.pmcid),
    ...field("URL", urlOf(record)),
    ...field("abstract", record.abstract.trim()),
    ...field("keyword", record.mesh.join("; ")),
    ...field("note", note),
  };
}

const authorText = (a: ReviewAuthor): string => (a.given ? `${a.family}, ${a.given}` : a.family);

/**
 * RIS, one tag a line ("TY  - JOUR"), every value on one line: readers take a line that does not
 * start with a tag as a continuation at best. TY first and ER last, as the format requires.
 */
function risEntry(r: ReviewRecord): string {
  const lines: string[] = [];
  const tag = (name: string, value: string | number | undefined): void => {
    const text = oneLine(value);
    if (text) lines.push(`${name}  - ${text}`);
  };
  const [sp, ep] = pageRange(r.pages);
  tag("TY", isPreprint(r) ? "UNPB" : "JOUR");
  tag("ID", r.id);
  tag("TI", r.title);
  for (const author of r.authors) tag("AU", authorText(author));
  tag("PY", r.year);
  tag("T2", r.journal);
  tag("JO", r.journal);
  tag("VL", r.volume);
  tag("IS", r.issue);
  tag("SP", sp);
  tag("EP", ep);
  tag("DO", r.doi);
  tag("AN", r.pmid);
  tag("C2", r.pmcid);
  tag("UR", urlOf(r));
  for (const term of r.mesh) tag("KW", term);
  for (const note of notes(r)) tag("N1", note);
  tag("AB", r.abstract);
  return `${lines.join("\n")}\nER  - \n\n`;
}

/** A JSON array across batches: the writer knows whether an item came before this batch. */
function cslJsonWriter(): ExportWriter {
  let written = false;
  return {
    header: () => "[\n",
    write: (records) => {
      if (records.length === 0) return "";
      const items = records.map((r) => JSON.stringify(recordToCsl(r))).join(",\n");
      const text = (written ? ",\n" : "") + items;
      written = true;
      return text;
    },
    footer: () => (written ? "\n]\n" : "]\n"),
    mime: "application/vnd.citationstyles.csl+json",
    extension: "json",
  };
}

export const CSV_COLUMNS = [
  "id",
  "pmid",
  "doi",
  "pmcid",
  "title",
  "authors",
  "journal",
  "year",
  "volume",
  "issue",
  "pages",
  "sources",
  "title_abstract_decision",
  "title_abstract_reason",
  "full_text_decision",
  "full_text_reason",
  "notices",
  "abstract",
] as const;

/**
 * One RFC 4180 field. Formula injection: a spreadsheet runs a cell that starts with =, +, - or @
 * (and, in some, tab or carriage return) as a formula, and titles, abstracts and reasons are
 * other people's text, so such a cell gets a leading apostrophe (OWASP's advice), which
 * spreadsheets show as text. Then a field with a comma, quote or line break is quoted, its
 * quotes doubled.
 */
function csvField(value: string | number | undefined): string {
  let s = String(value ?? "");
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csvRow(r: ReviewRecord): string {
  const row: Record<(typeof CSV_COLUMNS)[number], string | number | undefined> = {
    id: r.id,
    pmid: r.pmid,
    doi: r.doi,
    pmcid: r.pmcid,
    title: r.title,
    authors: r.authors.map(authorText).join("; "),
    journal: r.journal,
    year: r.year,
    volume: r.volume,
    issue: r.issue,
    pages: r.pages,
    sources: r.sources.join("; "),
    title_abstract_decision: r.titleAbstract?.decision,
    title_abstract_reason: r.titleAbstract?.reason,
    full_text_decision: r.fullText?.decision,
    full_text_reason: r.fullText?.reason,
    notices: r.notices.map(noticeText).join("; "),
    abstract: r.abstract,
  };
  return `${CSV_COLUMNS.map((c) => csvField(row[c])).join(",")}\r\n`;
}

/** A writer for one export; make a new one for each file (BibTeX and CSL-JSON keep state). */
export function exportWriter(format: ExportFormat): ExportWriter {
  switch (format) {
    case "ris":
      return {
        header: () => "",
        write: (records) => records.map(risEntry).join(""),
        footer: () => "",
        mime: "application/x-research-info-systems",
        extension: "ris",
      };
    case "bibtex":
      return bibtexWriter();
    case "csl_json":
      return cslJsonWriter();
    case "csv":
      return {
        header: () => `${CSV_COLUMNS.join(",")}\r\n`,
        write: (records) => records.map(csvRow).join(""),
        footer: () => "",
        mime: "text/csv; charset=utf-8; header=present",
        extension: "csv",
      };
  }
}
