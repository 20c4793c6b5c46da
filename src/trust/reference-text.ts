/**
 * Text helpers for reading and comparing references (docs/trust.md): folding (case, diacritics,
 * punctuation), title words, author names, page ranges. Pure and linear in the input: every
 * pattern here is anchored or bounded, so a 10 kB reference cannot backtrack for long.
 */

/** "Müller-Lüdenscheidt" → "muller ludenscheidt": lowercase ASCII letters and digits, one space apart. */
export function fold(text: string): string {
  return (
    text
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      // Letters NFKD does not take apart.
      .replace(/ß/g, "ss")
      .replace(/æ/g, "ae")
      .replace(/œ/g, "oe")
      .replace(/ø/g, "o")
      .replace(/ł/g, "l")
      .replace(/ı/g, "i")
      .replace(/[đð]/g, "d")
      .replace(/þ/g, "th")
      .replace(/[^a-z0-9]+/g, " ")
      .trim()
  );
}

export function words(text: string): string[] {
  const f = fold(text);
  return f === "" ? [] : f.split(" ");
}

/** Words that say nothing of a title's subject (English function words). */
const STOP = new Set(
  (
    "a an and are as at be but by for from has have in into is it its of on or that the their " +
    "this to was were which with within without versus vs via among after before between during " +
    "than then there these those through under over upon not no"
  ).split(" "),
);

/**
 * The words a title search should AND together: up to `max` of the longest letter-only words
 * (not stop words, at least four letters), in title order. PubMed indexes a hyphenated word as a
 * whole too, so a word next to a hyphen or digit in the original is skipped, as is a word of a
 * non-Latin script (it folds to nothing).
 */
export function searchWords(title: string, max = 5): string[] {
  const plain = title.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  const take = (pattern: RegExp, into: string[]) => {
    for (const m of plain.matchAll(pattern)) {
      const w = (m[2] ?? "").toLowerCase();
      if (!STOP.has(w) && !into.includes(w)) into.push(w);
    }
    return into;
  };
  let candidates = take(/(^|[\s(["'“‘/])([A-Za-z]{4,})(?=$|[\s)\]"'”’.,;:!?/])/g, []);
  // A title of hyphenated words ("Host-Pathogen Interaction 5.0"): their parts, as PubMed also
  // indexes them apart.
  if (candidates.length < 2) candidates = take(/(^|[^A-Za-z])([A-Za-z]{4,})(?=$|[^A-Za-z])/g, []);
  const chosen = new Set([...candidates].sort((a, b) => b.length - a.length).slice(0, max));
  return candidates.filter((w) => chosen.has(w));
}

/** Dice coefficient of two titles' word multisets (0–1), on folded words. */
export function titleSimilarity(a: string, b: string): number {
  return wordSimilarity(words(a), words(b));
}

/** titleSimilarity of titles already folded to words (a caller comparing many pairs folds once). */
export function wordSimilarity(wa: readonly string[], wb: readonly string[]): number {
  if (wa.length === 0 || wb.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const w of wa) counts.set(w, (counts.get(w) ?? 0) + 1);
  let shared = 0;
  for (const w of wb) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      shared++;
      counts.set(w, n - 1);
    }
  }
  return (2 * shared) / (wa.length + wb.length);
}

/** Page range as given: first page, and the last page written out ("1286-93" → 1286, 1293). */
export interface PageRange {
  first: string;
  last?: string;
}

export function pageRange(pages: string | null | undefined): PageRange | undefined {
  const m =
    /^\s*(?:pp?\.?\s*)?([A-Za-z]{0,6}\d+[A-Za-z]?)(?:\s*[-–—‐]+\s*([A-Za-z]{0,6}\d+[A-Za-z]?))?/.exec(
      pages ?? "",
    );
  if (!m?.[1]) return undefined;
  const first = m[1].toLowerCase();
  const end = m[2]?.toLowerCase();
  if (!end) return { first };
  const fd = /\d+/.exec(first)?.[0] ?? "";
  const ed = /\d+/.exec(end)?.[0] ?? "";
  // MEDLINE and Vancouver drop the last page's leading digits that equal the first's, and its
  // letter prefix ("H337-49" is H337-H349).
  const prefix = /^[a-z]*/.exec(first)?.[0] ?? "";
  const last =
    ed.length < fd.length && !/[a-z]/.test(end)
      ? prefix + fd.slice(0, fd.length - ed.length) + ed
      : /^\d/.test(end) && prefix !== "" && ed.length === fd.length
        ? prefix + end
        : end;
  return { first, last };
}

/** One author as a reference names them: family name and initials where given. */
export interface RefAuthor {
  family: string;
  initials?: string;
}

/** "van der Berg" → "vandenberg"-like key: folded, no spaces, for comparing family names. */
export function nameKey(name: string): string {
  return fold(name).replace(/ /g, "");
}

/** Initials from given names or initials as written ("J.-P.", "Jean Paul", "JP") → "JP". */
export function initialsOf(given: string): string {
  const g = given.normalize("NFC").trim();
  if (/^\p{Lu}{1,4}$/u.test(g)) return g;
  return (g.match(/\p{L}+/gu) ?? []).map((part) => [...part][0]!.toUpperCase()).join("");
}
