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
import type { CslItem, CslName } from "../eutils/cite.js";
import type { Notice } from "../eutils/notices.js";
import type { DecisionState, ExportFormat, ReviewAuthor, ReviewRecord } from "./types.js";

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

export interface ExportWriter {
  /** Written once, before the first batch. */
  header(): string;
  /** One batch, in order; the writer keeps what later batches depend on (BibTeX keys, commas). */
  write(records: readonly ReviewRecord[]): string;
  /** Written once, after the last batch. */
  footer(): string;
  mime: string;
  /** The file name's extension, without the dot. */
  extension: string;
}

const isPreprint = (r: ReviewRecord): boolean =>
  r.id.startsWith("ppr:") || r.pubTypes.some((t) => /^preprint$/i.test(t.trim()));

/** One line: runs of whitespace (newlines, tabs) become one space. */
const oneLine = (s: string | number | undefined): string =>
  String(s ?? "")
    .replace(/\s+/g, " ")
    .trim();

/** The record's landing page: PubMed, else the DOI, else Europe PMC's preprint page. */
function urlOf(r: ReviewRecord): string | undefined {
  if (r.pmid) return `https://pubmed.ncbi.nlm.nih.gov/${r.pmid}/`;
  if (r.doi) return `https://doi.org/${r.doi}`;
  return r.pprid ? `https://europepmc.org/article/PPR/${r.pprid}` : undefined;
}

/**
 * The first range of a MEDLINE page string, expanded ("1032-48" → ["1032", "1048"]; "e123" →
 * ["e123", undefined]); CSL and the reference managers want full ranges.
 */
function pageRange(pages: string | undefined): [string | undefined, string | undefined] {
  const first = (pages ?? "").split(/\s*,\s*/)[0]?.trim() ?? "";
  const m = /^(\w+)\s*[-–]\s*(\w+)$/.exec(first);
  if (!m?.[1] || !m[2]) return [first || undefined, undefined];
  const [start, end] = [m[1], m[2]];
  const short = /^\d+$/.test(start) && /^\d+$/.test(end) && end.length < start.length;
  return [start, short ? start.slice(0, start.length - end.length) + end : end];
}

const noticeText = (n: Notice): string => {
  const ref = n.notice_pmid ? `PMID ${n.notice_pmid}` : n.notice_doi ? `DOI ${n.notice_doi}` : "";
  const type = n.type.replace(/_/g, " ");
  return `${type}${ref ? `: ${ref}` : ""}${n.date ? ` (${n.date})` : ""}`;
};

const decisionText = (label: string, d: DecisionState | undefined): string[] =>
  d ? [`${label}: ${d.decision}${d.reason ? ` (${oneLine(d.reason)})` : ""}`] : [];

/** Notices, then decisions: RIS N1 lines, BibTeX annote, CSL note. */
function notes(r: ReviewRecord): string[] {
  return [
    ...r.notices.map((n) => `Notice: ${noticeText(n)}`),
    ...decisionText("Title/abstract screening", r.titleAbstract),
    ...decisionText("Full-text screening", r.fullText),
  ];
}

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

/**
 * LaTeX's specials. Braces become \textbraceleft{} / \textbraceright{}, not \{ \}: BibTeX counts
 * every brace, escaped or not, and a title with one "{" would end the entry early.
 */
const LATEX: Readonly<Record<string, string>> = {
  "\\": "\\textbackslash{}",
  "{": "\\textbraceleft{}",
  "}": "\\textbraceright{}",
  "%": "\\%",
  "&": "\\&",
  $: "\\$",
  "#": "\\#",
  _: "\\_",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
};
/** Non-ASCII text stays UTF-8 (biber, bibtexu, Zotero and JabRef read it). */
const latex = (s: string): string => oneLine(s).replace(/[\\{}%&$#_~^]/g, (c) => LATEX[c] ?? c);

/**
 * Identifiers and URLs are verbatim fields (biblatex, hyperref's \url): escapes would be read as
 * part of the DOI. Only braces, which no DOI needs, are dropped to keep the entry balanced.
 */
const verbatim = (s: string | undefined): string => oneLine(s).replace(/[{}]/g, "");

/** Words with a capital past their first letter ("HIV", "mRNA") are braced: styles lower-case titles. */
const bibTitle = (title: string): string =>
  oneLine(title)
    .split(" ")
    .map((w) => (/[A-Z]/.test(w.slice(1)) ? `{${latex(w)}}` : latex(w)))
    .join(" ");

/** A name BibTeX must not split ("WHO Group", a comma or an "and" in it) is braced whole. */
function bibName(a: ReviewAuthor): string {
  const whole = (s: string): string => (/,|\band\b/i.test(s) ? `{${latex(s)}}` : latex(s));
  return a.given ? `${whole(a.family)}, ${whole(a.given)}` : `{${latex(a.family)}}`;
}

const ascii = (s: string): string => s.normalize("NFKD").replace(/[^A-Za-z0-9]/g, "");
const KEY_STOP_WORDS = new Set(["a", "an", "the", "on", "of", "in"]);

/** "Smith2019Early": first author's family name, year, first title word, ASCII only. */
function keyBase(r: ReviewRecord): string {
  const family = ascii(r.authors[0]?.family ?? "") || "Anon";
  let word = "";
  for (const w of r.title.split(/\s+/, 12)) {
    word = ascii(w);
    if (word !== "" && !KEY_STOP_WORDS.has(word.toLowerCase())) break;
    word = "";
  }
  return `${family}${r.year ?? ""}${word.charAt(0).toUpperCase()}${word.slice(1)}`;
}

/** "a", "b", …, "z", "aa", "ab", …: the suffix of the n-th repeat of a key (n ≥ 1). */
function suffix(n: number): string {
  let s = "";
  for (let i = n; i > 0; i = Math.floor((i - 1) / 26)) {
    s = String.fromCharCode(97 + ((i - 1) % 26)) + s;
  }
  return s;
}

function bibEntry(r: ReviewRecord, key: string): string {
  const [first, last] = pageRange(r.pages);
  const preprint = isPreprint(r);
  const fields: [string, string | undefined][] = [
    ["author", r.authors.length > 0 ? r.authors.map(bibName).join(" and ") : undefined],
    ["title", bibTitle(r.title)],
    [preprint ? "howpublished" : "journal", r.journal && latex(r.journal)],
    ["year", r.year?.toString()],
    ["volume", r.volume && latex(r.volume)],
    ["number", r.issue && latex(r.issue)],
    ["pages", first && latex(last ? `${first}--${last}` : first)],
    ["doi", r.doi && verbatim(r.doi)],
    ["pmid", r.pmid && verbatim(r.pmid)],
    ["pmcid", r.pmcid && verbatim(r.pmcid)],
    ["url", r.pmid ? undefined : verbatim(urlOf(r))],
    ["keywords", r.mesh.length > 0 ? latex(r.mesh.join("; ")) : undefined],
    ["abstract", r.abstract && latex(r.abstract)],
    ["annote", notes(r).map(latex).join("; ")],
  ];
  const lines = fields.filter(([, v]) => v).map(([name, v]) => `\t${name} = {${v}},`);
  return `@${preprint ? "misc" : "article"}{${key},\n${lines.join("\n")}\n}\n\n`;
}

/**
 * BibTeX keys are unique within one export: a repeated base gets "a", "b", … and the writer
 * remembers every key it gave, so a collision across batches is avoided too.
 */
function bibtexWriter(): ExportWriter {
  const used = new Set<string>();
  const keyOf = (r: ReviewRecord): string => {
    const base = keyBase(r);
    let key = base;
    for (let n = 1; used.has(key); n++) key = base + suffix(n);
    used.add(key);
    return key;
  };
  return {
    header: () => "",
    write: (records) => records.map((r) => bibEntry(r, keyOf(r))).join(""),
    footer: () => "",
    mime: "application/x-bibtex",
    extension: "bib",
  };
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
