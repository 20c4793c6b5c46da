/**
 * How the offline stand-ins decide whether a record matches one term of a query (pubmed-query.ts):
 * a record's searchable fields, folded the way PubMed's index sees words — lower case ASCII letters
 * and digits, diacritics removed, every other character a word break, Greek letters spelled out
 * (PubMed finds "Aβ" with "abeta"). PubMed ignores stopwords in word searches; so does this.
 */
import type { QueryTerm } from "./pubmed-query.js";

export interface SearchFields {
  pmid: string;
  /** Article identifiers PubMed's [aid] holds; here DOIs. */
  aids: readonly string[];
  title: string;
  abstract: string;
  authors: readonly {
    lastName: string | null;
    initials: string | null;
    collectiveName: string | null;
  }[];
  /** Journal names: full title and abbreviation(s). */
  journals: readonly string[];
  year: string | null;
  volume: string | null;
  issue: string | null;
  pages: string | null;
}

/** Letters NFKD leaves alone but a reader would transliterate. */
const LETTERS: Record<string, string> = {
  ø: "o",
  æ: "ae",
  œ: "oe",
  ß: "ss",
  ł: "l",
  đ: "d",
  ð: "d",
  þ: "th",
  ı: "i",
};

const GREEK: Record<string, string> = {
  α: "alpha",
  "⍺": "alpha",
  β: "beta",
  γ: "gamma",
  δ: "delta",
  ε: "epsilon",
  ζ: "zeta",
  η: "eta",
  θ: "theta",
  ι: "iota",
  κ: "kappa",
  λ: "lambda",
  μ: "mu",
  µ: "mu",
  ν: "nu",
  ξ: "xi",
  π: "pi",
  ρ: "rho",
  σ: "sigma",
  τ: "tau",
  υ: "upsilon",
  φ: "phi",
  χ: "chi",
  ψ: "psi",
  ω: "omega",
};

/**
 * How a Greek letter reads: spelled out inside its word ("Aβ" → "abeta", as PubMed indexes it),
 * spelled out as a word of its own ("a beta"), or dropped ("a").
 */
export type GreekMode = "inline" | "spaced" | "drop";

/** Diacritics off, special letters transliterated, lower case, Greek as `greek` says. */
export function foldText(text: string, greek: GreekMode = "inline"): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\x20-\x7e]/g, (c) => {
      const letter = LETTERS[c];
      if (letter !== undefined) return letter;
      const name = GREEK[c];
      if (name === undefined || greek === "drop") return " ";
      return greek === "inline" ? name : ` ${name} `;
    });
}

/** Lower case ASCII alphanumeric words of a text, in order. */
export function foldWords(text: string, greek: GreekMode = "inline"): string[] {
  return foldText(text, greek)
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/** PubMed's stopwords: never searched, whatever field they are tagged with. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about again all almost also although always among an and another any are as at be because " +
    "been before being between both but by can could did do does done due during each either " +
    "enough especially etc for found from further had has have having here how however i if in " +
    "into is it its itself just kg km made mainly make may mg might ml mm most mostly must nearly " +
    "neither no nor obtained of often on our overall perhaps pmid quite rather really regarding " +
    "seem seen several should show showed shown shows significantly since so some such than that " +
    "the their theirs them then there therefore these they this those through thus to upon " +
    "various very was we were what when which while with within without would"
  ).split(" "),
);

/** A record's fields folded once, ready for any number of terms. */
export interface PreparedFields {
  fields: SearchFields;
  titleWords: readonly string[];
  /** Title words with Greek in every GreekMode, so any of those spellings finds the record. */
  titleSet: ReadonlySet<string>;
  tiabSet: ReadonlySet<string>;
  allSet: ReadonlySet<string>;
  aids: ReadonlySet<string>;
  /** "smith j", "van den berg ff", or a collective name, folded. */
  authorNames: readonly string[];
  journalNames: readonly string[];
}

export function prepareFields(fields: SearchFields): PreparedFields {
  const words = (text: string) => [
    ...foldWords(text),
    ...foldWords(text, "spaced"),
    ...foldWords(text, "drop"),
  ];
  const titleSet = new Set(words(fields.title));
  const tiabSet = new Set([...titleSet, ...words(fields.abstract)]);
  const authorNames = fields.authors.map((a) =>
    foldWords(a.collectiveName ?? `${a.lastName ?? ""} ${a.initials ?? ""}`).join(" "),
  );
  const journalNames = fields.journals.map((j) => foldWords(j).join(" "));
  const allSet = new Set([
    ...tiabSet,
    ...authorNames.flatMap((n) => n.split(" ")),
    ...journalNames.flatMap((n) => n.split(" ")),
  ]);
  return {
    fields,
    titleWords: foldWords(fields.title),
    titleSet,
    tiabSet,
    allSet,
    aids: new Set(fields.aids.map((a) => a.toLowerCase())),
    authorNames,
    journalNames,
  };
}

/** The first page of a MedlinePgn ("1116-22" → "1116", "e0033722" stays). */
export function firstPage(pages: string | null): string {
  return (
    (pages ?? "")
      .split(/[-–,;\s]/)[0]
      ?.trim()
      .toLowerCase() ?? ""
  );
}

function hasSequence(words: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0) return false;
  outer: for (let i = 0; i + phrase.length <= words.length; i++) {
    for (let k = 0; k < phrase.length; k++) if (words[i + k] !== phrase[k]) continue outer;
    return true;
  }
  return false;
}

/** Word searches: one word (maybe truncated with "*") in a set, or a quoted phrase in order. */
function wordMatch(term: QueryTerm, set: ReadonlySet<string>, sequence: readonly string[]) {
  const words = foldWords(term.text);
  if (term.quoted && words.length > 1) return hasSequence(sequence, words);
  if (words.length === 0) return null;
  if (!term.quoted && words.length === 1 && STOPWORDS.has(words[0] ?? "")) return null;
  if (term.text.endsWith("*")) {
    const stem = words.join("");
    for (const w of set) if (w.startsWith(stem)) return true;
    return false;
  }
  return words.every((w) => set.has(w));
}

/** Whether the record matches one term: true, false, or null when PubMed would ignore the term. */
export function matchTerm(p: PreparedFields, term: QueryTerm): boolean | null {
  const f = p.fields;
  const folded = foldWords(term.text).join(" ");
  switch (term.field) {
    case "ti":
      return wordMatch(term, p.titleSet, p.titleWords);
    case "tiab":
      return wordMatch(term, p.tiabSet, p.titleWords);
    case "aid":
      return p.aids.has(term.text.trim().toLowerCase());
    case "pmid":
      return term.text.trim() === f.pmid;
    case "au":
    case "1au": {
      const names = term.field === "1au" ? p.authorNames.slice(0, 1) : p.authorNames;
      // "smith" finds "smith j" but not "smithson j"; "smith j" finds "smith ja" (initials truncate).
      const hit = (n: string) =>
        n === folded ||
        n.startsWith(`${folded} `) ||
        (folded.includes(" ") && n.startsWith(folded));
      return folded !== "" && names.some(hit);
    }
    case "ta":
      return p.journalNames.includes(folded);
    case "dp":
      return f.year !== null && term.text.trim().slice(0, 4) === f.year;
    case "vi":
      return (f.volume ?? "").toLowerCase() === term.text.trim().toLowerCase();
    case "ip":
      return (f.issue ?? "").toLowerCase() === term.text.trim().toLowerCase();
    case "pg":
      return firstPage(f.pages) === firstPage(term.text);
    default:
      if (term.text.trim() === f.pmid || p.aids.has(term.text.trim().toLowerCase())) return true;
      return wordMatch(term, p.allSet, p.titleWords);
  }
}
