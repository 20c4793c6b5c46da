/**
 * pubmed_sync_delta: incremental sync of a query's records (docs/reference.md#pubmed_sync_delta;
 * its path: docs/architecture.md#a-sync-pubmed_sync_delta).
 *
 * Two walks over [checkpoint − overlap_days, now] (./walks.ts): arrivals by create date, then
 * revisions by modification date; a first sync walks arrivals from the beginning only. Each walk
 * goes oldest first through day-granular windows. A window whose count reaches ESearch's
 * 10,000-record reach — or exceeds what is left of max_records — is split in halves until it
 * fits, so every record is covered and one call stops on a window boundary; a single day is split
 * by PMID range (PubMed has days with hundreds of thousands of revisions: a MeSH reload). Each
 * window is fetched through its ESearch history in EFetch batches, upserted (counted by content hash and
 * LR), indexed, and only then does its walk's mark move to the window's end. Any failure leaves
 * the marks where the last complete windows put them; a RATE_LIMIT from NCBI stops the sync the
 * same way and says when NCBI takes requests again (./sync-stop.ts).
 */
import type { Embedder } from "../embeddings/embedder.js";
import type { Eutils } from "../ncbi/eutils.js";
import { isoDay } from "../ncbi/dates.js";
import { xml2js } from "../ncbi/parse/xml2js.js";
import { excerpt } from "../excerpt.js";
import {
  advanceCheckpoint,
  advanceRevisions,
  checkpointCoversNothing,
  clearCheckpoint,
  getCheckpoint,
} from "../store/checkpoints.js";
import type { Store } from "../store/db.js";
import {
  clearSyncProgress,
  createJob,
  finishJob,
  getSyncProgress,
  listJobs,
  setSyncProgress,
  updateJob,
} from "../store/jobs.js";
import { withQueryKeyLock } from "../store/locks.js";
import { recordQueryDocuments } from "../store/query-documents.js";
import type { VectorStore } from "../vectors/vector-store.js";
import { inlinePreparer, storeBatch, type BatchPreparer } from "./batch.js";
import type { PreparedBatch } from "./prepare.js";
import { indexPending } from "./indexer.js";
import { runBatches } from "./pipeline.js";
import { SyncProgress, type HeartbeatClock } from "./progress.js";
import {
  finishStopped,
  syncPlan,
  type ResumePoints,
  type SyncPlan,
  type WalkRange,
} from "./sync-stop.js";
import {
  DATE_NAME,
  PMID_CEILING,
  splitPmids,
  windowSearch,
  type DayRange,
  type PmidRange,
  type WalkKind,
} from "./walks.js";
import { dayOf, endOfDay, entrezDay, splitWindow, type Day } from "./windows.js";

/** ESearch cannot page past its 10,000th record. */
export const ESEARCH_REACH = 10_000;
/** Records per EFetch request, at most. */
export const EFETCH_BATCH = 500;
/**
 * A window's first EFetch request asks for this many records at most: nothing overlaps its
 * preparation and write (the code not yet compiled in a fresh process), so a small one starts the
 * pipeline sooner.
 */
export const FIRST_BATCH = 100;

/**
 * The EFetch requests for a window of `count` records: one for a window of EFETCH_BATCH or fewer;
 * otherwise a first of FIRST_BATCH, then EFETCH_BATCH at a time (one request more than batches of
 * EFETCH_BATCH alone would take, where the first batch's is not repaid).
 */
export function efetchBatches(count: number): { retstart: number; retmax: number }[] {
  if (count <= 0) return [];
  const first = count <= EFETCH_BATCH ? count : FIRST_BATCH;
  const out = [{ retstart: 0, retmax: first }];
  for (let start = first; start < count; start += EFETCH_BATCH) {
    out.push({ retstart: start, retmax: Math.min(EFETCH_BATCH, count - start) });
  }
  return out;
}
/** EFetch batches requested beyond the next one to be prepared, at most (./pipeline.ts). */
const MAX_AHEAD = 8;
/**
 * An embedded store checkpoints before a window once this many records were written since its last
 * checkpoint, so its write-ahead log stays bounded.
 */
export const CHECKPOINT_EVERY = 5_000;

export interface SyncInput {
  queryKey: string;
  term: string;
  overlapDays: number;
  maxRecords: number;
}

export interface SyncResult {
  job_id: string;
  inserted: number;
  updated: number;
  skipped: number;
  pmids_processed: number;
  max_edat_seen: string | null;
  warnings: string[];
}

export interface SyncDeps {
  store: Store;
  vectors: VectorStore;
  embedder: Embedder;
  eutils: Eutils;
  signal?: AbortSignal;
  now?: () => Date;
  onProgress?: (done: number, total: number, message: string) => void | Promise<void>;
  /** How long a second sync of the same key waits for the first (default: the store's). */
  lockTimeoutMs?: number;
  /** The progress heartbeat's clock and timer (default: the system's). */
  clock?: HeartbeatClock;
  /** Where EFetch replies are prepared (default: this thread; the corpus worker's: a thread). */
  preparer?: BatchPreparer;
  /** ESearch's reach (default ESEARCH_REACH); a test sets a smaller one to split days cheaply. */
  esearchReach?: number;
}

interface Window {
  kind: WalkKind;
  from: Day;
  to: Day;
  /** Part of a one-day window: the records of these PMIDs. */
  pmids?: PmidRange;
  count: number;
  webEnv: string | null;
  queryKey: string | null;
}

class SyncRun {
  readonly counts = { inserted: 0, updated: 0, skipped: 0, processed: 0 };
  readonly warnings: string[] = [];
  maxEdat: string | null = null;
  /** Records processed since the store's last checkpoint. */
  unflushed = 0;
  /** Whether this call refreshed the planner's statistics (fetchWindow). */
  analyzed = false;
  readonly progressOut: SyncProgress;
  /** Set once the checkpoint is read. */
  plan!: SyncPlan;
  /** Per walk, the last day of its last complete window in this call. */
  readonly covered = new Map<WalkKind, Day>();
  /** Per walk, the day split by PMID range it is in, and the end of its last complete range. */
  readonly partial = new Map<WalkKind, { day: Day; afterPmid: number }>();
  /** Walks this call began, and walks it completed. */
  readonly started = new Set<WalkKind>(["arrivals"]);
  readonly walked = new Set<WalkKind>();
  /** What ESearch said of the term (a phrase or field not found…), once each. */
  readonly #searchNotes = new Set<string>();

  constructor(
    readonly deps: SyncDeps,
    readonly input: SyncInput,
    readonly jobId: string,
    readonly now: Date,
    progress: SyncProgress,
  ) {
    this.progressOut = progress;
  }

  get preparer(): BatchPreparer {
    return this.deps.preparer ?? inlinePreparer;
  }

  get budget(): number {
    return this.input.maxRecords - this.counts.processed;
  }

  get reach(): number {
    return this.deps.esearchReach ?? ESEARCH_REACH;
  }

  async search(kind: WalkKind, from: Day, to: Day, pmids?: PmidRange): Promise<Window> {
    this.progressOut.note(`searching ${describe({ kind, from, to, pmids })}`);
    const range: DayRange = { from, to };
    const reply = this.deps.eutils.esearch(
      {
        db: "pubmed",
        ...windowSearch(kind, this.input.term, range, this.plan.arrivals, pmids),
        retmax: 0,
        usehistory: "y",
      },
      { signal: this.deps.signal, noCache: true },
    );
    // The XML parser loads on its first use (../ncbi/parse/xml2js.ts): in a fresh process, while
    // this request is out rather than after its reply (about 20 ms under tsx).
    xml2js();
    const r = (await reply).value;
    for (const note of r.warnings) {
      // An empty window is no news: a walk searches many.
      if (/^No items found\.?$/i.test(note) || this.#searchNotes.has(note)) continue;
      this.#searchNotes.add(note);
      this.warnings.push(`PubMed on the term: ${note}`);
    }
    return { kind, from, to, pmids, count: r.count, webEnv: r.webEnv, queryKey: r.queryKey };
  }

  /**
   * A walk's first window: from its resume point inside its first day when a call stopped there
   * (the rest of that day; walkRange goes on with the days after it), else all of its days.
   */
  firstWindow(kind: WalkKind, range: WalkRange): Promise<Window> {
    return range.afterPmid === undefined
      ? this.search(kind, range.from, range.to)
      : this.search(kind, range.from, range.from, { lo: range.afterPmid + 1, hi: PMID_CEILING });
  }

  /** Walks `range` from its first window on; false when max_records stopped it. */
  async walkRange(first: Window, range: WalkRange): Promise<boolean> {
    if (!(await this.walk(first))) return false;
    if (first.to >= range.to) return true;
    if (this.budget <= 0) return false;
    return this.walk(await this.search(first.kind, first.to + 1, range.to));
  }

  /**
   * Walks a window oldest first; false when max_records stopped it early. A window too big for
   * ESearch's reach or for what is left of max_records is halved: days, then one day by PMID
   * range. Once this call stored records, a day (or part) bigger than what is left waits for the
   * next call, which starts with it and splits it by PMID range as far as max_records needs.
   */
  async walk(w: Window): Promise<boolean> {
    if (w.count < this.reach && w.count <= this.budget) {
      await this.fetchWindow(w);
      return true;
    }
    if (w.from === w.to && w.count > this.budget && this.counts.processed > 0) return false;
    const parts: [Day, Day, PmidRange | undefined][] =
      w.from < w.to
        ? splitWindow(w.from, w.to).map(([from, to]) => [from, to, undefined])
        : splitPmids(w.pmids ?? { lo: 1, hi: PMID_CEILING }).map((p) => [w.from, w.to, p]);
    for (const [from, to, pmids] of parts) {
      if (this.budget <= 0) return false;
      if (!(await this.walk(await this.search(w.kind, from, to, pmids)))) return false;
    }
    return true;
  }

  async fetchWindow(w: Window): Promise<void> {
    // walk() fetches only windows ESearch pages through whole (count < reach).
    const requests = efetchBatches(w.count);
    // Before a window rather than after one, so the last window's records are left to the
    // maintenance that follows the sync's answer.
    if (this.unflushed >= CHECKPOINT_EVERY) {
      // The first time in a call, the planner's statistics too. Without any (a new store: PGlite
      // has no autovacuum, a server's may be off or behind), each batch's `pmid = any(…)` delete
      // of its records' old chunks read chunk_vectors whole: a batch's cost grew with the table
      // (bench `scale`: 2,300 records/s at first, 1,080 at 320,000 records). Once is enough: the
      // statistics keep pmid's distinct count as a share of the rows, so they scale with it.
      await this.deps.store.maintain({ checkpoint: true, analyze: !this.analyzed });
      this.analyzed = true;
      this.unflushed = 0;
    }
    // The next batches' requests and preparation overlap this one's writes (./pipeline.ts).
    await runBatches({
      batches: requests.length,
      signal: this.deps.signal,
      fetch: (i, signal) =>
        // As bytes: the MCP thread neither decodes nor copies them (the prepare thread decodes).
        this.deps.eutils.efetchBytes(
          { webEnv: w.webEnv ?? "", queryKey: w.queryKey ?? "", ...requests[i]! },
          { signal },
        ),
      prepare: (res) => this.preparer.prepare(res.bytes, this.now),
      store: (batch) => this.storeBatch(batch),
      // Two batches beyond the next to prepare at least, three requests at the start (bench:
      // NCBI-like sync 4.6 s against 5.2 s with two), up to eight beyond it when NCBI's replies
      // take longer than those cover: with 1,500 ms replies a 5,000-record sync took 6.6 s
      // against 9.6 s with three in flight at most.
      ahead: 2,
      maxAhead: MAX_AHEAD,
    });
    await this.advance(w);
    await this.report(`synced ${describe(w)}`);
  }

  /**
   * Where the next call's walks start after max_records stopped this one: a completed walk on the
   * day its mark is in (today), an interrupted one on the first day it left uncovered, one not
   * begun from its mark − overlap (null).
   */
  resumePoints(): ResumePoints {
    const at = (kind: WalkKind, range: WalkRange | null): Day | null => {
      if (this.walked.has(kind)) return dayOf(this.now);
      if (!this.started.has(kind) || !range) return null;
      const covered = this.covered.get(kind);
      return covered === undefined ? range.from : covered + 1;
    };
    const arrivalsFrom = at("arrivals", this.plan.arrivals);
    const revisionsFrom = at("revisions", this.plan.revisions);
    const after = (kind: WalkKind, day: Day | null, range: WalkRange | null) => {
      const inDay = this.partial.get(kind);
      if (inDay && inDay.day === day) return inDay.afterPmid;
      // Stopped before reaching the day it resumed inside: still after the same PMID.
      return this.covered.has(kind) ? undefined : range?.afterPmid;
    };
    const arrivalsAfterPmid = after("arrivals", arrivalsFrom, this.plan.arrivals);
    const revisionsAfterPmid = after("revisions", revisionsFrom, this.plan.revisions);
    return {
      arrivalsFrom,
      revisionsFrom,
      ...(arrivalsAfterPmid === undefined ? {} : { arrivalsAfterPmid }),
      ...(revisionsAfterPmid === undefined ? {} : { revisionsAfterPmid }),
    };
  }

  /**
   * Moves the window's walk mark to its end; a first sync's arrivals also start the revisions mark.
   * Part of a day split by PMID range moves no mark until the day's last part is in.
   */
  async advance(w: Window): Promise<void> {
    if (w.pmids && w.pmids.hi < PMID_CEILING) {
      this.partial.set(w.kind, { day: w.from, afterPmid: w.pmids.hi });
      return;
    }
    this.partial.delete(w.kind);
    this.covered.set(w.kind, w.to);
    const end = endOfDay(w.to, this.now);
    const { db } = this.deps.store;
    if (w.kind === "revisions") {
      await advanceRevisions(db, this.input.queryKey, end);
      return;
    }
    // Everything a first sync stores is fetched after it started, so as revised as of its start.
    const mdat = this.plan.fromScratch ? this.now : undefined;
    await advanceCheckpoint(db, this.input.queryKey, end, mdat);
  }

  async storeBatch(batch: PreparedBatch): Promise<void> {
    if (batch.docs.length === 0) return;
    const results = await storeBatch(this.deps, batch);
    // The key's records, for the review source "corpus": one statement after the batch commits.
    // A crash between the two leaves the window's mark unmoved, so the next sync writes them.
    await recordQueryDocuments(
      this.deps.store.db,
      this.input.queryKey,
      batch.docs.map((d) => d.pmid),
    );
    for (const r of results) {
      if (r.outcome === "inserted") this.counts.inserted++;
      else if (r.outcome === "updated") this.counts.updated++;
      else this.counts.skipped++;
    }
    for (const d of batch.docs) {
      if (d.edat && (!this.maxEdat || d.edat > this.maxEdat)) this.maxEdat = d.edat;
    }
    this.counts.processed += batch.docs.length;
    this.unflushed += batch.docs.length;
    await this.progressOut.records(this.counts.processed, "stored and indexed a batch");
  }

  async report(message: string): Promise<void> {
    await updateJob(this.deps.store.db, this.jobId, this.progress());
    await this.progressOut.records(this.counts.processed, message);
  }

  progress() {
    return {
      inserted: this.counts.inserted,
      updated: this.counts.updated,
      skipped: this.counts.skipped,
      pmidsProcessed: this.counts.processed,
      maxEdatSeen: this.maxEdat,
      warnings: this.warnings,
    };
  }

  result(): SyncResult {
    return {
      job_id: this.jobId,
      inserted: this.counts.inserted,
      updated: this.counts.updated,
      skipped: this.counts.skipped,
      pmids_processed: this.counts.processed,
      max_edat_seen: this.maxEdat,
      warnings: this.warnings,
    };
  }
}

export async function syncDelta(deps: SyncDeps, input: SyncInput): Promise<SyncResult> {
  const { store } = deps;
  // The heartbeat starts before the lock: waiting for another sync of the key is not silent either.
  const progress = new SyncProgress(deps.onProgress, deps.clock);
  progress.note("waiting for another sync of this query_key to finish");
  progress.start();
  return withQueryKeyLock(
    store,
    input.queryKey,
    async () => {
      const previous = await listJobs(store.db, { queryKey: input.queryKey, limit: 1 });
      const job = await createJob(store.db, { queryKey: input.queryKey, term: input.term });
      const run = new SyncRun(deps, input, job.id, deps.now?.() ?? new Date(), progress);
      progress.note("starting");
      try {
        const recovered = await indexPending(deps);
        if (recovered > 0)
          run.warnings.push(`Indexed ${recovered} stored documents an earlier run left unindexed.`);
        const complete = await walkAll(run, input, previous[0]?.term);
        if (!complete) {
          run.warnings.push(
            `Stopped after ${run.counts.processed} records (max_records=${input.maxRecords}); call again to continue.`,
          );
        }
        await finishJob(store.db, job.id, {
          status: complete ? "succeeded" : "partial",
          ...run.progress(),
        });
        await run.progressOut.finish(complete ? "synced" : "stopped at max_records");
        // Housekeeping after bulk writes (statistics; PGlite: the write-ahead log), done once the
        // answer has left: the records are committed, and nothing in the answer needs it.
        if (recovered + run.counts.inserted + run.counts.updated > 0) {
          void store.maintainLater({ checkpoint: true, analyze: true });
        }
        return run.result();
      } catch (err) {
        throw await finishStopped(store.db, input.queryKey, job.id, err, run.progress());
      } finally {
        progress.stop();
        await progress.flush();
      }
    },
    deps.lockTimeoutMs === undefined ? {} : { timeoutMs: deps.lockTimeoutMs },
  ).finally(() => progress.stop());
}

/**
 * Arrivals, then (unless this is a first sync) revisions; false when max_records stopped it.
 * `previousTerm`: the term of the key's last sync. When this call's differs, the earlier term's
 * unfinished walk is not resumed (its days say nothing of the new term's records, which it would
 * skip), and a warning says what the key's checkpoint means for the new term. A checkpoint that
 * covers no paper (the key's syncs matched nothing, no one set it) is not kept for a new term:
 * that is a mistyped term corrected, and its records are searched from the beginning.
 */
async function walkAll(
  run: SyncRun,
  input: SyncInput,
  previousTerm: string | undefined,
): Promise<boolean> {
  const { db } = run.deps.store;
  const changed = previousTerm !== undefined && !sameTerm(previousTerm, input.term);
  const saved = await getSyncProgress<ResumePoints>(db, input.queryKey);
  let cp = await getCheckpoint(db, input.queryKey);
  if (changed) {
    const was = `query_key "${input.queryKey}" was last synced with the term "${clip(previousTerm)}"`;
    if (cp?.lastEdat && (await checkpointCoversNothing(db, input.queryKey))) {
      // Cleared, not only set aside: a sync that stops early moves the marks from the beginning.
      await clearCheckpoint(db, input.queryKey, "a new term; the earlier one matched nothing");
      cp = null;
      run.warnings.push(
        `${was}, which matched nothing; this call's term is searched from the beginning.`,
      );
    } else {
      const since = cp?.lastEdat
        ? ` This call's term is searched from the checkpoint (${isoDay(cp.lastEdat)}) on, less overlap_days, not from the beginning: for all of its records, use a new query_key.`
        : "";
      const resumed = saved ? " The earlier term's unfinished sync is not resumed." : "";
      run.warnings.push(`${was}.${since}${resumed}`);
    }
  }
  run.plan = syncPlan(cp, input.overlapDays, run.now, changed ? null : (saved?.state ?? null));
  const complete = await walkPlan(run, input);
  if (complete) await clearSyncProgress(db, input.queryKey);
  else await setSyncProgress(db, input.queryKey, run.resumePoints());
  return complete;
}

/** A term with its runs of white space as one space. */
const spaced = (term: string) => term.trim().replace(/\s+/g, " ");

/**
 * A term as a warning quotes it: at most 100 characters, cut between characters as a reader sees
 * them. A cut inside an emoji left half a surrogate pair, which the job row's JSON refused: the
 * sync failed STORE (issue 45, finding 4; __tests__/corpus/term-clip.test.ts).
 */
const clip = (term: string): string => excerpt(spaced(term), 100);

/** The same PubMed query, whatever its spacing and case. */
function sameTerm(a: string, b: string): boolean {
  return spaced(a).toLowerCase() === spaced(b).toLowerCase();
}

async function walkPlan(run: SyncRun, input: SyncInput): Promise<boolean> {
  const { arrivals, revisions } = run.plan;
  run.preparer.warm(); // ready by the time the first EFetch reply is
  // Both searches at once: the second costs no round trip of its own. Both settle before either
  // failure stops the sync, so no request of it outlives the call.
  const [arrivalsSearch, revisionsSearch] = await Promise.allSettled([
    run.firstWindow("arrivals", arrivals),
    revisions ? run.firstWindow("revisions", revisions) : null,
  ]);
  if (arrivalsSearch.status === "rejected") throw arrivalsSearch.reason;
  if (revisionsSearch.status === "rejected") throw revisionsSearch.reason;
  const arrivalsRoot = arrivalsSearch.value;
  let revisionsRoot = revisionsSearch.value;
  run.progressOut.setTotal(
    Math.min(arrivalsRoot.count + (revisionsRoot?.count ?? 0), input.maxRecords),
  );
  if (!(await run.walkRange(arrivalsRoot, arrivals))) return false;
  run.walked.add("arrivals");
  if (!revisions || !revisionsRoot) return true;
  // A long arrivals walk may outlive the first search's history on NCBI's side: ask again.
  if (run.counts.processed > 0) revisionsRoot = await run.firstWindow("revisions", revisions);
  run.started.add("revisions");
  if (run.budget <= 0 && revisionsRoot.count > 0) return false;
  return run.walkRange(revisionsRoot, revisions);
}

/** How progress names a window: its walk's dates, and its PMIDs when it is part of a day. */
function describe(w: Pick<Window, "kind" | "from" | "to" | "pmids">): string {
  const days = `${DATE_NAME[w.kind]}s ${entrezDay(w.from)}–${entrezDay(w.to)}`;
  return w.pmids ? `${days}, PMIDs ${w.pmids.lo}–${w.pmids.hi}` : days;
}
