/**
 * Adding records to a review, in the corpus worker (docs/reviews.md, "Adding records"). PubMed
 * searches go through the history server: one ESearch with usehistory=y, then EFetch batches of
 * ADD_BATCH records read with the fast EFetch reader and stored batch by batch, so NCBI failing
 * mid-add keeps what was stored and the next call with the same term resumes where it stopped.
 */
import { ValidationError } from "../errors.js";
import type { EutilsBytes } from "../ncbi/calls.js";
import type { Eutils } from "../ncbi/eutils.js";
import { readEFetchArticles } from "../ncbi/parse/efetch.js";
import type { Article } from "../ncbi/types.js";
import type { Store } from "../store/db.js";
import {
  addCandidates,
  candidatesFromCorpus,
  getAddState,
  identifiedBySource,
  setAddState,
} from "../store/reviews.js";
import { articleCandidate } from "./records.js";
import type { Candidate, ReviewSource } from "../store/review-types.js";

/** Records per EFetch request (NCBI serves up to 10,000; 500 keeps a reply near 2–4 MB). */
export const ADD_BATCH = 500;
/** EFetch requests of a search out ahead of the batch being stored. */
const FETCH_AHEAD = 3;
/** PMIDs per EFetch by id (sent as POST past the URL limit). */
const ID_BATCH = 200;
/**
 * The records of a search the history server hands out: EFetch refuses retstart past 9,998
 * ("Search Backend failed: … retstart … cannot be larger than 9998"), so the first 9,999.
 */
export const HISTORY_REACH = 9_999;

export interface AddResult {
  added: number;
  duplicates: number;
  identified: number;
  /** The review's records identified per source so far (PRISMA). */
  by_source: Partial<Record<ReviewSource, number>>;
  /** Records the search has beyond what this call took (call again, or raise max_records). */
  remaining?: number;
  /** Identifiers that name no PubMed record (source ids). */
  unmatched?: string[];
  warnings?: string[];
}

export interface AddContext {
  store: Store;
  eutils: Eutils;
  signal: AbortSignal;
  progress?: (done: number, total: number, message: string) => void | Promise<void>;
}

interface Tally {
  added: number;
  duplicates: number;
  identified: number;
}

const tally = (): Tally => ({ added: 0, duplicates: 0, identified: 0 });

async function store(
  ctx: AddContext,
  reviewId: string,
  source: ReviewSource,
  candidates: Candidate[],
  into: Tally,
): Promise<void> {
  if (candidates.length === 0) return;
  const r = await addCandidates(ctx.store.db, reviewId, source, candidates);
  into.added += r.added;
  into.duplicates += r.duplicates;
  into.identified += r.identified;
}

async function result(
  ctx: AddContext,
  reviewId: string,
  t: Tally,
  extra: Pick<AddResult, "remaining" | "warnings"> = {},
): Promise<AddResult> {
  const by_source = await identifiedBySource(ctx.store.db, reviewId);
  return {
    ...t,
    by_source,
    ...(extra.remaining ? { remaining: extra.remaining } : {}),
    ...(extra.warnings?.length ? { warnings: extra.warnings } : {}),
  };
}

function articlesOf(body: string | Uint8Array): Candidate[] {
  const out: Candidate[] = [];
  readEFetchArticles(body, (a: Article) => {
    if (a.title || a.abstractText) out.push(articleCandidate(a));
  });
  return out;
}

/**
 * Every record of a PubMed search, up to `maxRecords`, resuming after the records an earlier call
 * with the same term stored (review_adds). A search past HISTORY_REACH is refused with advice.
 */
export async function addPubmedSearch(
  ctx: AddContext,
  reviewId: string,
  term: string,
  maxRecords: number,
): Promise<AddResult> {
  const { value: search } = await ctx.eutils.esearch(
    { db: "pubmed", term, usehistory: "y", retmax: 0 },
    { signal: ctx.signal, noCache: true },
  );
  const warnings = search.warnings.filter((w) => !/^No items found/i.test(w));
  if (search.count === 0) {
    warnings.push(
      "The search finds no records: check the term with pubmed_search or pubmed_spell (a " +
        "misspelling, or a field tag PubMed does not know, finds nothing).",
    );
  }
  if (search.count > HISTORY_REACH) {
    throw new ValidationError(
      `The search finds ${search.count} records; PubMed's history server hands out the first ` +
        `${HISTORY_REACH} only. Split the term (e.g. by publication years: AND 2015:2019[dp]) and ` +
        "add each part: records met twice are stored once.",
    );
  }
  const state = await getAddState(ctx.store.db, reviewId, "pubmed", term);
  // A changed count means a changed result list: start again (records met again are duplicates).
  const start = state && state.total === search.count ? state.next : 0;
  const end = Math.min(search.count, start + maxRecords);
  const t = tally();
  const fetchAt = (at: number) =>
    ctx.eutils.efetchBytes(
      {
        webEnv: search.webEnv ?? "",
        queryKey: search.queryKey ?? "",
        retstart: at,
        retmax: Math.min(ADD_BATCH, end - at),
      },
      { signal: ctx.signal },
    );
  // The next batches are requested while this one is parsed and stored, so the NCBI rate limit,
  // not the store, sets the pace (bench: --screening, review_add of 9,999 records).
  const inFlight: Promise<EutilsBytes>[] = [];
  let requested = start;
  const topUp = () => {
    while (requested < end && inFlight.length < FETCH_AHEAD) {
      const reply = fetchAt(requested);
      // A failure is reported when its turn comes (the await below); until then it is held.
      reply.catch(() => undefined);
      inFlight.push(reply);
      requested += ADD_BATCH;
    }
  };
  topUp();
  for (let at = start; inFlight.length > 0; at += ADD_BATCH) {
    const reply = await inFlight.shift()!;
    topUp();
    await store(ctx, reviewId, "pubmed", articlesOf(reply.bytes), t);
    const done = Math.min(at + ADD_BATCH, end);
    await setAddState(ctx.store.db, reviewId, "pubmed", term, { next: done, total: search.count });
    await ctx.progress?.(done - start, end - start, `added ${done} of ${end}`);
  }
  return result(ctx, reviewId, t, { remaining: search.count - end, warnings });
}

/** Records by PMID (identifiers converted, citations found): EFetch by id in batches. */
export async function addPmids(
  ctx: AddContext,
  reviewId: string,
  source: ReviewSource,
  pmids: readonly string[],
  /** DOIs searched for (./gather.ts pmidsOfIds): those no fetched record carries are unmatched. */
  dois: readonly string[] = [],
): Promise<AddResult> {
  const t = tally();
  const unique = [...new Set(pmids)];
  const seen = new Set<string>();
  for (let i = 0; i < unique.length; i += ID_BATCH) {
    const ids = unique.slice(i, i + ID_BATCH);
    const reply = await ctx.eutils.efetchBytes({ pmids: ids }, { signal: ctx.signal });
    const candidates = articlesOf(reply.bytes);
    for (const c of candidates) {
      seen.add(c.hitKey);
      if (c.doi) seen.add(`doi:${c.doi}`);
    }
    await store(ctx, reviewId, source, candidates, t);
    await ctx.progress?.(i + ids.length, unique.length, `added ${i + ids.length} PMIDs`);
  }
  const unmatched = [
    ...unique.filter((p) => !seen.has(`pmid:${p}`)),
    ...dois.filter((d) => !seen.has(`doi:${d.toLowerCase()}`)),
  ];
  return { ...(await result(ctx, reviewId, t)), ...(unmatched.length > 0 ? { unmatched } : {}) };
}

/** Candidates the MCP thread gathered (Europe PMC), stored as one source's hits. */
export async function addGathered(
  ctx: AddContext,
  reviewId: string,
  source: ReviewSource,
  candidates: Candidate[],
): Promise<AddResult> {
  const t = tally();
  for (let i = 0; i < candidates.length; i += ADD_BATCH) {
    await store(ctx, reviewId, source, candidates.slice(i, i + ADD_BATCH), t);
  }
  return result(ctx, reviewId, t);
}

/** The records of a synced query key, from the local corpus (no NCBI request). */
export async function addFromCorpus(
  ctx: AddContext,
  reviewId: string,
  queryKey: string,
  maxRecords: number,
): Promise<AddResult> {
  const candidates = await candidatesFromCorpus(ctx.store.db, queryKey, maxRecords);
  if (candidates.length === 0) {
    throw new ValidationError(
      `The local corpus holds no records synced under query_key "${queryKey}": sync it first ` +
        "with pubmed_sync_delta (corpus_checkpoint_get lists the keys), or add the search with " +
        'source "pubmed".',
    );
  }
  return addGathered(ctx, reviewId, "corpus", candidates);
}
