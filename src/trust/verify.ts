/**
 * pubmed_verify_references: each reference read (./reference-tagged.ts, ./reference-parse.ts),
 * its candidates found in PubMed in a few batched requests, and compared field by field
 * (./reference-compare.ts). docs/trust.md describes the rules; in short:
 *
 *   1. together: ESearch for every DOI ("10.1/x"[aid]) and title (its distinctive words AND-ed in
 *      [ti]), 20 references a request, ORed; ECitMatch for every reference giving journal, year,
 *      volume and first page, 25 a request;
 *   2. one EFetch (200 records a request) of every PMID given or found;
 *   3. a record is a candidate of a reference when the reference names it (PMID, DOI, ECitMatch) or
 *      their titles agree; `verified` when exactly one candidate agrees on every field given,
 *      `ambiguous` when several do, `mismatch` (the differing fields, and the record meant: the
 *      candidate that agrees on most) when none does, `not_found` without a candidate.
 *
 * For 100 references that is about 5 ESearch, 4 ECitMatch and 1–3 EFetch requests, sent as NCBI's
 * rate allows.
 */
import { ValidationError } from "../errors.js";
import { linkNotices, mergeNotices, noticesFromArticle, type Notice } from "../ncbi/notices.js";
import type { Article } from "../ncbi/types.js";
import { getEutils } from "../state.js";
import { withCrossrefNotices } from "./notices.js";
import {
  agreements,
  bestTitleSimilarity,
  comparableTitle,
  differences,
  readingTitleWords,
  SAME_TITLE,
  searchTitle,
  type Field,
} from "./reference-compare.js";
import type { ParsedReference } from "./reference-parse.js";
import { parseReference, splitReferences } from "./reference-tagged.js";
import { searchWords, words } from "./reference-text.js";

export const MAX_REFERENCES = 100;
/** One reference longer than this is a pasted document, not a reference. */
const MAX_REFERENCE_CHARS = 3_000;
const INPUT_ECHO = 100;
const SEARCH_CLAUSES = 20;
const CITMATCH_LINES = 25;
const EFETCH_IDS = 200;
/** Hits kept per search clause: a title's words AND-ed find a handful of records. */
const HITS_PER_CLAUSE = 20;
/** A title this close makes a record a candidate (SAME_TITLE makes it agree). */
const CANDIDATE_TITLE = 0.6;

export type Status = "verified" | "mismatch" | "not_found" | "ambiguous";

export interface Matched {
  title: string;
  first_author?: string;
  journal?: string;
  year?: string;
  volume?: string;
  pages?: string;
}

export interface VerifyResult {
  index: number;
  input: string;
  status: Status;
  pmid?: string;
  doi?: string;
  matched?: Matched;
  differences: Field[];
  notices: Notice[];
  candidates?: (Matched & { pmid: string })[];
  note?: string;
}

export interface VerifyOutput {
  results: VerifyResult[];
  summary: Record<Status, number> & { with_notices: number };
  note?: string;
  /** Only when Crossref was configured and could not be consulted. */
  warnings?: string[];
}

interface Item {
  index: number;
  text: string;
  ref?: ParsedReference;
  note?: string;
}

function echo(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length <= INPUT_ECHO ? t : `${[...t].slice(0, INPUT_ECHO).join("")}…`;
}

/** The references the caller sent, split where one string holds several. */
function readReferences(inputs: readonly string[]): { items: Item[]; split: boolean } {
  const items: Item[] = [];
  let split = false;
  for (const input of inputs) {
    const pieces = input.trim() === "" ? [] : splitReferences(input);
    if (pieces.length > 1) split = true;
    if (pieces.length === 0) items.push({ index: items.length, text: input, note: "empty" });
    for (const piece of pieces) {
      const item: Item = { index: items.length, text: piece.text };
      if (piece.text.length > MAX_REFERENCE_CHARS) {
        item.note = `longer than ${MAX_REFERENCE_CHARS} characters: not read as one reference; send each reference of a list as its own string`;
      } else {
        item.ref = parseReference(piece);
      }
      items.push(item);
    }
  }
  if (items.length > MAX_REFERENCES) {
    throw new ValidationError(
      `references hold ${items.length} references once lists are split; send at most ${MAX_REFERENCES} per call and the rest in further calls.`,
    );
  }
  return { items, split };
}

const chunk = <T>(list: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) =>
    list.slice(i * size, i * size + size),
  );

function searchClauses(ref: ParsedReference): string[] {
  const clauses: string[] = [];
  if (ref.doi) clauses.push(`"${ref.doi.replace(/"/g, "")}"[aid]`);
  const shortest = searchTitle(ref);
  const title = shortest ? searchWords(shortest) : [];
  if (title.length >= 2) clauses.push(`(${title.map((w) => `${w}[ti]`).join(" AND ")})`);
  return clauses;
}

async function search(clauses: string[], signal: AbortSignal): Promise<string[]> {
  const { value: found } = await getEutils().esearch(
    {
      db: "pubmed",
      term: clauses.join(" OR "),
      retmax: Math.min(HITS_PER_CLAUSE * clauses.length, 500),
    },
    { signal },
  );
  return found.ids;
}

interface CitLine {
  item: number;
  journal: string;
  year: string;
  volume: string;
  firstPage: string;
  authorName: string;
}

function citLine(item: Item): CitLine | undefined {
  const r = item.ref;
  const firstPage = r?.pages ? /^[A-Za-z]{0,6}\d+[A-Za-z]?/.exec(r.pages.trim())?.[0] : undefined;
  if (!r?.journal || !r.year || !r.volume || !firstPage) return undefined;
  const first = r.authors[0];
  return {
    item: item.index,
    journal: r.journal,
    year: r.year,
    volume: r.volume,
    firstPage,
    authorName: first ? `${first.family} ${first.initials ?? ""}`.trim() : "",
  };
}

async function citMatch(lines: CitLine[], signal: AbortSignal): Promise<Map<number, string>> {
  const { value: answers } = await getEutils().ecitmatch(
    lines.map((l, i) => ({ ...l, key: `k${i}` })),
    { signal },
  );
  const found = new Map<number, string>();
  for (const line of answers) {
    const at = Number(line.key.slice(1));
    const pmid = line.answer.trim();
    const item = lines[at]?.item;
    if (item !== undefined && /^\d+$/.test(pmid)) found.set(item, pmid);
  }
  return found;
}

async function fetchRecords(pmids: string[], signal: AbortSignal): Promise<Map<string, Article>> {
  const batches = await Promise.all(
    chunk(pmids, EFETCH_IDS).map((ids) => getEutils().efetchArticles({ pmids: ids }, { signal })),
  );
  return new Map(batches.flatMap((b) => b.value).map((a) => [a.pmid, a]));
}

function matched(a: Article, diff: readonly Field[]): Matched {
  const first = a.authors[0];
  const name = first ? (first.collectiveName ?? [first.lastName, first.initials].join(" ")) : "";
  const d = a.journalInfo.publicationDate;
  const year = d.year ?? /\d{4}/.exec(d.medlineDate ?? "")?.[0];
  const journal = a.journalInfo.isoAbbreviation ?? a.journalInfo.title;
  return {
    title: a.title,
    ...(name.trim() ? { first_author: name.trim() } : {}),
    ...(journal ? { journal } : {}),
    ...(year ? { year } : {}),
    ...(diff.includes("volume") && a.journalInfo.volume ? { volume: a.journalInfo.volume } : {}),
    ...(diff.includes("pages") && a.journalInfo.pages ? { pages: a.journalInfo.pages } : {}),
  };
}

interface Candidate {
  article: Article;
  /** The reference names this record (PMID, DOI or ECitMatch) rather than only resembling it. */
  named: boolean;
  diff: Field[];
  agree: number;
}

/**
 * A record's title as words, folded once however many references it is compared with (each of
 * 100 references meets every record found for the call: folding anew took 190 ms on the loop).
 */
const foldedTitles = new WeakMap<Article, string[]>();
function titleWords(a: Article): string[] {
  let w = foldedTitles.get(a);
  if (!w) foldedTitles.set(a, (w = words(a.title)));
  return w;
}

function candidatesOf(
  item: Item,
  records: Map<string, Article>,
  cited: Map<number, string>,
): Candidate[] {
  const ref = item.ref!;
  const refWords = readingTitleWords(ref);
  const named = new Set<string>();
  if (ref.pmid && records.has(ref.pmid)) named.add(ref.pmid);
  const citedPmid = cited.get(item.index);
  if (citedPmid && records.has(citedPmid)) named.add(citedPmid);
  const out: Candidate[] = [];
  for (const a of records.values()) {
    const byDoi = ref.doi !== undefined && a.doi?.toLowerCase() === ref.doi;
    const isNamed = named.has(a.pmid) || byDoi;
    const sim = bestTitleSimilarity(refWords, titleWords(a));
    if (!isNamed && sim < CANDIDATE_TITLE) continue;
    const diff = differences(ref, a);
    const agree = agreements(ref, diff);
    // Resembling by title alone: the title must agree, or the title be close and two more fields.
    if (!isNamed && sim < SAME_TITLE && agree < 2) continue;
    out.push({ article: a, named: isNamed, diff, agree });
  }
  return out;
}

function judge(
  item: Item,
  records: Map<string, Article>,
  cited: Map<number, string>,
  linked: Map<string, Notice[]>,
): VerifyResult {
  const base = { index: item.index, input: echo(item.text), differences: [], notices: [] };
  if (!item.ref) {
    const note = item.note === "empty" ? "empty reference" : (item.note ?? "not readable");
    return { ...base, status: "not_found", note };
  }
  const candidates = candidatesOf(item, records, cited);
  const exact = candidates.filter((c) => c.diff.length === 0);
  const notices = (a: Article) =>
    mergeNotices([...noticesFromArticle(a), ...(linked.get(a.pmid) ?? [])]);
  if (exact.length > 1) {
    return {
      ...base,
      status: "ambiguous",
      candidates: exact
        .slice(0, 5)
        .map((c) => ({ pmid: c.article.pmid, ...matched(c.article, []) })),
    };
  }
  const best =
    exact[0] ??
    [...candidates].sort(
      (x, y) =>
        x.diff.length - y.diff.length || y.agree - x.agree || Number(y.named) - Number(x.named),
    )[0];
  if (!best) {
    const note =
      item.ref.title && !comparableTitle(item.ref)
        ? "the title is not in Latin script, so it could not be searched or compared"
        : undefined;
    return { ...base, status: "not_found", ...(note ? { note } : {}) };
  }
  const a = best.article;
  return {
    ...base,
    status: best.diff.length === 0 ? "verified" : "mismatch",
    pmid: a.pmid,
    ...(a.doi ? { doi: a.doi } : {}),
    // A verified reference already says what the record says: `matched` is for mismatches.
    ...(best.diff.length > 0 ? { matched: matched(a, best.diff) } : {}),
    differences: best.diff,
    notices: notices(a),
  };
}

export async function verifyReferences(
  inputs: readonly string[],
  signal: AbortSignal,
): Promise<VerifyOutput> {
  const { items, split } = readReferences(inputs);
  const readable = items.filter((i) => i.ref);
  const clauses = [...new Set(readable.flatMap((i) => searchClauses(i.ref!)))];
  const lines = readable.map(citLine).filter((l): l is CitLine => l !== undefined);
  const [hits, citedParts] = await Promise.all([
    Promise.all(chunk(clauses, SEARCH_CLAUSES).map((c) => search(c, signal))),
    Promise.all(chunk(lines, CITMATCH_LINES).map((l) => citMatch(l, signal))),
  ]);
  const cited = new Map(citedParts.flatMap((m) => [...m]));
  const wanted = new Set<string>([
    ...readable.flatMap((i) => (i.ref!.pmid ? [i.ref!.pmid] : [])),
    ...cited.values(),
    ...hits.flat(),
  ]);
  const records = wanted.size > 0 ? await fetchRecords([...wanted], signal) : new Map();
  const linked = linkNotices([...records.values()]);
  const judged = items.map((item) => judge(item, records, cited, linked));
  // Crossref's notices (retractions it knows of, Retraction Watch's) for the records meant.
  const withCrossref = await withCrossrefNotices(judged, signal, "PubMed");
  const results = judged.map((r, i) => ({ ...r, notices: withCrossref.notices[i] ?? r.notices }));
  const summary = { verified: 0, mismatch: 0, not_found: 0, ambiguous: 0, with_notices: 0 };
  for (const r of results) {
    summary[r.status]++;
    if (r.notices.length > 0) summary.with_notices++;
  }
  return {
    results,
    summary,
    ...(withCrossref.warning !== undefined ? { warnings: [withCrossref.warning] } : {}),
    ...(split
      ? {
          note: `Some strings held several references and were split: ${items.length} references in all; each result's index counts them in order.`,
        }
      : {}),
  };
}
