/**
 * Client text as messages and stored notes quote it: cut short, so no input can make an answer
 * (or a job row) grow with it, and cut only between grapheme clusters (never inside a surrogate
 * pair, an emoji sequence or a letter with its combining marks), which is also what keeps the
 * quote storable: Postgres refuses JSON holding half a surrogate pair (issue 45, finding 4).
 * Lists of problems are cut the same way: the first few, then "and 9,998 more".
 */

/** How much of a value or key a message quotes, in UTF-16 code units. */
export const EXCERPT_CHARS = 40;

/** How many problems a message lists before "and N more". */
export const LISTED_PROBLEMS = 5;

let segmenter: Intl.Segmenter | undefined;

/** Lone surrogates (not half of a pair) → U+FFFD, as String.prototype.toWellFormed does. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with each lone surrogate replaced by U+FFFD: text any JSON store takes. */
export const wellFormed = (text: string): string => text.replace(LONE_SURROGATE, "\ufffd");

/**
 * `text` when it has at most `max` UTF-16 code units; else its longest prefix that ends on a
 * grapheme-cluster boundary and leaves room for the "…" that marks the cut (so the result has at
 * most `max` code units). Lone surrogates in the input become U+FFFD.
 */
export function excerpt(text: string, max: number = EXCERPT_CHARS): string {
  if (text.length <= max) return wellFormed(text);
  const room = max - 1;
  // Whether a boundary falls at i depends on the text before i and the code point at i only, so
  // segmenting a prefix that reaches one code point past `room` finds every boundary up to it
  // without walking the rest (a megabyte, for the values this is for).
  segmenter ??= new Intl.Segmenter("en", { granularity: "grapheme" });
  let cut = 0;
  for (const { index } of segmenter.segment(text.slice(0, room + 2))) {
    if (index > room) break;
    cut = index;
  }
  return `${wellFormed(text.slice(0, cut))}…`;
}

/** `"value"` cut to an excerpt: how messages quote what a client sent. */
export const quoted = (text: string, max: number = EXCERPT_CHARS): string =>
  `"${excerpt(text, max)}"`;

/**
 * The first `LISTED_PROBLEMS` of `items` joined by `separator`, then "and 9,998 more" when there
 * are more (`total`: how many there are in all, when `items` holds only the first few).
 */
export function listSome(items: readonly string[], separator = "; ", total = items.length): string {
  const shown = items.slice(0, LISTED_PROBLEMS);
  const rest = total - shown.length;
  return rest > 0
    ? [...shown, `and ${rest.toLocaleString("en-US")} more`].join(separator)
    : shown.join(separator);
}
