/**
 * Complete and current sync windows (issue 12): the revisions mark next to the arrivals mark, the
 * marks' old and new values in the audit, and two more job outcomes — `rate_limited` (NCBI asked
 * for a longer pause than the sync waits) and `abandoned` (its process died mid-sync).
 */
import { sql, type Kysely } from "kysely";

// Migrations are frozen history: they take Kysely<any>, never the evolving Database interface.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const statuses = (list: string[]) => sql.raw(`status in (${list.map((s) => `'${s}'`).join(", ")})`);
const BEFORE = ["running", "succeeded", "failed", "partial"];
const AFTER = [...BEFORE, "rate_limited", "abandoned"];

async function jobStatuses(db: AnyDb, list: string[]): Promise<void> {
  // The init migration's inline check got Postgres's default name, <table>_<column>_check.
  await sql`alter table sync_jobs drop constraint if exists sync_jobs_status_check`.execute(db);
  await sql`alter table sync_jobs add constraint sync_jobs_status_check check (${statuses(list)})`.execute(
    db,
  );
}

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("checkpoints").addColumn("last_mdat", "timestamptz").execute();
  await db.schema
    .alterTable("checkpoint_audit")
    .addColumn("old_mdat", "timestamptz")
    .addColumn("new_mdat", "timestamptz")
    .execute();
  await jobStatuses(db, AFTER);
  // The start-up sweep for abandoned jobs reads exactly these rows.
  await db.schema
    .createIndex("sync_jobs_running_idx")
    .on("sync_jobs")
    .column("query_key")
    .where(sql.ref("status"), "=", "running")
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("sync_jobs_running_idx").ifExists().execute();
  await sql`update sync_jobs set status = 'failed' where status in ('rate_limited', 'abandoned')`.execute(
    db,
  );
  await jobStatuses(db, BEFORE);
  await db.schema
    .alterTable("checkpoint_audit")
    .dropColumn("old_mdat")
    .dropColumn("new_mdat")
    .execute();
  await db.schema.alterTable("checkpoints").dropColumn("last_mdat").execute();
}
