/**
 * exports: pubmed_export answers too large to return inline, read whole through
 * resource://pubmed/export/{export_id} and dropped a day after they were written
 * (src/store/exports.ts).
 */
import { sql, type Kysely } from "kysely";

// Migrations are frozen history: they take Kysely<any>, never the evolving Database interface.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("exports")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("format", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("exports_created_at").on("exports").column("created_at").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("exports").execute();
}
