/**
 * sync_jobs: one row per pubmed_sync_delta call, for progress, audit and the tool's job_id.
 * sync_progress: per query_key resume state, so a max_records-bounded sync continues where the
 * previous call stopped. Its shape belongs to the sync; the store keeps it as opaque JSON.
 */
import { randomUUID } from "node:crypto";
import type { Kysely, Selectable, Updateable } from "kysely";
import { wellFormed } from "../excerpt.js";
import { log } from "../log.js";
import type { Database, JobStatus, SyncJobsTable } from "./schema.js";
import { storeCall } from "./store-errors.js";

type Db = Kysely<Database>;

export interface SyncJob {
  id: string;
  queryKey: string;
  term: string;
  status: JobStatus;
  inserted: number;
  updated: number;
  skipped: number;
  pmidsProcessed: number;
  /** ISO-8601 UTC or null. */
  maxEdatSeen: string | null;
  warnings: string[];
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
}

/** Counters and notes a running sync reports; absent fields are left as they are. */
export interface JobProgress {
  inserted?: number;
  updated?: number;
  skipped?: number;
  pmidsProcessed?: number;
  maxEdatSeen?: string | null;
  warnings?: string[];
}

export interface JobOutcome extends JobProgress {
  status: Exclude<JobStatus, "running">;
  error?: string | null;
}

export function rowToJob(r: Selectable<SyncJobsTable>): SyncJob {
  return {
    id: r.id,
    queryKey: r.query_key,
    term: r.term,
    status: r.status,
    inserted: r.inserted,
    updated: r.updated,
    skipped: r.skipped,
    pmidsProcessed: r.pmids_processed,
    maxEdatSeen: r.max_edat_seen ? r.max_edat_seen.toISOString() : null,
    warnings: r.warnings,
    error: r.error,
    startedAt: r.started_at.toISOString(),
    finishedAt: r.finished_at ? r.finished_at.toISOString() : null,
  };
}

function progressToRow(p: JobProgress): Updateable<SyncJobsTable> {
  const row: Updateable<SyncJobsTable> = {};
  if (p.inserted !== undefined) row.inserted = p.inserted;
  if (p.updated !== undefined) row.updated = p.updated;
  if (p.skipped !== undefined) row.skipped = p.skipped;
  if (p.pmidsProcessed !== undefined) row.pmids_processed = p.pmidsProcessed;
  if (p.maxEdatSeen !== undefined) row.max_edat_seen = p.maxEdatSeen;
  // Postgres refuses JSON holding half a surrogate pair ("\ud83d" alone): U+FFFD stands for it.
  if (p.warnings !== undefined) row.warnings = JSON.stringify(p.warnings.map(wellFormed));
  return row;
}

export async function createJob(db: Db, job: { queryKey: string; term: string }): Promise<SyncJob> {
  const row = await storeCall("recording a sync job", () =>
    db
      .insertInto("sync_jobs")
      .values({ id: randomUUID(), query_key: job.queryKey, term: job.term, status: "running" })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return rowToJob(row);
}

async function patchJob(
  db: Db,
  id: string,
  row: Updateable<SyncJobsTable>,
  doing: string,
): Promise<SyncJob | null> {
  const out = await storeCall(doing, () =>
    db.updateTable("sync_jobs").set(row).where("id", "=", id).returningAll().executeTakeFirst(),
  );
  return out ? rowToJob(out) : null;
}

/** Records progress of a running job. Returns null for an unknown id. */
export function updateJob(db: Db, id: string, progress: JobProgress): Promise<SyncJob | null> {
  const row = progressToRow(progress);
  if (Object.keys(row).length === 0) return getJob(db, id);
  return patchJob(db, id, row, "updating a sync job");
}

/**
 * Closes a job with its final status and counters. Returns null for an unknown id. When the row
 * will not take the counters and warnings, it is closed with the status and error alone: what a
 * job reports must never leave it `running` (issue 45, finding 4). Throws only when even that
 * fails (the store is unreachable; the start-up sweep, src/store/abandoned.ts, closes it later).
 */
export async function finishJob(db: Db, id: string, outcome: JobOutcome): Promise<SyncJob | null> {
  const closing = {
    status: outcome.status,
    error: outcome.error === undefined || outcome.error === null ? null : wellFormed(outcome.error),
    finished_at: new Date(),
  };
  try {
    return await patchJob(
      db,
      id,
      { ...progressToRow(outcome), ...closing },
      "finishing a sync job",
    );
  } catch (err) {
    log.warn("sync job closed without its counters", { jobId: id, error: String(err) });
    return patchJob(db, id, closing, "finishing a sync job").catch(() => {
      throw err;
    });
  }
}

export async function getJob(db: Db, id: string): Promise<SyncJob | null> {
  // Ids are uuids; anything else cannot exist and would be a type error in Postgres.
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const row = await storeCall("reading a sync job", () =>
    db.selectFrom("sync_jobs").selectAll().where("id", "=", id).executeTakeFirst(),
  );
  return row ? rowToJob(row) : null;
}

/** Most recent jobs first, optionally for one query_key. */
export async function listJobs(
  db: Db,
  opts: { queryKey?: string; limit?: number } = {},
): Promise<SyncJob[]> {
  const rows = await storeCall("listing sync jobs", () => {
    let q = db.selectFrom("sync_jobs").selectAll();
    if (opts.queryKey !== undefined) q = q.where("query_key", "=", opts.queryKey);
    return q
      .orderBy("started_at", "desc")
      .limit(opts.limit ?? 20)
      .execute();
  });
  return rows.map(rowToJob);
}

export interface SyncProgress<T> {
  state: T;
  updatedAt: string;
}

export async function getSyncProgress<T = unknown>(
  db: Db,
  queryKey: string,
): Promise<SyncProgress<T> | null> {
  const row = await storeCall("reading sync progress", () =>
    db.selectFrom("sync_progress").selectAll().where("query_key", "=", queryKey).executeTakeFirst(),
  );
  return row ? { state: row.state as T, updatedAt: row.updated_at.toISOString() } : null;
}

export async function setSyncProgress(db: Db, queryKey: string, state: object): Promise<void> {
  const json = JSON.stringify(state);
  await storeCall("saving sync progress", () =>
    db
      .insertInto("sync_progress")
      .values({ query_key: queryKey, state: json })
      .onConflict((oc) =>
        oc.column("query_key").doUpdateSet({ state: json, updated_at: new Date() }),
      )
      .execute(),
  );
}

export async function clearSyncProgress(db: Db, queryKey: string): Promise<void> {
  await storeCall("clearing sync progress", () =>
    db.deleteFrom("sync_progress").where("query_key", "=", queryKey).execute(),
  );
}

/** The query_keys that have jobs still marked running. */
export async function runningJobKeys(db: Db): Promise<string[]> {
  const rows = await storeCall("listing running sync jobs", () =>
    db
      .selectFrom("sync_jobs")
      .select("query_key")
      .distinct()
      .where("status", "=", "running")
      .orderBy("query_key")
      .execute(),
  );
  return rows.map((r) => r.query_key);
}

/**
 * Marks the running jobs of `queryKey` abandoned. Only for a caller that holds the key's sync
 * lock, so no live sync of that key can own them (src/store/abandoned.ts).
 */
export async function abandonRunningJobs(
  db: Db,
  queryKey: string,
  reason: string,
): Promise<number> {
  const rows = await storeCall("marking abandoned sync jobs", () =>
    db
      .updateTable("sync_jobs")
      .set({ status: "abandoned", error: reason, finished_at: new Date() })
      .where("query_key", "=", queryKey)
      .where("status", "=", "running")
      .returning("id")
      .execute(),
  );
  return rows.length;
}
