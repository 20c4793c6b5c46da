/**
 * Sync checkpoints: per query_key, the latest Entrez date (EDAT) fully stored and indexed. Syncs
 * only move a checkpoint forward; a manual set may move it anywhere (backfills). Every change is
 * recorded in checkpoint_audit.
 */
import type { Kysely, Selectable } from "kysely";
import { ValidationError } from "../errors.js";
import type { CheckpointAuditTable, CheckpointSource, Database } from "./schema.js";
import { storeCall } from "./store-errors.js";
import { inTransaction } from "./tx.js";

type Db = Kysely<Database>;

export interface Checkpoint {
  queryKey: string;
  /** ISO-8601 UTC, or null before the first sync. */
  lastEdat: string | null;
  updatedAt: string;
}

export interface CheckpointAuditEntry {
  id: number;
  queryKey: string;
  oldEdat: string | null;
  newEdat: string | null;
  source: CheckpointSource;
  note: string | null;
  at: string;
}

export interface AdvanceResult {
  advanced: boolean;
  lastEdat: string | null;
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
    source: r.source,
    note: r.note,
    at: r.at.toISOString(),
  };
}

export async function getCheckpoint(db: Db, queryKey: string): Promise<Checkpoint | null> {
  const row = await storeCall("reading a checkpoint", () =>
    db.selectFrom("checkpoints").selectAll().where("query_key", "=", queryKey).executeTakeFirst(),
  );
  return row
    ? {
        queryKey: row.query_key,
        lastEdat: iso(row.last_edat),
        updatedAt: row.updated_at.toISOString(),
      }
    : null;
}

export async function listCheckpoints(db: Db): Promise<Checkpoint[]> {
  const rows = await storeCall("listing checkpoints", () =>
    db.selectFrom("checkpoints").selectAll().orderBy("query_key").execute(),
  );
  return rows.map((row) => ({
    queryKey: row.query_key,
    lastEdat: iso(row.last_edat),
    updatedAt: row.updated_at.toISOString(),
  }));
}

/**
 * Sets the checkpoint under a row lock, creating it if needed, and audits the change. `accept`
 * decides from the current value whether to write (the forward-only rule for syncs).
 */
async function setCheckpoint(
  db: Db,
  queryKey: string,
  edat: Date | null,
  source: CheckpointSource,
  note: string | null,
  accept: (old: Date | null) => boolean,
): Promise<AdvanceResult> {
  return inTransaction(db, async (trx) => {
    // Insert-if-absent first so concurrent first writers serialise on the row lock below.
    await trx
      .insertInto("checkpoints")
      .values({ query_key: queryKey, last_edat: null })
      .onConflict((oc) => oc.column("query_key").doNothing())
      .execute();
    const current = await trx
      .selectFrom("checkpoints")
      .select("last_edat")
      .where("query_key", "=", queryKey)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const old = current.last_edat;
    if (!accept(old)) return { advanced: false, lastEdat: iso(old) };
    await trx
      .updateTable("checkpoints")
      .set({ last_edat: edat, updated_at: new Date() })
      .where("query_key", "=", queryKey)
      .execute();
    await trx
      .insertInto("checkpoint_audit")
      .values({ query_key: queryKey, old_edat: old, new_edat: edat, source, note })
      .execute();
    return { advanced: true, lastEdat: iso(edat) };
  });
}

/** Moves the checkpoint forward to `edat`; an equal or earlier value changes nothing. */
export async function advanceCheckpoint(
  db: Db,
  queryKey: string,
  edat: string | Date,
): Promise<AdvanceResult> {
  const d = toDate(edat, "edat");
  return storeCall("advancing a checkpoint", () =>
    setCheckpoint(db, queryKey, d, "sync", null, (old) => old === null || d > old),
  );
}

/** Sets the checkpoint to any value (null = start over); always audited. */
export async function setCheckpointManual(
  db: Db,
  queryKey: string,
  edat: string | Date | null,
  note?: string,
): Promise<AdvanceResult> {
  const d = edat === null ? null : toDate(edat, "last_edat");
  return storeCall("setting a checkpoint", () =>
    setCheckpoint(db, queryKey, d, "manual", note ?? null, () => true),
  );
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
