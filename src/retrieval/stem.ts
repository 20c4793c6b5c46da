/**
 * The Porter stemmer, written from M.F. Porter, "An algorithm for suffix stripping", Program 14(3),
 * 1980 (the five steps as published, including ABLI→ABLE in step 2). Input must be lowercase
 * ASCII letters; the tokenizer only hands such words in. Words of one or two letters are returned
 * unchanged, as in the author's reference implementations.
 */

/** A consonant is a letter other than a, e, i, o, u, and other than y preceded by a consonant. */
function isConsonant(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  // a e i o u
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return false;
  if (c === 121) return i === 0 ? true : !isConsonant(w, i - 1); // y
  return true;
}

/** m in [C](VC)^m[V]: the number of vowel→consonant transitions in `stem`. */
function measure(stem: string): number {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const cons = isConsonant(stem, i);
    if (cons && prevVowel) m++;
    prevVowel = !cons;
  }
  return m;
}

/** *v*: the stem contains a vowel. */
function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** *d: the stem ends with a double consonant. */
function endsDouble(stem: string): boolean {
  const n = stem.length;
  return n >= 2 && stem[n - 1] === stem[n - 2] && isConsonant(stem, n - 1);
}

/** *o: the stem ends consonant-vowel-consonant, the last consonant not w, x or y. */
function endsCvc(stem: string): boolean {
  const n = stem.length;
  if (n < 3) return false;
  if (!isConsonant(stem, n - 1) || isConsonant(stem, n - 2) || !isConsonant(stem, n - 3)) {
    return false;
  }
  const last = stem[n - 1];
  return last !== "w" && last !== "x" && last !== "y";
}

type Rule = readonly [suffix: string, replacement: string];

/**
 * Steps 2–4: the longest matching suffix decides; when its condition fails the word is left
 * alone (shorter suffixes are not tried), as the paper specifies.
 */
function applyLongest(w: string, rules: readonly Rule[], ok: (stem: string) => boolean): string {
  let best: Rule | undefined;
  for (const rule of rules) {
    if (w.endsWith(rule[0]) && (!best || rule[0].length > best[0].length)) best = rule;
  }
  if (!best) return w;
  const stem = w.slice(0, w.length - best[0].length);
  return ok(stem) ? stem + best[1] : w;
}

function step1a(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ies")) return w.slice(0, -2);
  if (w.endsWith("ss")) return w;
  if (w.endsWith("s")) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith("eed")) {
    return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w;
  }
  let stem: string | undefined;
  if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) stem = w.slice(0, -2);
  else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) stem = w.slice(0, -3);
  if (stem === undefined) return w;
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return stem + "e";
  if (endsDouble(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return stem + "e";
  return stem;
}

function step1c(w: string): string {
  return w.endsWith("y") && hasVowel(w.slice(0, -1)) ? w.slice(0, -1) + "i" : w;
}

const STEP2: readonly Rule[] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["abli", "able"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
];

const STEP3: readonly Rule[] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];

const STEP4: readonly Rule[] = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
].map((s) => [s, ""] as const);

function step4(w: string): string {
  return applyLongest(w, STEP4, (stem) => {
    if (measure(stem) <= 1) return false;
    // (m>1 and (*S or *T)) ION
    return !w.endsWith("ion") || stem.endsWith("s") || stem.endsWith("t");
  });
}

function step5(w: string): string {
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  if (w.endsWith("ll") && measure(w) > 1) w = w.slice(0, -1);
  return w;
}

const positive = (stem: string): boolean => measure(stem) > 0;

/** Stems one lowercase ASCII word. */
export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  let w = step1c(step1b(step1a(word)));
  w = applyLongest(w, STEP2, positive);
  w = applyLongest(w, STEP3, positive);
  return step5(step4(w));
}
