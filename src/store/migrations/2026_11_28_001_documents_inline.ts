/**
 * A document row stays whole in its table up to 8,160 bytes (`toast_tuple_target`, Postgres's
 * largest). At the default (about 2 KB) nearly every row was over, so each insert tried pglz on the
 * abstract (which saves little on short text) and moved the record, already compressed, to the
 * TOAST table: a second row and an index entry per document.
 */
import { sql, type Kysely } from "kysely";

// Migrations are frozen history: they take Kysely<any>, never the evolving Database interface.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await sql`alter table documents set (toast_tuple_target = 8160)`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await sql`alter table documents reset (toast_tuple_target)`.execute(db);
}
