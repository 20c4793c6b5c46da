/**
 * Citation formatting for parsed PubMed records (the `pubmed_cite` tool).
 * Each article is mapped to CSL-JSON once; citation-js renders every style from that item.
 * The server calls it in the live thread (./live-thread.ts), never on the MCP loop: loading
 * citation-js and building a style's engine take seconds of CPU, a 50 × 6 call about half a
 * second more.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Cite as CiteInstance } from "@citation-js/core";
import { monthNumber } from "../ncbi/dates.js";
import type { Article, Author, PublicationDate } from "../ncbi/types.js";

/*
 * citation-js is CommonJS and requires the ESM-only node-fetch 3. Node (>= 20.19) loads that
 * natively, but Jest's CommonJS loader cannot, so `import` would break every test that reaches
 * this module; Node's own require sidesteps Jest's loader and behaves the same in production.
 * It is required on the first citation, not at import: core and its plugins are about 100
 * modules that sessions which never cite would load at start-up (issue 11;
 * __tests__/startup/lazy-modules.test.ts guards it). Requiring the plugins registers their
 * formats with core, once per process (require caches them).
 */
const nodeRequire = createRequire(import.meta.url);
type CitationJs = typeof import("@citation-js/core");
let citationCore: CitationJs | undefined;

function citationJs(): CitationJs {
  if (!citationCore) {
    const core = nodeRequire("@citation-js/core") as CitationJs;
    nodeRequire("@citation-js/plugin-csl");
    nodeRequire("@citation-js/plugin-ris");
    nodeRequire("@citation-js/plugin-bibtex");
    citationCore = core;
  }
  return citationCore;
}

export const CITATION_STYLES = ["ris", "bibtex", "apa", "mla", "vancouver", "csl_json"] as const;
export type CitationStyle = (typeof CITATION_STYLES)[number];

export interface CslName {
  family?: string;
  given?: string;
  literal?: string;
}

export interface CslItem {
  id: string;
  type: "article-journal" | "book" | "chapter";
  title?: string;
  "container-title"?: string;
  "container-title-short"?: string;
  author?: CslName[];
  issued?: { "date-parts": [number[]] };
  volume?: string;
  issue?: string;
  page?: string;
  ISSN?: string;
  DOI?: string;
  PMID: string;
  PMCID?: string;
  URL: string;
  abstract?: string;
  keyword?: string;
}

/** "Jan", "January", "01" or "1" → 1; seasons ("Spring") and anything else → undefined. */
function monthOf(month: string | null): number | undefined {
  const mm = monthNumber(month);
  return mm === null ? undefined : Number(mm);
}

/** PubDate → CSL date-parts; a MedlineDate ("2001 Jan-Feb", "1998 Dec-1999 Jan") keeps its start. */
function dateParts(date: PublicationDate): number[] | null {
  if (date.year && /^\d{4}$/.test(date.year)) {
    const parts = [Number(date.year)];
    const month = monthOf(date.month);
    if (month !== undefined) {
      parts.push(month);
      const day = Number(date.day);
      if (Number.isInteger(day) && day >= 1 && day <= 31) parts.push(day);
    }
    return parts;
  }
  const m = /^(\d{4})(?:\s+([A-Za-z]+))?/.exec(date.medlineDate ?? "");
  if (!m) return null;
  const month = monthOf(m[2] ?? null);
  return month === undefined ? [Number(m[1])] : [Number(m[1]), month];
}

/**
 * MEDLINE abbreviates page ranges ("1032-48"); CSL wants full ranges so each style can
 * re-abbreviate by its own rule (APA expands, Vancouver and MLA shorten differently).
 */
function expandPages(pages: string): string {
  return pages
    .split(/\s*,\s*/)
    .map((range) => {
      const m = /^(\d+)-(\d+)$/.exec(range);
      const [first, last] = [m?.[1], m?.[2]];
      if (!first || !last || last.length >= first.length) return range;
      return `${first}-${first.slice(0, first.length - last.length)}${last}`;
    })
    .join(", ");
}

function cslName(author: Author): CslName | null {
  if (author.collectiveName) return { literal: author.collectiveName };
  if (!author.lastName) return null;
  const given = author.firstName ?? author.initials;
  return given ? { family: author.lastName, given } : { family: author.lastName };
}

/** PubMed ends ArticleTitle with a period; CSL styles add their own punctuation. */
function cslTitle(title: string): string {
  return title.trim().replace(/(?<!\.)\.$/, "");
}

/** `{ key: value }` when value is non-empty, else `{}`: absent fields are left out, not emptied. */
function field<K extends string, V>(key: K, value: V | null | undefined | ""): { [P in K]?: V } {
  return value === null || value === undefined || value === ""
    ? {}
    : ({ [key]: value } as { [P in K]?: V });
}

/** Maps one parsed record to CSL-JSON. */
export function toCslJson(article: Article): CslItem {
  const journal = article.journalInfo;
  const title = cslTitle(article.title);
  let type: CslItem["type"] = "article-journal";
  if (article.recordType === "PubmedBookArticle") {
    // A book record whose container differs from its own title is a chapter of that book.
    type = journal.title && cslTitle(journal.title) !== title ? "chapter" : "book";
  }
  const authors = article.authors.map(cslName).filter((n): n is CslName => n !== null);
  const parts = dateParts(journal.publicationDate);
  return {
    id: article.pmid,
    type,
    ...field("title", title),
    ...field("container-title", type === "book" ? null : journal.title),
    ...field("container-title-short", type === "article-journal" ? journal.isoAbbreviation : null),
    ...field("author", authors.length > 0 ? authors : null),
    ...field("issued", parts ? { "date-parts": [parts] as [number[]] } : null),
    ...field("volume", journal.volume),
    ...field("issue", journal.issue),
    ...field("page", journal.pages ? expandPages(journal.pages) : null),
    ...field("ISSN", journal.issn ?? journal.eissn),
    ...field("DOI", article.doi),
    PMID: article.pmid,
    ...field("PMCID", article.pmcid),
    URL: `https://pubmed.ncbi.nlm.nih.gov/${article.pmid}/`,
    ...field("abstract", article.abstractText),
    ...field("keyword", article.keywords.length > 0 ? article.keywords.join(", ") : null),
  };
}

type CslStyle = "apa" | "mla" | "vancouver";

/**
 * The style's CSL: APA and Vancouver as citation-js bundles them, MLA the project's own (it
 * bundles only apa, vancouver and harvard1). Its Register has get(), which
 * src/types/citation-js.d.ts leaves out.
 */
function styleXml(style: CslStyle): string {
  if (style === "mla") {
    return readFileSync(new URL("./csl/modern-language-association.csl", import.meta.url), "utf8");
  }
  const styles = citationJs().plugins.config.get("@csl").styles as unknown as {
    get(name: string): string;
  };
  return styles.get(style);
}

/** A style's citation element, and the least one CSL allows (a layout) that takes its place. */
const CITATION_ELEMENT = /<citation\b[\s\S]*?<\/citation>/;
const NO_CITATION = '<citation><layout><text variable="title"/></layout></citation>';

/** The citation-js template of each style, registered on the style's first use. */
const templates = new Map<CslStyle, string>();

/**
 * The template `<style>-bibliography`: the style with its citation element replaced by
 * NO_CITATION. citeproc builds an engine's citation layout beside its bibliography, each macro
 * copied into every place that calls it, and citation-js keeps each engine as long as the thread
 * lives (the live thread): APA's held 93 MB of heap, 48 MB without its citation layout, and took
 * about 0.6 s less CPU to build. Only bibliographies are formatted here, one record per Cite, so
 * what a citation element sets (its layout; disambiguation, which needs a second record) never
 * reaches the text: __tests__/eutils/cite.test.ts compares it with the whole style's (and 2,406
 * records, synthetic articles, books and chapters, gave the same text in all three styles). A
 * style the pattern finds no citation element in is registered whole.
 */
function template(style: CslStyle): string {
  let name = templates.get(style);
  if (name === undefined) {
    name = `${style}-bibliography`;
    const xml = styleXml(style).replace(CITATION_ELEMENT, NO_CITATION);
    citationJs().plugins.config.get("@csl").styles.add(name, xml);
    templates.set(style, name);
  }
  return name;
}

function bibliography(cite: CiteInstance, style: CslStyle): string {
  const text = String(
    cite.format("bibliography", { format: "text", template: template(style), lang: "en-US" }),
  ).trim();
  // The NLM style numbers entries for a reference list; one citation has no list position.
  return style === "vancouver" ? text.replace(/^1\.\s*/, "") : text;
}

/** RIS order of the common tags; citation-js's other tags follow in its own order. */
const RIS_ORDER = ["TY", "TI", "AU", "T2", "JO", "PY", "DA", "VL", "IS", "SP", "EP", "SN", "DO"];
const RIS_TAIL = ["AN", "ID", "C2", "UR", "KW", "AB"];

/** RIS dates are "YYYY/MM/DD/other" with two-digit month and day, empty where unknown. */
function risDate(item: CslItem): string | undefined {
  const [year, month, day] = item.issued?.["date-parts"][0] ?? [];
  if (year === undefined) return undefined;
  const pad = (n: number | undefined): string =>
    n === undefined ? "" : String(n).padStart(2, "0");
  return `${year}/${pad(month)}/${pad(day)}/`;
}

/**
 * citation-js 0.8.2 RIS needs repairs: it wraps values at 70 characters (breaking the
 * one-line-per-tag form readers expect), never writes DO, puts the whole range in SP, writes
 * unpadded dates and splits the CSL keyword string on commas. We take its tag object, fix
 * those tags, add AN/ID (the PMID) and JO, and write the lines here.
 */
function ris(cite: CiteInstance, item: CslItem, article: Article): string {
  const [entry = {}] = cite.format("ris", { format: "object" }) as Record<
    string,
    string | string[]
  >[];
  const tags = new Map<string, string[]>();
  for (const [tag, value] of Object.entries(entry)) tags.set(tag, ([] as string[]).concat(value));
  const set = (tag: string, value: string | undefined): void => {
    if (value) tags.set(tag, [value]);
    else tags.delete(tag);
  };
  const [first, ...rest] = (item.page ?? "").split(/\s*,\s*/)[0]?.split("-") ?? [];
  set("SP", first);
  set("EP", rest.join("-"));
  set(
    "JO",
    item.type === "article-journal"
      ? (item["container-title-short"] ?? item["container-title"])
      : undefined,
  );
  tags.delete("J2");
  set("DA", risDate(item));
  set("DO", item.DOI);
  set("AN", item.PMID);
  set("ID", item.PMID);
  tags.delete("KW");
  if (article.keywords.length > 0) tags.set("KW", article.keywords);
  const order = [
    ...RIS_ORDER,
    ...[...tags.keys()].filter((t) => !RIS_ORDER.includes(t) && !RIS_TAIL.includes(t)),
    ...RIS_TAIL,
  ];
  const lines: string[] = [];
  for (const tag of order) {
    for (const value of tags.get(tag) ?? []) {
      lines.push(`${tag}  - ${value.replace(/\s*[\r\n]+\s*/g, " ").trim()}`);
    }
  }
  lines.push("ER  - ");
  return lines.join("\n");
}

/** Renders the requested styles for one article; the result has exactly the requested keys. */
export function formatCitations<S extends CitationStyle>(
  article: Article,
  styles: readonly S[],
): Record<S, string> {
  const item = toCslJson(article);
  const { Cite } = citationJs();
  const cite = new Cite(item);
  const out = {} as Record<S, string>;
  for (const style of styles) {
    const s: CitationStyle = style;
    if (s === "csl_json") out[style] = JSON.stringify(item);
    else if (s === "ris") out[style] = ris(cite, item, article);
    else if (s === "bibtex") out[style] = String(cite.format("bibtex", { format: "text" })).trim();
    else out[style] = bibliography(cite, s);
  }
  return out;
}
