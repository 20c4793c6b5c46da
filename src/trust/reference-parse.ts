/**
 * One free-text reference → the fields it gives (docs/trust.md). No parsing library in the npm
 * registry reads Vancouver, APA, Harvard and informal styles together (the maintained ones are
 * models or services that need a network), so this is a careful parser of the common shapes:
 *
 *   Vancouver  Smith J, Lee AB, et al. Title. J Abbrev. 2019 Mar;12(3):100-9. doi:10.1/x
 *   APA        Smith, J., & Lee, A. B. (2019). Title. Journal Name, 12(3), 100–109. https://doi.org/…
 *   Harvard    Smith, J. and Lee, A.B. (2019) 'Title', Journal Name, 12(3), pp. 100–109.
 *   informal   Smith et al., Title, Journal 2019
 *
 * What it cannot place it leaves out: a field the reference does not give is never compared, so a
 * misread can make a true reference a mismatch but never an invented one verified (a title, or a
 * DOI or PMID, must still match a PubMed record). BibTeX and RIS entries: ./reference-tagged.ts.
 */
import { normalizeDoi } from "../ncbi/ids.js";
import { initialsOf, type RefAuthor } from "./reference-text.js";

export interface ParsedReference {
  authors: RefAuthor[];
  /** "et al." or "and others": the list is not complete. */
  etAl: boolean;
  title?: string;
  journal?: string;
  year?: string;
  volume?: string;
  issue?: string;
  /** As written: "100-9", "e0123", "1286–1293". */
  pages?: string;
  doi?: string;
  pmid?: string;
  /**
   * Other ways to cut the text between the authors and the volume into title and journal, when it
   * holds several sentence ends and the journal's name may hold one too ("Environmental Science.
   * Processes & Impacts"); compared in turn with each record (./reference-compare.ts).
   */
  alternatives?: TitleJournal[];
}

export interface TitleJournal {
  title: string;
  journal: string;
}

const DOI = /(?:https?:\/\/(?:dx\.)?doi\.org\/|\bdoi:?\s*)?(10\.\d{4,9}\/[^\s"<>]+)/i;
const PMID = /\b(?:PubMed\s+)?PMID:?\s*(\d{1,9})\b/i;
const PMCID = /\bPMCID:?\s*PMC\d+\b|\bPMC\d{4,}\b/gi;
const URL = /\b(?:https?:\/\/|www\.)\S+/gi;
const NOTES =
  /\b(?:Epub(?: ahead of print)?\s*(?:\d{4}(?:\s+[A-Z][a-z]{2}(?:\s+\d{1,2})?)?)?|Available (?:from|at):?|\[?(?:Internet|cited [^\]]*)\]|Accessed:? [^.]*|Retrieved from)\.?/gi;

/** Takes the identifiers out of the text: what is left is the bibliographic part. */
function takeIdentifiers(text: string): { rest: string; doi?: string; pmid?: string } {
  let rest = text;
  const doiMatch = DOI.exec(rest);
  const doi = doiMatch?.[1] ? normalizeDoi(doiMatch[1]) : undefined;
  if (doiMatch) rest = rest.replace(doiMatch[0], " ");
  const pmidMatch = PMID.exec(rest);
  const pmid = pmidMatch?.[1];
  if (pmidMatch) rest = rest.replace(pmidMatch[0], " ");
  rest = rest
    .replace(PMCID, " ")
    .replace(URL, " ")
    .replace(NOTES, " ")
    .replace(/\(\s*\)|\[\s*\]/g, " ");
  rest = rest
    .replace(/\s+/g, " ")
    .replace(/(?:\s*[.,;:]\s*)+$/, "")
    .trim();
  return { rest, ...(doi ? { doi } : {}), ...(pmid ? { pmid } : {}) };
}

const UPPER = "\\p{Lu}";
// No hyphen inside a word: "Müller-Lüdenscheidt" is two words joined by FAMILY's separator, so a
// run of hyphens has one reading only (a hyphen in both would backtrack exponentially).
const NAME_WORD = `[${UPPER}][\\p{L}'’]*`;
const PARTICLE = /^(?:van|von|der|den|de|del|della|da|di|dos|du|la|le|ten|ter)$/;
/** "van der Berg", "O'Neil", "García-Márquez", "de la Cruz" */
const FAMILY = `(?:(?:van|von|der|den|de|del|della|da|di|dos|du|la|le|ten|ter|al|el|bin)\\s+)*${NAME_WORD}(?:[\\s\\-]${NAME_WORD}){0,3}`;
const VANCOUVER_AUTHOR = new RegExp(`^(${FAMILY})\\s+([${UPPER}]{1,4})$`, "u");
const INITIALS = new RegExp(`^(?:[${UPPER}]\\.?[\\s\\-]*){1,4}$`, "u");
const ET_AL = /,?\s*(?:et\.?\s*al\.?|and others|et al)\s*$/i;

export const COLLECTIVE =
  /\b(?:Group|Panel|Committee|Consortium|Collaborat\w*|Investigators|Network|Association|Society|Organi[sz]ation|Council|Task Force|Working|Team|Initiative|Alliance|Writing)\b/;

/** Reads an author list in any of the styles above; null when it does not look like one. */
export function parseAuthors(text: string): { authors: RefAuthor[]; etAl: boolean } | null {
  let list = text.trim().replace(/[.,;:\s]+$/, "");
  // APA 7 lists nineteen authors, ". . ." and the last one.
  const ellipsis = /,?\s*(?:\.\s?){3}\s*|\s*…\s*/;
  const etAl = ET_AL.test(list) || /\bet al\b/i.test(list) || ellipsis.test(list);
  list = list
    .replace(ET_AL, "")
    .replace(/\bet al\.?/gi, "")
    .replace(ellipsis, ", ");
  if (list === "") return null;
  const tokens = list
    .split(/\s*,\s*(?:&|and)\s+|\s+(?:&|and)\s+|\s*[,;]\s*/)
    .map((t) => t.trim())
    .filter(Boolean);
  const authors: RefAuthor[] = [];
  for (const [i, token] of tokens.entries()) {
    // An organisation ends the list ("…, & TAX 325 Study Group"); its name may hold "and".
    if (COLLECTIVE.test(token)) {
      authors.push({ family: tokens.slice(i).join(" ") });
      break;
    }
    if (INITIALS.test(token) && authors.length > 0 && !authors.at(-1)!.initials) {
      authors.at(-1)!.initials = initialsOf(token.replace(/[.\s-]/g, ""));
      continue;
    }
    const vancouver = VANCOUVER_AUTHOR.exec(token);
    if (vancouver?.[1] && vancouver[2]) {
      authors.push({ family: vancouver[1], initials: vancouver[2] });
      continue;
    }
    // "J. A. Smith" (given names first)
    const givenFirst = new RegExp(`^((?:[${UPPER}]\\.\\s*){1,3})(${FAMILY})$`, "u").exec(token);
    if (givenFirst?.[1] && givenFirst[2]) {
      authors.push({ family: givenFirst[2], initials: initialsOf(givenFirst[1]) });
      continue;
    }
    if (new RegExp(`^${FAMILY}$`, "u").test(token) && token.length <= 40) {
      authors.push({ family: token });
      continue;
    }
    return null;
  }
  return authors.length > 0 && authors.length <= 100 ? { authors, etAl } : null;
}

/**
 * The source's tail: "2019 Mar;12(3):100-9", "12(3), 100–109", "12(3), pp. 100–109", "12:e123".
 * Volume, issue and pages, and the year when it stands here (Vancouver).
 */
const VANCOUVER_TAIL =
  /(?:^|[.\s])((?:1[6-9]|20)\d{2})(?:\s+[A-Za-z]{3,9}(?:\s+\d{1,2})?(?:\s*[-–]\s*[A-Za-z]{3,9}(?:\s+\d{1,2})?)?)?\s*;\s*([A-Za-z]?\d+[A-Za-z]?)?\s*(?:\(([^)]{1,20})\))?\s*(?::\s*([A-Za-z]{0,5}\d+[A-Za-z]?(?:\s*[-–]\s*[A-Za-z]{0,5}\d+[A-Za-z]?)?))?/;
const COMMA_TAIL =
  /,\s*(?:vol\.?\s*)?(\d+[A-Za-z]?)\s*(?:\(([^)]{1,20})\)|,\s*(?:no\.?|issue)\s*(\w{1,10}))?\s*(?:[,:]\s*(?:pp?\.?\s*)?([A-Za-z]{0,5}\d+[A-Za-z]?(?:\s*[-–]\s*[A-Za-z]{0,5}\d+[A-Za-z]?)?))?\s*$/i;

interface Tail {
  year?: string;
  volume?: string;
  issue?: string;
  pages?: string;
}

const defined = (t: Tail): Tail =>
  Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined && v !== "")) as Tail;

/** "Title. J Abbrev. 2019 Mar;12(3):100-9" → the text before the tail, and the tail's fields. */
function splitVancouverTail(text: string): { head: string; tail: Tail } | null {
  const m = VANCOUVER_TAIL.exec(text);
  if (!m?.[1]) return null;
  return {
    head: text.slice(0, m.index).trim(),
    tail: defined({ year: m[1], volume: m[2], issue: m[3]?.trim(), pages: m[4] }),
  };
}

function splitCommaTail(text: string): { head: string; tail: Tail } {
  const m = COMMA_TAIL.exec(text);
  if (!m) return { head: text, tail: {} };
  return {
    head: text.slice(0, m.index).trim(),
    tail: defined({ volume: m[1], issue: (m[2] ?? m[3])?.trim(), pages: m[4] }),
  };
}

/**
 * "Title. Journal" → the ways to cut it, the likeliest first. A quoted title (Harvard) ends at the
 * last closing quote before a comma. Otherwise the journal is most likely the text after the last
 * sentence end (". ", "? ", "! "), since a title may hold one ("A trial. The XYZ study.") and an
 * abbreviated journal does not; a full journal name may ("American Journal of Physiology. Heart
 * and Circulatory Physiology"), so the earlier cuts are kept as alternatives. "?" and "!" stay
 * with the title.
 */
function titleJournalSplits(text: string): TitleJournal[] {
  if (/^['‘"“]/.test(text)) {
    let close = -1;
    for (const m of text.matchAll(/[’'"”](?=[,.](?:\s|$))/g)) close = m.index;
    if (close > 1) {
      return [{ title: text.slice(1, close), journal: text.slice(close + 2) }];
    }
  }
  const cuts = [...text.matchAll(/([.?!])\s+(?=\S)/g)];
  if (cuts.length === 0) return [{ title: text, journal: "" }];
  return cuts.reverse().map((end) => ({
    title: text.slice(0, end.index) + (end[1] === "." ? "" : end[1]),
    journal: text.slice(end.index + end[0].length),
  }));
}

/** The title and journal fields of the likeliest cut, and the other cuts as alternatives. */
function titleAndJournal(text: string): Partial<ParsedReference> {
  const cuts = titleJournalSplits(text)
    .map((c) => ({ title: clean(c.title) ?? "", journal: clean(c.journal) ?? "" }))
    .filter((c) => c.title !== "");
  const [first, ...rest] = cuts;
  if (!first) return {};
  return {
    title: first.title,
    ...(first.journal ? { journal: first.journal } : {}),
    ...(rest.length > 0 ? { alternatives: rest.slice(0, 5) } : {}),
  };
}

const clean = (s: string | undefined) => s?.replace(/^[\s.,;:]+|[\s.,;:]+$/g, "") || undefined;

/** APA and Harvard: "Authors (2019). Title. Journal, 12(3), 100–109." */
function authorYearStyle(text: string): ParsedReference | null {
  const m = /^(.{2,3000}?)\s*\(((?:1[6-9]|20)\d{2})[a-z]?(?:,[^)]{0,30})?\)\s*[.,:]?\s*(.*)$/.exec(
    text,
  );
  if (!m?.[1] || !m[2]) return null;
  const people = parseAuthors(m[1]) ?? collectiveAuthor(m[1].replace(/[.]$/, ""));
  if (!people) return null;
  const { head, tail } = splitCommaTail(m[3] ?? "");
  return { ...people, ...titleAndJournal(head), year: m[2], ...tail };
}

/** "WHO Study Group", "Guideline Development Panel for …": an organisation as author. */
function collectiveAuthor(text: string): { authors: RefAuthor[]; etAl: boolean } | null {
  const name = text.trim();
  return COLLECTIVE.test(name) && name.length <= 200 && !/[.?!]/.test(name)
    ? { authors: [{ family: name }], etAl: false }
    : null;
}

/** Vancouver: "Authors. Title. Journal. 2019;12(3):100-9." (authors may be missing). */
function vancouverStyle(text: string): ParsedReference | null {
  const split = splitVancouverTail(text);
  if (!split) return null;
  let body = split.head;
  let people: { authors: RefAuthor[]; etAl: boolean } = { authors: [], etAl: false };
  const firstStop = /\.\s+(?=\S)/.exec(body);
  if (firstStop) {
    const lead = body.slice(0, firstStop.index);
    const maybe = parseAuthors(lead) ?? collectiveAuthor(lead);
    if (maybe) {
      people = maybe;
      body = body.slice(firstStop.index + firstStop[0].length);
    }
  }
  const fields = titleAndJournal(body.replace(/[.]$/, ""));
  if (!fields.journal && people.authors.length === 0) return null;
  return { ...people, ...fields, ...split.tail };
}

/**
 * MLA and Chicago authors: the first inverted ("Smith, John A."), the others not ("Anne Lee"):
 * "Smith, John, and Anne Lee", "Smith, John, Anne Lee, and Bob Ray", "Smith, John A., et al."
 */
function invertedFirstAuthors(text: string): { authors: RefAuthor[]; etAl: boolean } | null {
  let list = text.trim().replace(/[.,\s]+$/, "");
  const etAl = /\bet al\b/i.test(list);
  list = list.replace(/,?\s*et al\.?/gi, "");
  const parts = list.split(/\s*,\s*(?:and|&)\s+|\s+(?:and|&)\s+|\s*,\s*/).filter(Boolean);
  if (parts.length < 2 || !new RegExp(`^${FAMILY}$`, "u").test(parts[0]!)) return null;
  const authors: RefAuthor[] = [{ family: parts[0]!, initials: initialsOf(parts[1]!) }];
  for (const name of parts.slice(2)) {
    const words = name.split(/\s+/);
    let family = words.pop()!;
    // "Luis de Lecea": lower-case particles belong to the family name.
    while (words.length > 1 && PARTICLE.test(words.at(-1)!)) family = `${words.pop()} ${family}`;
    if (!new RegExp(`^${FAMILY}$`, "u").test(family)) return null;
    authors.push({
      family,
      ...(words.length > 0 ? { initials: initialsOf(words.join(" ")) } : {}),
    });
  }
  return { authors, etAl };
}

const YEAR = /\b((?:1[6-9]|20)\d{2})\b/;

/**
 * MLA and Chicago, whose titles stand in double quotes ending with their full stop:
 *   Smith, John, and Anne Lee. “Title.” Journal, vol. 12, no. 3, 2019, pp. 100–109.
 *   Smith, John, and Anne Lee. 2019. "Title." Journal 12 (3): 100–109.
 *   Smith, John. "Title." Journal 12, no. 3 (2019): 100–109.
 */
function quotedTitleStyle(text: string): ParsedReference | null {
  const m =
    /^(.{2,3000}?)\.\s+(?:((?:1[6-9]|20)\d{2})[a-z]?\.\s+)?(?:“([^”]{2,1000}?)”|"([^"]{2,1000}?)")\s*(.*)$/.exec(
      text,
    );
  const quoted = m?.[3] ?? m?.[4];
  if (!m?.[1] || !quoted || !/[.,?!]$/.test(quoted)) return null;
  const people = invertedFirstAuthors(m[1]) ?? parseAuthors(m[1]);
  if (!people) return null;
  const title = quoted.replace(/[.,]$/, "");
  // NLM's place qualifier after a journal's name ("(San Diego, Calif. : 1997)") is no source data.
  const tail = (m[5] ?? "").replace(/\s*\([^)]*[,:][^)]*\)/g, "").replace(/^[.,\s]+/, "");
  const journal = clean(
    /^(.*?)(?:,?\s+vol\.|,?\s+\d|,\s*no\.|,\s*\(?(?:1[6-9]|20)\d{2}|$)/i.exec(tail)?.[1],
  );
  const rest = tail.slice(journal ? tail.indexOf(journal) + journal.length : 0);
  const vol = /vol\.?\s*(\w+)/i.exec(rest) ?? /^[,\s]*(\d+[A-Za-z]?)\b/.exec(rest);
  const volume = vol?.[1];
  const issue =
    /\bno\.?\s*(\w+)/i.exec(rest)?.[1] ?? /^[,\s]*\d+[A-Za-z]?\s*\((\w{1,10})\)/.exec(rest)?.[1];
  // The year is not the volume (a four-digit volume such as 1871 reads like one).
  const year = m[2] ?? YEAR.exec(vol ? rest.slice(vol.index + vol[0].length) : rest)?.[1];
  const pages =
    /(?:\bpp?\.\s*|:\s*)([A-Za-z]{0,6}\d+[A-Za-z]?(?:\s*[-–]\s*[A-Za-z]{0,6}\d+[A-Za-z]?)?)/.exec(
      rest,
    )?.[1];
  return {
    ...people,
    title,
    ...(journal ? { journal } : {}),
    ...(year ? { year } : {}),
    ...(volume ? { volume } : {}),
    ...(issue ? { issue } : {}),
    ...(pages ? { pages } : {}),
  };
}

/** Informal: "Smith et al., Title, Journal 2019" / "Smith J and Lee A, Title, Journal, 2019". */
function informalStyle(text: string): ParsedReference | null {
  const parts = text.split(/\s*,\s*/);
  if (parts.length < 2) return null;
  // The authors: the first part, then more parts only while they read as names with initials
  // ("Smith J, Lee AB, …") or initials (APA's "Smith, J., …"), up to an "et al." or "and".
  let people = parseAuthors(parts[0] ?? "");
  if (!people) return null;
  let take = 1;
  for (let n = 2; n < parts.length && n <= 100; n++) {
    const previous = parts[n - 2] ?? "";
    const part = parts[n - 1] ?? "";
    if (/\bet al\b|\s(?:and|&)\s/i.test(previous)) break;
    if (!VANCOUVER_AUTHOR.test(part.replace(ET_AL, "")) && !INITIALS.test(part)) break;
    const p = parseAuthors(parts.slice(0, n).join(", "));
    if (!p) break;
    people = p;
    take = n;
  }
  let rest = parts.slice(take);
  let year: string | undefined;
  const last = rest.at(-1) ?? "";
  const y = /^(.*?)\s*\(?((?:1[6-9]|20)\d{2})\)?$/.exec(last);
  if (y?.[2]) {
    year = y[2];
    rest = [...rest.slice(0, -1), ...(y[1] ? [y[1]] : [])];
  }
  // The journal is the last part, or (a name with a comma: "Adolescent Health, Medicine and
  // Therapeutics") the last two or three, kept as alternatives.
  const cut = (k: number): TitleJournal => ({
    title: clean(rest.slice(0, -k).join(", ")) ?? "",
    journal: clean(rest.slice(-k).join(", ")) ?? "",
  });
  const cuts = [1, 2, 3].filter((k) => rest.length > k).map(cut);
  const title = cuts[0]?.title ?? clean(rest.join(", "));
  const journal = cuts[0]?.journal;
  const alternatives = cuts.slice(1).filter((c) => c.title !== "");
  return {
    ...people,
    ...(title ? { title } : {}),
    ...(journal ? { journal } : {}),
    ...(year ? { year } : {}),
    ...(alternatives.length > 0 ? { alternatives } : {}),
  };
}

/** Strips list numbering: "1. ", "[12] ", "3) ". */
function stripNumbering(text: string): string {
  return text.replace(/^\s*(?:\[\d{1,4}\]|\d{1,4}[.)])\s+/, "");
}

export function parseFreeText(input: string): ParsedReference {
  const { rest, doi, pmid } = takeIdentifiers(stripNumbering(input.normalize("NFC")));
  const ids = { ...(doi ? { doi } : {}), ...(pmid ? { pmid } : {}) };
  const parsed =
    authorYearStyle(rest) ?? quotedTitleStyle(rest) ?? vancouverStyle(rest) ?? informalStyle(rest);
  if (parsed) return { ...parsed, ...ids };
  // Nothing recognised: the text may still be a bare title.
  const title = clean(rest);
  return { authors: [], etAl: false, ...(title ? { title } : {}), ...ids };
}
