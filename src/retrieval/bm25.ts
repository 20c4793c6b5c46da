/**
 * The one tokenizer and BM25 parameterisation used everywhere: when chunks are indexed, when
 * queries are scored, in both vector adapters and in the hash embedder.
 *
 * BM25(q, d) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
 *
 * The document side (the tf saturation) is stored in each chunk's sparse vector; the idf side is
 * applied at query time from live collection statistics — by Qdrant itself for a sparse vector
 * declared with `modifier: "idf"`, and by the same formula in SQL in the pgvector adapter — so
 * the two adapters return the same scores for the same corpus.
 */
import { porterStem } from "./stem.js";

/** Term-frequency saturation: the usual 1.2 (Robertson & Zaragoza's recommended 1.2–2.0 range). */
export const BM25_K1 = 1.2;
/** Length normalisation: the standard 0.75. */
export const BM25_B = 0.75;
/**
 * avgdl, fixed rather than measured: Qdrant bakes the length normalisation into stored vectors, so
 * a live average would force rewriting them as the corpus grows. A PubMed title + abstract is about
 * 150–170 tokens once stop words are dropped, hence 160 (docs/corpus.md, "BM25").
 */
export const BM25_AVG_DOC_LEN = 160;
/** Longer "words" are sequences, hashes or markup debris, not query terms. */
const MAX_TOKEN_LENGTH = 48;

// prettier-ignore
const STOPWORDS: ReadonlySet<string> = new Set([
  "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
  "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
  "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "either",
  "etc", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here",
  "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
  "itself", "just", "may", "me", "might", "more", "most", "must", "my", "myself", "neither",
  "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours",
  "ourselves", "out", "over", "own", "same", "shall", "she", "should", "so", "some", "such",
  "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these",
  "they", "this", "those", "through", "thus", "to", "too", "under", "until", "up", "upon", "us",
  "very", "via", "was", "we", "were", "what", "when", "where", "whether", "which", "while", "who",
  "whom", "whose", "why", "will", "with", "within", "without", "would", "yet", "you", "your",
  "yours", "yourself", "yourselves", "s", "ll", "re", "ve",
]);

/**
 * Stems and term ids of the words seen lately: a corpus repeats its vocabulary, so a sync stems
 * and hashes each distinct word about once instead of at every occurrence. Bounded: a full map
 * starts over. Only short words are kept: V8 makes a substring of 13 characters or more a view
 * of the text it was cut from, and a key like that would keep the whole text alive.
 */
const MEMO_LIMIT = 200_000;
const MEMO_KEY_LENGTH = 13;
const stems = new Map<string, string>();
const termIds = new Map<string, number>();

function memo<V>(cache: Map<string, V>, key: string, make: (key: string) => V): V {
  if (key.length >= MEMO_KEY_LENGTH) return make(key);
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= MEMO_LIMIT) cache.clear();
    cache.set(key, (value = make(key)));
  }
  return value;
}

const SPLIT = /[^\p{L}\p{N}]+/u;
const MARKS = /\p{M}+/gu;
const ASCII_WORD = /^[a-z]+$/;
const ASCII = /^[^\u0080-\uffff]*$/;
/** SPLIT on ASCII text: its letters and digits are [a-z0-9] once lower-cased. */
const ASCII_SPLIT = /[^a-z0-9]+/;

/**
 * Lowercases, folds compatibility forms and strips diacritics (NFKD: "naïve" → "naive",
 * "²" → "2"), splits on anything that is not a letter or digit (so hyphenated and slashed
 * compounds split: "IL-6" → "il", "6"), drops English stopwords and Porter-stems plain
 * English words. Numbers, Greek letters and mixed tokens ("h1n1", "β") are kept as they are.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  // ASCII (most of PubMed's text) has no compatibility forms or combining marks to take off.
  const ascii = ASCII.test(text);
  const plain = ascii ? text : text.normalize("NFKD").replace(MARKS, "");
  for (const raw of plain.toLowerCase().split(ascii ? ASCII_SPLIT : SPLIT)) {
    if (raw.length === 0 || raw.length > MAX_TOKEN_LENGTH || STOPWORDS.has(raw)) continue;
    out.push(ASCII_WORD.test(raw) ? memo(stems, raw, porterStem) : raw);
  }
  return out;
}

/**
 * FNV-1a (32-bit) over the term's UTF-8 bytes: a stable uint32 used as the sparse-vector index in
 * Qdrant and the `term` key of the pgvector postings. Collisions merge two terms everywhere
 * alike, which costs a little precision and never consistency.
 */
export function termId(term: string): number {
  return memo(termIds, term, fnv1a);
}

function fnv1a(term: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(term, "utf8")) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface SparseVector {
  indices: number[];
  values: number[];
}

/** The BM25 tf-saturation part for one term of a document of `docLen` tokens. */
export function tfPart(tf: number, docLen: number, avgDocLen = BM25_AVG_DOC_LEN): number {
  return (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * docLen) / avgDocLen));
}

/**
 * The tokens' term ids in ascending order, each with how many tokens have it. Sorting the ids in
 * a typed array (numerically, natively) instead of counting them in a Map and sorting [id, n]
 * pairs makes a chunk's vector about three times faster (the 13,850 chunks of 5,000 records: 47–72
 * ms against 139–205 ms, warm, the same vectors).
 */
function termRuns(tokens: readonly string[], each: (id: number, count: number) => void): void {
  idRuns(termIdsOf(tokens), each);
}

/** Sorts `ids` in place and calls `each` once per distinct id, ascending, with its count. */
function idRuns(ids: Uint32Array, each: (id: number, count: number) => void): void {
  const n = ids.length;
  ids.sort();
  for (let i = 0; i < n;) {
    const id = ids[i] as number;
    let j = i + 1;
    while (j < n && ids[j] === id) j++;
    each(id, j - i);
    i = j;
  }
}

/** The stored sparse vector of a chunk whose tokens have these term ids (sorted in place). */
function tfVector(ids: Uint32Array, avgDocLen: number): SparseVector {
  const v: SparseVector = { indices: [], values: [] };
  idRuns(ids, (id, tf) => {
    v.indices.push(id);
    v.values.push(tfPart(tf, ids.length, avgDocLen));
  });
  return v;
}

/** A chunk's stored sparse vector: one entry per distinct term, value = tfPart. Indices ascend. */
export function docSparseVector(
  tokens: readonly string[],
  avgDocLen = BM25_AVG_DOC_LEN,
): SparseVector {
  return tfVector(termIdsOf(tokens), avgDocLen);
}

function termIdsOf(tokens: readonly string[]): Uint32Array {
  const ids = new Uint32Array(tokens.length);
  for (let i = 0; i < ids.length; i++) ids[i] = termId(tokens[i] as string);
  return ids;
}

/** A chunk's token count and stored sparse vector, as `docSparseVector(tokenize(text))` gives. */
export interface DocTerms {
  tokenCount: number;
  sparse: SparseVector;
}

/**
 * `tokenize` and `docSparseVector` in one pass for the indexer, without a string per token: an
 * ASCII text's words are looked up in WORDS by their characters in place, so only a word not
 * seen before is cut out, stemmed and hashed. Other text goes the general way. The same result
 * as the two calls (__tests__/corpus/bm25.test.ts compares them) in about 60 % of their time, and
 * little garbage: a sync's preparation of a 500-record EFetch reply took 15–19 % less time with it
 * and the date change in utcMinute, measured side by side.
 */
export function docTerms(text: string, avgDocLen = BM25_AVG_DOC_LEN): DocTerms {
  const ids = asciiTermIds(text);
  if (!ids) {
    const tokens = tokenize(text);
    return { tokenCount: tokens.length, sparse: docSparseVector(tokens, avgDocLen) };
  }
  return { tokenCount: ids.length, sparse: tfVector(ids, avgDocLen) };
}

/**
 * The words of an ASCII text by their lower-cased characters: key → the term id its token has,
 * or STOP for a stopword. Open addressing (linear probing) over a power-of-two table; bounded
 * like the memos above: a full table starts over.
 */
const WORDS = {
  keys: new Array<string | undefined>(1 << 16),
  values: new Float64Array(1 << 16),
  size: 0,
};
const STOP = -1;
/** The table grows to this many slots, then is cleared once half full (262,144 words). */
const WORDS_MAX_SLOTS = 1 << 19;
let scratchIds = new Uint32Array(1024);

/** The term ids of an ASCII text's tokens, in text order; null if the text is not ASCII. */
function asciiTermIds(text: string): Uint32Array | null {
  const len = text.length;
  let n = 0;
  for (let i = 0; i < len;) {
    let c = text.charCodeAt(i);
    if (c >= 0x80) return null;
    if (!isWordChar(c)) {
      i++;
      continue;
    }
    // A word: [start, i), FNV-1a over its lower-cased characters.
    const start = i;
    let h = 0x811c9dc5;
    let letters = true;
    do {
      c = lower(c);
      if (c < 97) letters = false;
      h = Math.imul(h ^ c, 0x01000193);
      c = ++i < len ? text.charCodeAt(i) : 0;
    } while (i < len && isWordChar(c));
    if (i - start > MAX_TOKEN_LENGTH) continue;
    const id = wordValue(text, start, i, h >>> 0, letters);
    if (id === STOP) continue;
    if (n === scratchIds.length) {
      const grown = new Uint32Array(n * 2);
      grown.set(scratchIds);
      scratchIds = grown;
    }
    scratchIds[n++] = id;
  }
  return scratchIds.subarray(0, n);
}

/** An ASCII letter's lower-case code; any other code as it is. */
function lower(c: number): number {
  return c >= 65 && c <= 90 ? c | 0x20 : c;
}

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
}

/** The term id of text[start, end) lower-cased (STOP for a stopword), from WORDS or made there. */
function wordValue(text: string, start: number, end: number, h: number, letters: boolean): number {
  const length = end - start;
  let mask = WORDS.keys.length - 1;
  let slot = h & mask;
  for (let key = WORDS.keys[slot]; key !== undefined; key = WORDS.keys[slot]) {
    if (key.length === length && sameLower(key, text, start)) return WORDS.values[slot] as number;
    slot = (slot + 1) & mask;
  }
  // A flat copy of the characters, not a view into `text` (which it would keep alive).
  const codes = new Array<number>(length);
  for (let k = 0; k < length; k++) codes[k] = lower(text.charCodeAt(start + k));
  const word = String.fromCharCode(...codes);
  const value = STOPWORDS.has(word) ? STOP : termId(letters ? porterStem(word) : word);
  if (WORDS.size * 2 >= WORDS.keys.length) {
    const slots = Math.min(WORDS.keys.length * 2, WORDS_MAX_SLOTS);
    rehash(slots, slots === WORDS.keys.length);
    mask = WORDS.keys.length - 1;
    slot = h & mask;
    while (WORDS.keys[slot] !== undefined) slot = (slot + 1) & mask;
  }
  WORDS.keys[slot] = word;
  WORDS.values[slot] = value;
  WORDS.size++;
  return value;
}

/** Moves WORDS into `slots` slots, or empties them (`clear`: the table is at its bound). */
function rehash(slots: number, clear: boolean): void {
  const { keys, values } = WORDS;
  WORDS.keys = new Array<string | undefined>(slots);
  WORDS.values = new Float64Array(slots);
  WORDS.size = 0;
  if (clear) return;
  const mask = slots - 1;
  for (let s = 0; s < keys.length; s++) {
    const key = keys[s];
    if (key === undefined) continue;
    // FNV-1a over an ASCII key's bytes is its hash over the characters, as asciiTermIds makes it.
    let slot = fnv1a(key) & mask;
    while (WORDS.keys[slot] !== undefined) slot = (slot + 1) & mask;
    WORDS.keys[slot] = key;
    WORDS.values[slot] = values[s] as number;
    WORDS.size++;
  }
}

/** Whether `key` equals text[start, start + key.length) lower-cased. */
function sameLower(key: string, text: string, start: number): boolean {
  for (let k = 0; k < key.length; k++) {
    if (key.charCodeAt(k) !== lower(text.charCodeAt(start + k))) return false;
  }
  return true;
}

/** A query's sparse vector: its distinct terms, weight 1 (repeating a query word adds nothing). */
export function querySparseVector(tokens: readonly string[]): SparseVector {
  const v: SparseVector = { indices: [], values: [] };
  termRuns(tokens, (id) => {
    v.indices.push(id);
    v.values.push(1);
  });
  return v;
}

/**
 * BM25 idf with the +1 inside the log, so it is never negative: N chunks, df of them contain the
 * term. This is the formula Qdrant applies for `modifier: "idf"`.
 */
export function idf(N: number, df: number): number {
  return Math.log((N - df + 0.5) / (df + 0.5) + 1);
}
