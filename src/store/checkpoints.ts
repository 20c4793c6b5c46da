/**
 * Sync checkpoints: per query_key, two marks a sync has fully stored and indexed up to —
 * `last_edat`, the end of the last complete arrivals window (create date, CRDT; the column keeps
 * its first name, as the tools do), and `last_mdat`, the end of the last complete revisions window
 * (modification date, MDAT). Syncs only move a mark forward; a manual set moves both anywhere
 * (backfills). Every change is recorded in checkpoint_audit.
 */
import type { Kysely, Selectable } from "kysely";
import { ValidationError } from "../errors.js";
import type { CheckpointAuditTable, CheckpointSource, Database } from "./schema.js";
import { storeCall } from "./store-errors.js";
import { inTransaction } from "./tx.js";

type Db = Kysely<Database>;

/**
 * The longest query_key, in characters. Keys are indexed (checkpoints, checkpoint_audit,
 * sync_jobs, sync_progress), and a btree index row holds at most about 2,700 bytes: a key of
 * 20,000 characters failed with Postgres error 54000 (issue 45, finding 4). Every tool taking a
 * query_key advertises this limit (src/tools/params.ts); the check here covers every other caller.
 */
export const MAX_QUERY_KEY_CHARS = 200;

/** Refuses a query_key longer than MAX_QUERY_KEY_CHARS as VALIDATION, before Postgres does. */
export function checkQueryKey(queryKey: string): void {
  if (queryKey.length > MAX_QUERY_KEY_CHARS) {
    throw new ValidationError(
      `query_key must be at most ${MAX_QUERY_KEY_CHARS} characters (it has ${queryKey.length.toLocaleString("en-US")}).`,
    );
  }
}

export interface Checkpoint {
  queryKey: string;
  /** ISO-8601 UTC, or null before the first sync. */
  lastEdat: string | null;
  /** ISO-8601 UTC, or null until a sync has covered revisions (see the module comment). */
  lastMdat: string | null;
  updatedAt: string;
}

export interface CheckpointAuditEntry {
  id: number;
  queryKey: string;
  oldEdat: string | null;
  newEdat: string | null;
  oldMdat: string | null;
  newMdat: string | null;
  source: CheckpointSource;
  note: string | null;
  at: string;
}

export interface AdvanceResult {
  advanced: boolean;
  lastEdat: string | null;
  lastMdat: string | null;
}

interface Marks {
  edat: Date | null;
  mdat: Date | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function toDate(edat: string | Date, what: string): Date {
  const d = edat instanceof Date ? edat : new Date(edat);
  if (Number.isNaN(d.getTime())) {
    throw new ValidationError(`${what} must be an ISO-8601 date-time, e.g. "2024-05-01T00:00:00Z"`);
  }
  return d;
}

export function rowToAudit(r: Selectable<CheckpointAuditTable>): CheckpointAuditEntry {
  return {
    id: Number(r.id),
    queryKey: r.query_key,
    oldEdat: iso(r.old_edat),
    newEdat: iso(r.new_edat),
    oldMdat: iso(r.old_mdat),
    newMdat: iso(r.new_mdat),
    source: r.source,
    note: r.note,
    at: r.at.toISOString(),
  };
}

function rowToCheckpoint(row: Selectable<Database["checkpoints"]>): Checkpoint {
  return {
    queryKey: row.query_key,
    lastEdat: iso(row.last_edat),
    lastMdat: iso(row.last_mdat),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function getCheckpoint(db: Db, queryKey: string): Promise<Checkpoint | null> {
  const row = await storeCall("reading a checkpoint", () =>
    db.selectFrom("checkpoints").selectAll().where("query_key", "=", queryKey).executeTakeFirst(),
  );
  return row ? rowToCheckpoint(row) : null;
}

export async function listCheckpoints(db: Db): Promise<Checkpoint[]> {
  const rows = await storeCall("listing checkpoints", () =>
    db.selectFrom("checkpoints").selectAll().orderBy("query_key").execute(),
  );
  return rows.map(rowToCheckpoint);
}

/**
 * Sets the marks under a row lock, creating the row if needed, and audits the change. `next`
 * decides from the current marks what to write (the forward-only rule for syncs); returning the
 * current marks unchanged writes nothing.
 */
async function setCheckpoint(
  db: Db,
  queryKey: string,
  source: CheckpointSource,
  note: string | null,
  next: (old: Marks) => Marks,
): Promise<AdvanceResult> {
  checkQueryKey(queryKey);
  return inTransaction(db, async (trx) => {
    // Insert-if-absent first so concurrent first writers serialise on the row lock below.
    await trx
      .insertInto("checkpoints")
      .values({ query_key: queryKey, last_edat: null })
      .onConflict((oc) => oc.column("query_key").doNothing())
      .execute();
    const current = await trx
      .selectFrom("checkpoints")
      .select(["last_edat", "last_mdat"])
      .where("query_key", "=", queryKey)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const old: Marks = { edat: current.last_edat, mdat: current.last_mdat };
    const want = next(old);
    const same = (a: Date | null, b: Date | null) => a?.getTime() === b?.getTime();
    if (source === "sync" && same(want.edat, old.edat) && same(want.mdat, old.mdat)) {
      return { advanced: false, lastEdat: iso(old.edat), lastMdat: iso(old.mdat) };
    }
    await trx
      .updateTable("checkpoints")
      .set({ last_edat: want.edat, last_mdat: want.mdat, updated_at: new Date() })
      .where("query_key", "=", queryKey)
      .execute();
    await trx
      .insertInto("checkpoint_audit")
      .values({
        query_key: queryKey,
        old_edat: old.edat,
        new_edat: want.edat,
        old_mdat: old.mdat,
        new_mdat: want.mdat,
        source,
        note,
      })
      .execute();
    return { advanced: true, lastEdat: iso(want.edat), lastMdat: iso(want.mdat) };
  });
}

const later = (a: Date | null, b: Date | undefined): Date | null =>
  b !== undefined && (a === null || b > a) ? b : a;

/**
 * Moves the arrivals mark forward to `edat` and, when given, the revisions mark forward to
 * `mdat`; an equal or earlier value leaves that mark as it is.
 */
export async function advanceCheckpoint(
  db: Db,
  queryKey: string,
  edat: string | Date,
  mdat?: string | Date,
): Promise<AdvanceResult> {
  const e = toDate(edat, "edat");
  const m = mdat === undefined ? undefined : toDate(mdat, "mdat");
  return storeCall("advancing a checkpoint", () =>
    setCheckpoint(db, queryKey, "sync", null, (old) => ({
      edat: later(old.edat, e),
      mdat: later(old.mdat, m),
    })),
  );
}

/** Moves the revisions mark forward to `mdat`; an equal or earlier value changes nothing. */
export async function advanceRevisions(
  db: Db,
  queryKey: string,
  mdat: string | Date,
): Promise<AdvanceResult> {
  const m = toDate(mdat, "mdat");
  return storeCall("advancing a checkpoint", () =>
    setCheckpoint(db, queryKey, "sync", null, (old) => ({
      edat: old.edat,
      mdat: later(old.mdat, m),
    })),
  );
}

/**
 * Sets both marks to `edat` (null = start over), forward or back; always audited. Moving back
 * re-reads from there on the next sync: arrivals created since then, and revisions made since
 * then to records created before.
 */
export async function setCheckpointManual(
  db: Db,
  queryKey: string,
  edat: string | Date | null,
  note?: string,
): Promise<AdvanceResult> {
  const d = edat === null ? null : toDate(edat, "last_edat");
  return storeCall("setting a checkpoint", () =>
    setCheckpoint(db, queryKey, "manual", note ?? null, () => ({ edat: d, mdat: d })),
  );
}

/**
 * Clears both marks for a sync (audited with `note`), so it walks from the beginning and moves the
 * marks forward from there, as a first sync does.
 */
export async function clearCheckpoint(db: Db, queryKey: string, note: string): Promise<void> {
  await storeCall("clearing a checkpoint", () =>
    setCheckpoint(db, queryKey, "sync", note, () => ({ edat: null, mdat: null })),
  );
}

/**
 * Whether the key's checkpoint holds nothing worth keeping: no one set it by hand, and none of the
 * key's syncs processed a record (its term matched nothing), so its marks cover no paper.
 */
export async function checkpointCoversNothing(db: Db, queryKey: string): Promise<boolean> {
  return storeCall("reading a checkpoint's history", async () => {
    const manual = await db
      .selectFrom("checkpoint_audit")
      .select("id")
      .where("query_key", "=", queryKey)
      .where("source", "=", "manual")
      .limit(1)
      .executeTakeFirst();
    if (manual) return false;
    const stored = await db
      .selectFrom("sync_jobs")
      .select("id")
      .where("query_key", "=", queryKey)
      .where("pmids_processed", ">", 0)
      .limit(1)
      .executeTakeFirst();
    return !stored;
  });
}

/** The audit trail of one query_key, oldest first. */
export async function listAudit(db: Db, queryKey: string): Promise<CheckpointAuditEntry[]> {
  const rows = await storeCall("reading the checkpoint audit", () =>
    db
      .selectFrom("checkpoint_audit")
      .selectAll()
      .where("query_key", "=", queryKey)
      .orderBy("id")
      .execute(),
  );
  return rows.map(rowToAudit);
}
