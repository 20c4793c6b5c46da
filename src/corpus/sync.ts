/**
 * pubmed_sync_delta: incremental sync of a query's records by Entrez date (CONTRACTS §4).
 *
 * The window [checkpoint − overlap_days, now] is walked oldest first as day-granular EDAT windows.
 * A window whose count reaches ESearch's 10,000-record reach — or exceeds what is left of
 * max_records — is split in halves until it fits, so every record is covered and one call stops
 * on a window boundary. Each window is fetched through its ESearch history in EFetch batches,
 * upserted (counted by content hash and LR), indexed, and only then does the checkpoint move to
 * the window's end. Any failure leaves the checkpoint where the last complete window put it.
 */
import type { Embedder } from "../embeddings/embedder.js";
import type { EutilsClient } from "../eutils/client.js";
import { parseESearch } from "../eutils/parse/esearch.js";
import { log } from "../log.js";
import { advanceCheckpoint, getCheckpoint } from "../store/checkpoints.js";
import type { Store } from "../store/db.js";
import { createJob, finishJob, updateJob } from "../store/jobs.js";
import { withQueryKeyLock } from "../store/locks.js";
import type { VectorStore } from "../vectors/vector-store.js";
import { indexBatch, prepareBatch, upsertBatch, type PreparedBatch } from "./batch.js";
import { indexPending } from "./indexer.js";
import { runBatches } from "./pipeline.js";
import { FIRST_DAY, dayOf, endOfDay, entrezDay, splitWindow, type Day } from "./windows.js";

/** ESearch cannot page past its 10,000th record. */
export const ESEARCH_REACH = 10_000;
/** Records per EFetch request. */
export const EFETCH_BATCH = 500;
/** An embedded store checkpoints after this many records, so its write-ahead log stays bounded. */
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
  eutils: EutilsClient;
  signal?: AbortSignal;
  now?: () => Date;
  onProgress?: (done: number, total: number, message: string) => void | Promise<void>;
  /** How long a second sync of the same key waits for the first (default: the store's). */
  lockTimeoutMs?: number;
}

interface Window {
  from: Day;
  to: Day;
  count: number;
  webEnv: string | null;
  queryKey: string | null;
}

class SyncRun {
  readonly counts = { inserted: 0, updated: 0, skipped: 0, processed: 0 };
  readonly warnings: string[] = [];
  maxEdat: string | null = null;
  total = 0;
  /** Records processed since the store's last checkpoint. */
  unflushed = 0;

  constructor(
    readonly deps: SyncDeps,
    readonly input: SyncInput,
    readonly jobId: string,
    readonly now: Date,
  ) {}

  get budget(): number {
    return this.input.maxRecords - this.counts.processed;
  }

  async search(from: Day, to: Day): Promise<Window> {
    const res = await this.deps.eutils.request(
      "esearch",
      {
        db: "pubmed",
        term: this.input.term,
        datetype: "edat",
        mindate: entrezDay(from),
        maxdate: entrezDay(to),
        retmax: 0,
        usehistory: "y",
      },
      { signal: this.deps.signal, noCache: true },
    );
    const r = parseESearch(res.body);
    return { from, to, count: r.count, webEnv: r.webEnv, queryKey: r.queryKey };
  }

  /** Walks [from, to] oldest first; returns false when max_records stopped the walk early. */
  async walk(w: Window): Promise<boolean> {
    const fits = w.count < ESEARCH_REACH && w.count <= this.budget;
    if (fits || w.from === w.to) {
      if (!fits && this.counts.processed > 0) return false; // an oversized day waits for the next call
      if (w.count >= ESEARCH_REACH) {
        this.warnings.push(
          `${w.count} records share the Entrez date ${entrezDay(w.from)}; ESearch reaches only the first ${ESEARCH_REACH - 1}.`,
        );
      }
      await this.fetchWindow(w);
      return true;
    }
    for (const [from, to] of splitWindow(w.from, w.to)) {
      if (this.budget <= 0) return false;
      if (!(await this.walk(await this.search(from, to)))) return false;
    }
    return true;
  }

  async fetchWindow(w: Window): Promise<void> {
    const reachable = Math.min(w.count, ESEARCH_REACH - 1);
    // The next batch's request and preparation overlap this one's writes (./pipeline.ts).
    await runBatches({
      batches: Math.ceil(reachable / EFETCH_BATCH),
      signal: this.deps.signal,
      fetch: (i, signal) =>
        this.deps.eutils.request(
          "efetch",
          {
            db: "pubmed",
            retmode: "xml",
            WebEnv: w.webEnv ?? "",
            query_key: w.queryKey ?? "",
            retstart: i * EFETCH_BATCH,
            retmax: Math.min(EFETCH_BATCH, reachable - i * EFETCH_BATCH),
          },
          { signal, noCache: true },
        ),
      prepare: (res) => prepareBatch(res.body, this.now),
      store: (batch) => this.storeBatch(batch),
    });
    const end = endOfDay(w.to, this.now);
    await advanceCheckpoint(this.deps.store.db, this.input.queryKey, end);
    if (this.unflushed >= CHECKPOINT_EVERY) {
      await this.deps.store.maintain({ checkpoint: true });
      this.unflushed = 0;
    }
    await this.report(`synced Entrez dates ${entrezDay(w.from)}–${entrezDay(w.to)}`);
  }

  async storeBatch(batch: PreparedBatch): Promise<void> {
    if (batch.docs.length === 0) return;
    const results = await upsertBatch(this.deps, batch);
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
    // Skipped documents are indexed too when an earlier run stored but never indexed them.
    await indexBatch(this.deps, batch, results);
  }

  async report(message: string): Promise<void> {
    await updateJob(this.deps.store.db, this.jobId, this.progress());
    await this.deps.onProgress?.(this.counts.processed, Math.max(this.total, 1), message);
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
  return withQueryKeyLock(
    store,
    input.queryKey,
    async () => {
      const job = await createJob(store.db, { queryKey: input.queryKey, term: input.term });
      const run = new SyncRun(deps, input, job.id, deps.now?.() ?? new Date());
      try {
        const recovered = await indexPending(deps);
        if (recovered > 0)
          run.warnings.push(`Indexed ${recovered} stored documents an earlier run left unindexed.`);
        const checkpoint = await getCheckpoint(store.db, input.queryKey);
        const from = checkpoint?.lastEdat
          ? dayOf(new Date(checkpoint.lastEdat)) - input.overlapDays
          : FIRST_DAY;
        const root = await run.search(Math.max(from, FIRST_DAY), dayOf(run.now));
        run.total = Math.min(root.count, input.maxRecords);
        const complete = await run.walk(root);
        // pgvector builds its HNSW index once, after the bulk load, not row by row.
        await deps.vectors.finishBulkLoad?.();
        if (recovered + run.counts.inserted + run.counts.updated > 0) {
          await store.maintain({ checkpoint: true, analyze: true });
        }
        if (!complete) {
          run.warnings.push(
            `Stopped after ${run.counts.processed} records (max_records=${input.maxRecords}); call again to continue.`,
          );
        }
        await finishJob(store.db, job.id, {
          status: complete ? "succeeded" : "partial",
          ...run.progress(),
        });
        return run.result();
      } catch (err) {
        log.warn("sync failed", { queryKey: input.queryKey, jobId: job.id, error: String(err) });
        await finishJob(store.db, job.id, {
          status: "failed",
          error: err instanceof Error ? err.message : String(err),
          ...run.progress(),
        }).catch(() => undefined);
        throw err;
      }
    },
    deps.lockTimeoutMs === undefined ? {} : { timeoutMs: deps.lockTimeoutMs },
  );
}
