/**
 * A citation written out the way people write them: Vancouver (NLM: ISO abbreviation without
 * periods, abbreviated page ranges, "et al." after six or three authors), APA 7 (full journal
 * title in title case, full page ranges with an en dash, https://doi.org/ links), Harvard
 * (quoted title, "pp."), informal ("Smith et al., Title, Journal 2019"), BibTeX (sometimes with
 * LaTeX accent escapes) and RIS (sometimes with CRLF line ends). Each style has a few variants
 * picked by the bits of `variant`, so a set of references covers the forms found in the wild.
 */
import type { SynthRecord } from "./synth.js";

export const REFERENCE_STYLES = [
  "vancouver",
  "apa",
  "harvard",
  "informal",
  "bibtex",
  "ris",
] as const;
export type ReferenceStyle = (typeof REFERENCE_STYLES)[number];

export interface CitedPerson {
  lastName: string | null;
  /** As PubMed records them: "AB", "JPD". */
  initials: string | null;
  foreName: string | null;
  collectiveName: string | null;
}

/** What a reference says about a work; a real one copies its PubMed record, a wrong one alters it. */
export interface Cited {
  pmid: string | null;
  doi: string | null;
  title: string;
  authors: CitedPerson[];
  /** NLM's ISO abbreviation as recorded (older records keep periods: "J. Clin. Oncol."). */
  journalAbbrev: string;
  /** NLM's full title ("Journal of magnetic resonance (San Diego, Calif. : 1997)"). */
  journalFull: string;
  year: string;
  /** As PubMed prints it: "Jun", "06", "Spring", or null. */
  month: string | null;
  volume: string | null;
  issue: string | null;
  /** MedlinePgn as recorded: "113-25", "1116-1122", "e0033722". */
  pages: string | null;
}

export interface StyleOptions {
  doi: boolean;
  pmid: boolean;
  /** Bits choosing a style's variants (0–7). */
  variant: number;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const SMALL_WORDS = new Set(
  "a an and as at by de des du et for from in la le of on or the to with y und".split(" "),
);

const bit = (o: StyleOptions, n: number) => (o.variant & (1 << n)) !== 0;
const noFinalPeriod = (title: string) => title.replace(/\.\s*$/, "");
const withFinalStop = (title: string) => (/[.?!]["')\]]?$/.test(title) ? title : `${title}.`);

/** "113-25" → ["113", "125"]; "H337-H349" → ["H337", "H349"]; one page → [page]. */
export function pageRange(pages: string): [string] | [string, string] {
  const m = /^([A-Za-z]*)(\d+)-([A-Za-z]*)(\d+)$/.exec(pages.trim());
  if (!m) return [pages.trim()];
  const [, p1 = "", start = "", p2 = "", end = ""] = m;
  const full = end.length < start.length ? start.slice(0, start.length - end.length) + end : end;
  return [`${p1}${start}`, `${p2 || p1}${full}`];
}

/**
 * NLM's abbreviated range: "1116-1122" → "1116-22", "100-109" → "100-9". Pages with a letter
 * ("S224-S225", "H337-H349") NLM prints in full.
 */
export function abbreviatePages(pages: string): string {
  const range = pageRange(pages);
  if (range.length === 1) return range[0];
  const [da, db] = range;
  if (!/^\d+$/.test(da) || !/^\d+$/.test(db) || da.length !== db.length) return `${da}-${db}`;
  let i = 0;
  while (i < db.length - 1 && da[i] === db[i]) i++;
  return `${da}-${db.slice(i)}`;
}

function fullPages(pages: string, dash: string): string {
  return pageRange(pages).join(dash);
}

/**
 * A full NLM title as citations print it: no place qualifier, no subtitle after " : ", "; " or
 * " = ", title case ("Journal of Magnetic Resonance"); words with capitals inside stay ("PeerJ").
 */
export function citedJournalName(full: string, keepThe = true): string {
  const bare = full.replace(/\s*\([^)]*\)/g, "").trim();
  const main = (bare.split(/\s+[:=]\s+|;\s+/)[0] ?? bare).replace(/\.$/, "").trim();
  let sentenceStart = true;
  const words = main.split(/\s+/).map((word) => {
    const start = sentenceStart;
    sentenceStart = word.endsWith(".");
    if (/[A-Z0-9]/.test(word.slice(1))) return word;
    if (!start && SMALL_WORDS.has(word.toLowerCase())) return word.toLowerCase();
    return word.replace(/(^|-)(\p{Ll})/gu, (_, sep: string, c: string) => sep + c.toUpperCase());
  });
  const name = words.join(" ");
  return keepThe ? name : name.replace(/^The\s+/, "");
}

function monthName(month: string | null): string | null {
  if (month === null) return null;
  if (/^\d{1,2}$/.test(month)) return MONTHS[Number(month) - 1] ?? null;
  return /^[A-Z][a-z]{2}$/.test(month) ? month : null;
}

/** "AB" → "A. B." (APA) or "A.B." (Harvard); a hyphenated forename keeps its hyphen ("J.-M."). */
function dottedInitials(p: CitedPerson, spaced: boolean): string {
  const parts = p.foreName?.match(/\p{Lu}/gu) ? p.foreName.split(/\s+/) : null;
  if (parts && /^\p{Lu}[\p{Ll}'’]+-\p{Lu}/u.test(parts[0] ?? "")) {
    const hyphenated = (parts[0] ?? "")
      .split("-")
      .map((x) => `${x.charAt(0)}.`)
      .join("-");
    const rest = (p.initials ?? "").slice(2).split("");
    return [hyphenated, ...rest.map((c) => `${c}.`)].join(spaced ? " " : "");
  }
  return [...(p.initials ?? "")].map((c) => `${c}.`).join(spaced ? " " : "");
}

function vancouverName(p: CitedPerson): string {
  return p.collectiveName ?? [p.lastName, p.initials].filter((x) => x).join(" ");
}

function commaName(p: CitedPerson, spaced: boolean): string {
  if (p.collectiveName !== null) return p.collectiveName;
  const initials = dottedInitials(p, spaced);
  return initials === "" ? (p.lastName ?? "") : `${p.lastName ?? ""}, ${initials}`;
}

/** Given name for BibTeX and RIS: the forename as recorded, else dotted initials. */
function fullName(p: CitedPerson): string {
  if (p.collectiveName !== null) return p.collectiveName;
  const given = p.foreName ?? dottedInitials(p, true);
  return given === "" ? (p.lastName ?? "") : `${p.lastName ?? ""}, ${given}`;
}

function surname(p: CitedPerson | undefined): string {
  return p?.collectiveName ?? p?.lastName ?? "Anonymous";
}

function vancouver(c: Cited, o: StyleOptions): string {
  const shown = c.authors.length > 6 ? c.authors.slice(0, bit(o, 0) ? 3 : 6) : c.authors;
  const authors =
    shown.map(vancouverName).join(", ") + (shown.length < c.authors.length ? ", et al" : "");
  const month = bit(o, 1) ? monthName(c.month) : null;
  let source = `${c.journalAbbrev.replace(/\./g, "")}. ${c.year}${month ? ` ${month}` : ""}`;
  if (c.volume) source += `;${c.volume}${c.issue ? `(${c.issue})` : ""}`;
  if (c.pages) source += `:${abbreviatePages(c.pages)}`;
  let text = `${authors}. ${withFinalStop(c.title)} ${source}.`;
  if (o.doi && c.doi) text += bit(o, 2) ? ` https://doi.org/${c.doi}` : ` doi:${c.doi}.`;
  if (o.pmid && c.pmid) text += ` PMID: ${c.pmid}.`;
  return text;
}

function apa(c: Cited, o: StyleOptions): string {
  const names = c.authors.map((p) => commaName(p, true));
  let authors: string;
  if (names.length === 1) authors = names[0] ?? "";
  else if (names.length <= 20) authors = `${names.slice(0, -1).join(", ")}, & ${names.at(-1)}`;
  else authors = `${names.slice(0, 19).join(", ")}, . . . ${names.at(-1)}`;
  // A group author ends without the period an initial gives the others.
  if (!authors.endsWith(".")) authors += ".";
  let text = `${authors} (${c.year}). ${withFinalStop(c.title)} ${citedJournalName(c.journalFull, !bit(o, 0))}`;
  if (c.volume) text += `, ${c.volume}${c.issue ? `(${c.issue})` : ""}`;
  if (c.pages) text += `, ${fullPages(c.pages, "–")}`;
  text += ".";
  if (o.doi && c.doi) text += bit(o, 1) ? ` doi:${c.doi}` : ` https://doi.org/${c.doi}`;
  if (o.pmid && c.pmid) text += ` PMID: ${c.pmid}`;
  return text;
}

function harvard(c: Cited, o: StyleOptions): string {
  const names = c.authors.map((p) => commaName(p, false));
  const authors =
    names.length > 3
      ? `${names[0]} et al.`
      : names.length === 1
        ? (names[0] ?? "")
        : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  let text = `${authors} (${c.year}) '${noFinalPeriod(c.title)}', ${citedJournalName(c.journalFull, bit(o, 0))}`;
  if (c.volume) text += `, ${c.volume}${c.issue ? `(${c.issue})` : ""}`;
  if (c.pages) {
    const range = pageRange(c.pages);
    text += range.length === 1 ? `, p. ${range[0]}` : `, pp. ${range.join("–")}`;
  }
  text += ".";
  if (o.doi && c.doi)
    text += bit(o, 1) ? ` Available at: https://doi.org/${c.doi}.` : ` doi:${c.doi}.`;
  if (o.pmid && c.pmid) text += ` PMID: ${c.pmid}.`;
  return text;
}

function informal(c: Cited, o: StyleOptions): string {
  const first = surname(c.authors[0]);
  const who =
    c.authors.length > 2
      ? `${first} et al.`
      : c.authors.length === 2
        ? `${first} and ${surname(c.authors[1])}`
        : first;
  const journal = bit(o, 0)
    ? c.journalAbbrev.replace(/\./g, "")
    : citedJournalName(c.journalFull, false);
  let text = bit(o, 1)
    ? `${who} (${c.year}) ${noFinalPeriod(c.title)}. ${journal}`
    : `${who}, ${noFinalPeriod(c.title)}, ${journal} ${c.year}`;
  if (o.doi && c.doi) text += `, doi:${bit(o, 2) ? c.doi.toLowerCase() : c.doi}`;
  if (o.pmid && c.pmid) text += ` (PMID ${c.pmid})`;
  return text;
}

const LATEX: Record<string, string> = {
  á: "{\\'a}",
  é: "{\\'e}",
  í: "{\\'i}",
  ó: "{\\'o}",
  ú: "{\\'u}",
  à: "{\\`a}",
  è: "{\\`e}",
  ä: '{\\"a}',
  ë: '{\\"e}',
  ö: '{\\"o}',
  ü: '{\\"u}',
  ñ: "{\\~n}",
  ç: "{\\c{c}}",
  ø: "{\\o}",
  Ø: "{\\O}",
  Á: "{\\'A}",
  É: "{\\'E}",
  Ö: '{\\"O}',
  Ü: '{\\"U}',
};

function bibValue(text: string, latex: boolean): string {
  const escaped = text.replace(/([&%$#_])/g, "\\$1");
  return latex ? escaped.replace(/[^\x20-\x7e]/g, (ch) => LATEX[ch] ?? ch) : escaped;
}

function bibtex(c: Cited, o: StyleOptions): string {
  const latex = bit(o, 0);
  const key = `${surname(c.authors[0])}${c.year}${c.title.split(/\s+/)[0] ?? ""}`
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9]/g, "")
    .toLowerCase();
  const authors = c.authors
    .map((p) => (p.collectiveName !== null ? `{${p.collectiveName}}` : fullName(p)))
    .map((n) => bibValue(n, latex))
    .join(" and ");
  const fields: [string, string | null][] = [
    ["author", authors],
    ["title", `{${bibValue(noFinalPeriod(c.title), latex)}}`],
    ["journal", bibValue(bit(o, 1) ? c.journalAbbrev : citedJournalName(c.journalFull), latex)],
    ["year", c.year],
    ["volume", c.volume],
    ["number", c.issue],
    ["pages", c.pages ? fullPages(c.pages, "--") : null],
    ["doi", o.doi ? c.doi : null],
    ["pmid", o.pmid ? c.pmid : null],
  ];
  const body = fields
    .filter((f): f is [string, string] => f[1] !== null && f[1] !== "")
    .map(([k, v]) => `  ${k} = {${v}},`)
    .join("\n");
  return `@article{${key},\n${body}\n}`;
}

function ris(c: Cited, o: StyleOptions): string {
  const lines: string[] = ["TY  - JOUR"];
  const add = (tag: string, value: string | null) => {
    if (value) lines.push(`${tag}  - ${value}`);
  };
  for (const p of c.authors) add("AU", fullName(p));
  add("TI", noFinalPeriod(c.title));
  if (bit(o, 1)) add("JO", c.journalAbbrev);
  else add("T2", citedJournalName(c.journalFull));
  add("PY", c.year);
  add("VL", c.volume);
  add("IS", c.issue);
  if (c.pages) {
    const range = pageRange(c.pages);
    add("SP", range[0]);
    add("EP", range[1] ?? null);
  }
  if (o.doi) add("DO", c.doi);
  if (o.pmid) add("AN", c.pmid);
  lines.push("ER  - ");
  return lines.join(bit(o, 0) ? "\r\n" : "\n");
}

const FORMATS: Record<ReferenceStyle, (c: Cited, o: StyleOptions) => string> = {
  vancouver,
  apa,
  harvard,
  informal,
  bibtex,
  ris,
};

export function formatReference(style: ReferenceStyle, cited: Cited, opts: StyleOptions): string {
  return FORMATS[style](cited, opts);
}

/** Whether a style states volume and pages (informal references do not). */
export function statesVolumeAndPages(style: ReferenceStyle): boolean {
  return style !== "informal";
}

/** A reference to a record of the synthetic corpus (the demo, the size and schema tests). */
export function synthReference(
  r: SynthRecord,
  style: ReferenceStyle = "vancouver",
  opts: { doi?: boolean; pmid?: boolean; variant?: number } = {},
): string {
  const c = r.citation;
  return formatReference(
    style,
    {
      pmid: r.pmid,
      doi: r.doi,
      title: r.title,
      authors: r.authors,
      journalAbbrev: c.journal.iso,
      journalFull: c.journal.title,
      year: String(c.pubDate.year),
      month: null,
      volume: c.volume,
      issue: c.issue,
      pages: c.medlinePgn,
    },
    { doi: opts.doi ?? false, pmid: opts.pmid ?? false, variant: opts.variant ?? 0 },
  );
}
