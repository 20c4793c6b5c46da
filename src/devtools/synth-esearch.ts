/**
 * ESearch over a synthetic corpus (field-tagged terms such as `word[ti]` via ./synth-fields.ts),
 * with NCBI's PubMed rules: day-granular inclusive date
 * windows (datetype edat/pdat/mdat, and create-date ranges in the term:
 * `(<term>) AND ("2024/01/01"[crdt] : "2024/01/31"[crdt])`, or NOT them), a PMID range around
 * all that (`(<…>) AND (1000:1999[uid])`), a deterministic order, the history server (WebEnv +
 * query_key), and the reach limit —
 * PubMed serves only the first 9,999 records of a result set, so `retstart` past 9,998 on a
 * bigger set is refused with NCBI's own message and a sync has to split its date window.
 */
import { DAY_MS, parsePeriod, pubDateDay } from "./synth-core.js";
import { mix } from "./synth-random.js";
import { fieldSearch, isFieldQuery } from "./synth-fields.js";
import type { SynthCorpus } from "./synth.js";

/** Records of one result set that PubMed will hand out (retstart ≤ 9,998, at most 9,999 ids). */
export const PUBMED_REACH = 9_999;

export const REACH_ERROR =
  "Search Backend failed: Exception:\n'retstart' cannot be larger than 9998. For PubMed, ESearch can only retrieve the first 9,999 records matching the query. To obtain more than 9,999 PubMed records, consider using EDirect that contains additional logic to batch PubMed search results automatically so that an arbitrary number can be retrieved.";

export type DateType = "edat" | "pdat" | "mdat";

export interface SearchSpec {
  term: string;
  datetype: DateType;
  /** Inclusive ms bounds, already widened to whole days. */
  from: number;
  to: number;
  hasDates: boolean;
  sort: string;
}

export interface SearchResult {
  /** Matching PMIDs in reply order. */
  pmids: string[];
  /**
   * The user's term, without the date ranges and filters a sync adds, when it matched nothing
   * (NCBI then lists it as PhraseNotFound); null when it matched.
   */
  unknownPhrase: string | null;
  queryTranslation: string;
}

/** `(<query>) AND|NOT ("YYYY/MM/DD"[crdt] : "YYYY/MM/DD"[crdt])`, as a sync writes it. */
const CRDT_RANGE =
  /^\((.*)\) (AND|NOT) \("(\d{4}\/\d{1,2}\/\d{1,2})"\[crdt\] : "(\d{4}\/\d{1,2}\/\d{1,2})"\[crdt\]\)$/i;
/** `(<query>) AND (lo:hi[uid])`, as a sync narrows one day's window. */
const UID_RANGE = /^\((.*)\) AND \((\d+):(\d+)\[uid\]\)$/i;
const PUBTYPE_FILTER = /^\((.*)\) AND \(((?:"[^"]+"\[Publication Type\](?: OR )?)+)\)$/;
const DATE_FIELD: Record<DateType, string> = {
  edat: "Date - Entry",
  pdat: "Date - Publication",
  mdat: "Date - Modification",
};

const slashDate = (ms: number) => new Date(ms).toISOString().slice(0, 10).replace(/-/g, "/");

/** Reads datetype/mindate/maxdate/reldate/sort; an unreadable date is a request error. */
export function searchSpec(params: Record<string, string>, now: number): SearchSpec | string {
  const datetype = (params.datetype ?? "pdat").toLowerCase();
  if (datetype !== "edat" && datetype !== "pdat" && datetype !== "mdat") {
    return `Invalid datetype: ${params.datetype}`;
  }
  let from = -Infinity;
  let to = Infinity;
  if (params.mindate) {
    const p = parsePeriod(params.mindate);
    if (!p) return `Invalid mindate: ${params.mindate}`;
    from = Math.floor(p.start / DAY_MS) * DAY_MS;
  }
  if (params.maxdate) {
    const p = parsePeriod(params.maxdate);
    if (!p) return `Invalid maxdate: ${params.maxdate}`;
    to = Math.floor(p.end / DAY_MS) * DAY_MS + DAY_MS - 1;
  }
  if (params.reldate && /^\d+$/.test(params.reldate)) {
    from = Math.floor(now / DAY_MS) * DAY_MS - Number(params.reldate) * DAY_MS;
    to = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS - 1;
  }
  return {
    term: params.term ?? "",
    datetype,
    from,
    to,
    hasDates: from !== -Infinity || to !== Infinity,
    sort: (params.sort ?? "").toLowerCase().replace(/[+ ]/g, "_"),
  };
}

function dateOf(corpus: SynthCorpus, index: number, type: DateType): number {
  if (type === "edat") return corpus.edatOf(index);
  if (type === "pdat") return pubDateDay(corpus.citationAt(index).pubDate);
  return corpus.mdatOf(index);
}

interface CreateRange {
  negate: boolean;
  /** Inclusive ms bounds, whole days. */
  from: number;
  to: number;
  text: string;
}

/** Peels create-date ranges off the end of a term: the query inside, and the ranges in order. */
function createRanges(term: string): { query: string; ranges: CreateRange[] } {
  let query = term;
  const ranges: CreateRange[] = [];
  for (let m = CRDT_RANGE.exec(query); m; m = CRDT_RANGE.exec(query)) {
    const lo = parsePeriod(m[3] ?? "");
    const hi = parsePeriod(m[4] ?? "");
    if (!lo || !hi) break;
    const from = Math.floor(lo.start / DAY_MS) * DAY_MS;
    const to = Math.floor(hi.end / DAY_MS) * DAY_MS + DAY_MS - 1;
    ranges.unshift({
      negate: (m[2] ?? "").toUpperCase() === "NOT",
      from,
      to,
      text: `${slashDate(from)}:${slashDate(to)}[Date - Create]`,
    });
    query = (m[1] ?? "").trim();
  }
  return { query, ranges };
}

/** PubMed's default order for these sets: newest Entrez date first, then higher PMID. */
function order(corpus: SynthCorpus, indices: number[], sort: string): number[] {
  const byEdat = (a: number, b: number) => corpus.edatOf(b) - corpus.edatOf(a) || b - a;
  const keyed = (key: (i: number) => string | number, desc: boolean) => {
    const keys = new Map(indices.map((i) => [i, key(i)]));
    return indices.sort((a, b) => {
      const ka = keys.get(a) ?? 0;
      const kb = keys.get(b) ?? 0;
      const cmp = ka < kb ? -1 : ka > kb ? 1 : 0;
      return (desc ? -cmp : cmp) || byEdat(a, b);
    });
  };
  if (sort === "pub_date" || sort === "pub_date_desc") {
    return keyed((i) => pubDateDay(corpus.citationAt(i).pubDate), true);
  }
  if (sort === "author" || sort === "first_author") {
    return keyed((i) => corpus.citationAt(i).firstAuthor.lastName.toLowerCase(), false);
  }
  if (sort === "journalname" || sort === "journal") {
    return keyed((i) => corpus.citationAt(i).journal.title.toLowerCase(), false);
  }
  return indices.sort(byEdat);
}

export function runSearch(corpus: SynthCorpus, spec: SearchSpec): SearchResult {
  const uids = UID_RANGE.exec(spec.term.trim());
  const peeled = createRanges(uids ? (uids[1] ?? "").trim() : spec.term.trim());
  let query = peeled.query;
  let pubTypes: string[] = [];
  const filtered = PUBTYPE_FILTER.exec(query);
  if (filtered) {
    query = filtered[1] ?? "";
    pubTypes = [...(filtered[2] ?? "").matchAll(/"([^"]+)"/g)].map((m) =>
      (m[1] ?? "").toLowerCase(),
    );
  }
  const found = isFieldQuery(query) ? fieldSearch(corpus, query) : corpus.indicesFor(query);
  let indices = found;
  if (spec.hasDates) {
    indices = indices.filter((i) => {
      const d = dateOf(corpus, i, spec.datetype);
      return d >= spec.from && d <= spec.to;
    });
  }
  for (const r of peeled.ranges) {
    indices = indices.filter((i) => {
      const d = corpus.crdtOf(i);
      return d >= r.from && d <= r.to ? !r.negate : r.negate;
    });
  }
  if (uids) {
    const lo = Number(uids[2]);
    const hi = Number(uids[3]);
    indices = indices.filter((i) => {
      const pmid = Number(corpus.pmidOf(i));
      return pmid >= lo && pmid <= hi;
    });
  }
  if (pubTypes.length > 0) {
    indices = indices.filter((i) =>
      corpus.recordAt(i).publicationTypes.some((t) => pubTypes.includes(t.name.toLowerCase())),
    );
  }
  let translation = isFieldQuery(query) ? query : `"${query.toLowerCase()}"[All Fields]`;
  if (pubTypes.length > 0)
    translation = `(${translation}) AND (${pubTypes.map((t) => `"${t}"[Publication Type]`).join(" OR ")})`;
  for (const r of peeled.ranges)
    translation = `(${translation}) ${r.negate ? "NOT" : "AND"} ${r.text}`;
  if (uids) translation = `(${translation}) AND ${uids[2]}:${uids[3]}[UID]`;
  if (spec.hasDates) {
    const lo = spec.from === -Infinity ? "1000/01/01" : slashDate(spec.from);
    const hi = spec.to === Infinity ? "3000/12/31" : slashDate(spec.to);
    translation += ` AND ${lo}:${hi}[${DATE_FIELD[spec.datetype]}]`;
  }
  return {
    pmids: order(corpus, indices, spec.sort).map((i) => corpus.pmidOf(i)),
    unknownPhrase: found.length === 0 ? query : null,
    queryTranslation: translation,
  };
}

/** The history server: WebEnv → its result sets, query_key counting from 1. */
export class SynthHistory {
  private readonly envs = new Map<string, string[][]>();
  private created = 0;

  constructor(private readonly seed: number) {}

  store(pmids: string[], webEnv?: string): { webEnv: string; queryKey: string } {
    let env = webEnv;
    if (env === undefined || !this.envs.has(env)) {
      const n = this.created++;
      const hex = [1, 2, 3].map((k) => mix(this.seed, n, k).toString(16).padStart(8, "0")).join("");
      env = `MCID_${hex}`;
      this.envs.set(env, []);
    }
    const sets = this.envs.get(env) ?? [];
    sets.push(pmids);
    return { webEnv: env, queryKey: String(sets.length) };
  }

  get(webEnv: string, queryKey: string): string[] | undefined {
    return this.envs.get(webEnv)?.[Number(queryKey) - 1];
  }
}
