/**
 * Where a sync starts and how it ends when it cannot go on.
 *
 * Plan: arrivals from the arrivals mark (last_edat) − overlap_days to today; revisions from the
 * revisions mark (last_mdat; a store synced before it existed falls back to last_edat) − overlap
 * to today. A first sync (no last_edat) walks arrivals from the beginning only: everything it
 * stores is fetched after it started, so it is as revised as of then. A call after one that
 * max_records stopped resumes each walk that call reached on the first day it left uncovered,
 * without the overlap (syncPlan below): re-reading the overlap could use up max_records on
 * records already stored, and no call would ever get further. A call stopped inside a day split by
 * PMID range resumes that day after the last PMID range it completed.
 *
 * Stop: a failure leaves both marks where the last complete windows put them and closes the job
 * `failed`; NCBI's RATE_LIMIT closes it `rate_limited` and becomes a RATE_LIMIT saying when NCBI
 * takes requests again, so a sync never waits out a long Retry-After in silence. The caller
 * releases the query_key's lock on the way out either way.
 */
import type { Kysely } from "kysely";
import { RateLimitError } from "../errors.js";
import { isoDateTime } from "../ncbi/dates.js";
import { log } from "../log.js";
import { getCheckpoint, type Checkpoint } from "../store/checkpoints.js";
import { finishJob, type JobProgress } from "../store/jobs.js";
import type { Database } from "../store/schema.js";
import type { DayRange } from "./walks.js";
import { FIRST_DAY, dayOf, type Day } from "./windows.js";

/** A walk's days; `afterPmid`: its first day is resumed after this PMID. */
export interface WalkRange extends DayRange {
  afterPmid?: number;
}

export interface SyncPlan {
  /** True when nothing was ever covered: arrivals from the beginning, no revisions walk. */
  fromScratch: boolean;
  arrivals: WalkRange;
  revisions: WalkRange | null;
}

/**
 * Where the walks of a call after a max_records stop start; null: from the mark − overlap. The
 * PMIDs, when a walk stopped inside a day split by PMID range: its last complete range's end.
 */
export interface ResumePoints {
  arrivalsFrom: Day | null;
  revisionsFrom: Day | null;
  arrivalsAfterPmid?: number;
  revisionsAfterPmid?: number;
}

export function syncPlan(
  cp: Checkpoint | null,
  overlapDays: number,
  now: Date,
  resume: ResumePoints | null = null,
): SyncPlan {
  const today = dayOf(now);
  const back = (iso: string) => Math.max(FIRST_DAY, dayOf(new Date(iso)) - overlapDays);
  const range = (day: Day | null | undefined, afterPmid: number | undefined, otherwise: Day) => {
    if (day === null || day === undefined) return { from: otherwise, to: today };
    if (day > today || afterPmid === undefined) return { from: Math.min(today, day), to: today };
    return { from: day, to: today, afterPmid };
  };
  if (!cp?.lastEdat) {
    const arrivals = range(resume?.arrivalsFrom, resume?.arrivalsAfterPmid, FIRST_DAY);
    return { fromScratch: true, arrivals, revisions: null };
  }
  return {
    fromScratch: false,
    arrivals: range(resume?.arrivalsFrom, resume?.arrivalsAfterPmid, back(cp.lastEdat)),
    revisions: range(
      resume?.revisionsFrom,
      resume?.revisionsAfterPmid,
      back(cp.lastMdat ?? cp.lastEdat),
    ),
  };
}

/** Closes the job for `err` and returns what the call should throw. */
export async function finishStopped(
  db: Kysely<Database>,
  queryKey: string,
  jobId: string,
  err: unknown,
  progress: JobProgress,
): Promise<unknown> {
  if (!(err instanceof RateLimitError)) {
    log.warn("sync failed", { queryKey, jobId, error: String(err) });
    await finishJob(db, jobId, {
      status: "failed",
      error: err instanceof Error ? err.message : String(err),
      ...progress,
    }).catch(() => undefined);
    return err;
  }
  const cp = await getCheckpoint(db, queryKey).catch(() => null);
  const stopped = rateLimitStop(err, queryKey, jobId, progress.pmidsProcessed ?? 0, cp);
  log.warn("sync stopped by NCBI's rate limit", { queryKey, jobId, ...stopped.details });
  await finishJob(db, jobId, {
    status: "rate_limited",
    error: stopped.message,
    ...progress,
  }).catch(() => undefined);
  return stopped;
}

function rateLimitStop(
  err: RateLimitError,
  queryKey: string,
  jobId: string,
  processed: number,
  cp: Checkpoint | null,
): RateLimitError {
  const given = err.details ?? {};
  const seconds = typeof given.retryAfterSeconds === "number" ? given.retryAfterSeconds : null;
  const retryAt = typeof given.retryAt === "string" ? given.retryAt : null;
  const wait =
    seconds === null
      ? "NCBI kept refusing requests (rate limit) without saying for how long"
      : `NCBI kept refusing requests (rate limit) and asked for a pause of ${seconds} s (until ${retryAt ?? "later"})`;
  const lastEdat = isoDateTime(cp?.lastEdat ?? null);
  const mark = lastEdat ? `last_edat ${lastEdat}` : "no checkpoint yet";
  const when = retryAt ? `after ${retryAt}` : "in a few minutes";
  return new RateLimitError(
    `${wait}. Rather than wait, the sync of "${queryKey}" stopped after ${processed} records; ` +
      `everything up to its checkpoint (${mark}) is stored and indexed. Call pubmed_sync_delta again ${when} to continue.`,
    {
      queryKey,
      jobId,
      pmidsProcessed: processed,
      lastEdat,
      lastMdat: isoDateTime(cp?.lastMdat ?? null),
      retryAfterSeconds: seconds,
      retryAt,
    },
    { cause: err },
  );
}
