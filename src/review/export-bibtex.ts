/**
 * BibTeX for review exports (docs/reviews.md, "Export"): @article, or @misc for preprints; keys
 * unique within one export across its batches; LaTeX's specials escaped, other text UTF-8.
 */
import {
  isPreprint,
  notes,
  oneLine,
  pageRange,
  urlOf,
  type ExportWriter,
} from "./export-common.js";
import type { ReviewAuthor, ReviewRecord } from "../store/review-types.js";

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
export function bibtexWriter(): ExportWriter {
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
