/**
 * A parsed reference against a PubMed record, field by field, with the tolerance a careful reader
 * has (docs/trust.md): case, diacritics and punctuation are ignored; journals match by full title,
 * ISO abbreviation, or as an abbreviation of either ("J Biol Chem" = "The Journal of biological
 * chemistry"); authors by family name and first initial; page ranges as MEDLINE abbreviates them
 * ("1286-93" = "1286-1293"); years by the issue's year or, for an article published online first,
 * its Entrez year just before.
 */
import { normalizeDoi } from "../ncbi/ids.js";
import type { Article } from "../ncbi/types.js";
import type { ParsedReference } from "./reference-parse.js";
import {
  fold,
  nameKey,
  pageRange,
  titleSimilarity,
  wordSimilarity,
  words,
} from "./reference-text.js";

export const FIELDS = [
  "title",
  "authors",
  "journal",
  "year",
  "volume",
  "pages",
  "doi",
  "pmid",
] as const;
export type Field = (typeof FIELDS)[number];

/** Titles this similar (Dice over words) are the same title written twice. */
export const SAME_TITLE = 0.85;

const JOURNAL_STOP = new Set(["the", "of", "and", "in", "for", "on", "de", "la", "und", "fur"]);

function journalWords(name: string): string[] {
  // "BMJ (Clinical research ed.)": NLM's qualifier in parentheses is not part of the name as cited.
  return words(name.replace(/\([^)]*\)/g, " ")).filter((w) => !JOURNAL_STOP.has(w));
}

/** Each word of the shorter form begins the word of the longer form at the same place. */
function abbreviates(short: string[], long: string[]): boolean {
  if (short.length === 0 || short.length !== long.length) return false;
  return short.every((w, i) => long[i]!.startsWith(w));
}

export function sameJournal(cited: string, record: Pick<Article, "journalInfo">): boolean {
  const c = journalWords(cited);
  // A subtitle after " : " or " = " ("Journal of X : official journal of Y") is rarely cited.
  const names = [record.journalInfo.title, record.journalInfo.isoAbbreviation]
    .filter((n): n is string => Boolean(n))
    .flatMap((n) => [n, n.split(/\s+[:=]\s+/)[0]!])
    .map(journalWords);
  return names.some((n) => n.join(" ") === c.join(" ") || abbreviates(c, n) || abbreviates(n, c));
}

function recordYears(a: Article): string[] {
  const d = a.journalInfo.publicationDate;
  const issue = d.year ?? /\d{4}/.exec(d.medlineDate ?? "")?.[0] ?? null;
  const online = a.articleDates.edat?.slice(0, 4) ?? a.articleDates.pubmed?.slice(0, 4) ?? null;
  const years = issue ? [issue] : [];
  // Published online the year before its issue: cited either way.
  if (online && (!issue || Number(online) === Number(issue) - 1)) years.push(online);
  return years;
}

const recordFamily = (x: Article["authors"][number]) => x.lastName ?? x.collectiveName ?? "";

/** An organisation's name as cited may drop or abbreviate words ("and", its acronym). */
const sameOrganisation = (cited: string, recorded: string) =>
  titleSimilarity(cited, recorded) >= 0.7;

function sameAuthors(ref: ParsedReference, a: Article): boolean {
  if (a.authors.length === 0) return false;
  const keys = a.authors.map((x) => nameKey(recordFamily(x)));
  const groups = a.authors.flatMap((x) => (x.collectiveName ? [x.collectiveName] : []));
  const isGroup = (name: string) =>
    name.includes(" ") && groups.some((g) => sameOrganisation(name, g));
  const first = ref.authors[0]!;
  if (nameKey(first.family) !== keys[0] && !(a.authors[0]!.collectiveName && isGroup(first.family)))
    return false;
  const firstInitial = first.initials?.[0];
  const recordInitial = a.authors[0]!.initials?.[0] ?? a.authors[0]!.firstName?.[0];
  if (firstInitial && recordInitial && fold(firstInitial) !== fold(recordInitial)) return false;
  // Every other author named must be an author of the record; a list longer than the record's is not.
  if (ref.authors.length > a.authors.length) return false;
  return ref.authors.slice(1).every((r) => keys.includes(nameKey(r.family)) || isGroup(r.family));
}

function samePages(cited: string, recorded: string | null): boolean {
  const c = pageRange(cited);
  const r = pageRange(recorded);
  if (!c) return true; // nothing comparable was given
  if (!r || c.first !== r.first) return false;
  return !c.last || !r.last || c.last === r.last;
}

const sameVolume = (cited: string, recorded: string | null) =>
  recorded !== null && fold(cited).replace(/^0+/, "") === fold(recorded).replace(/^0+/, "");

/** Whether the reference's title can be compared (a title in a non-Latin script folds to nothing). */
export const comparableTitle = (ref: ParsedReference) =>
  ref.title !== undefined && words(ref.title).length > 0;

/** The reference as read, then each other way of cutting its title from its journal. */
export function readings(ref: ParsedReference): ParsedReference[] {
  const others = (ref.alternatives ?? []).map(({ title, journal }) => {
    const { journal: _j, alternatives: _a, ...rest } = ref;
    return { ...rest, title, ...(journal ? { journal } : {}) };
  });
  return [ref, ...others];
}

/**
 * The fields the reference gives that the record does not agree with, in FIELDS order, for the
 * reading of the reference that agrees best.
 */
export function differences(ref: ParsedReference, a: Article): Field[] {
  let best: Field[] | undefined;
  for (const reading of readings(ref)) {
    const d = differencesOf(reading, a);
    if (!best || d.length < best.length) best = d;
    if (d.length === 0) break;
  }
  return best!;
}

/** Each reading's title as words, folded once for comparing with many records. */
export function readingTitleWords(ref: ParsedReference): string[][] {
  return comparableTitle(ref) ? readings(ref).map((r) => words(r.title ?? "")) : [];
}

/** The best title similarity over the reference's readings (`readingTitleWords`). */
export function bestTitleSimilarity(readingWords: readonly string[][], title: readonly string[]) {
  let best = 0;
  for (const w of readingWords) best = Math.max(best, wordSimilarity(w, title));
  return best;
}

/** The shortest title among the readings: every word of it is a title word. */
export function searchTitle(ref: ParsedReference): string | undefined {
  return readings(ref)
    .map((r) => r.title)
    .filter((t): t is string => Boolean(t))
    .sort((x, y) => x.length - y.length)[0];
}

function differencesOf(ref: ParsedReference, a: Article): Field[] {
  const out: Field[] = [];
  if (comparableTitle(ref) && titleSimilarity(ref.title!, a.title) < SAME_TITLE) out.push("title");
  if (ref.authors.length > 0 && !sameAuthors(ref, a)) out.push("authors");
  if (ref.journal && !sameJournal(ref.journal, a)) out.push("journal");
  if (ref.year && !recordYears(a).includes(ref.year)) out.push("year");
  if (ref.volume && !sameVolume(ref.volume, a.journalInfo.volume)) out.push("volume");
  if (ref.pages && !samePages(ref.pages, a.journalInfo.pages)) out.push("pages");
  if (ref.doi && (a.doi === null || normalizeDoi(a.doi) !== ref.doi)) out.push("doi");
  if (ref.pmid && ref.pmid !== a.pmid) out.push("pmid");
  return out;
}

/** How many of the fields the reference gives agree with the record (for choosing among near misses). */
export function agreements(ref: ParsedReference, diff: readonly Field[]): number {
  const given: Field[] = [];
  if (comparableTitle(ref)) given.push("title");
  if (ref.authors.length > 0) given.push("authors");
  if (ref.journal) given.push("journal");
  if (ref.year) given.push("year");
  if (ref.volume) given.push("volume");
  if (ref.pages) given.push("pages");
  if (ref.doi) given.push("doi");
  if (ref.pmid) given.push("pmid");
  return given.filter((f) => !diff.includes(f)).length;
}
