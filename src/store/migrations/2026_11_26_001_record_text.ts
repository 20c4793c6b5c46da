/**
 * The stored record as JSON text rather than jsonb (issue 12, the write path). Nothing queries
 * inside it: it is read whole and parsed in JavaScript (node-postgres parsed jsonb's text the same
 * way), so building jsonb's binary form was pure cost on every upsert — about a sixth of a
 * document write on the embedded store. Text keeps Postgres's compression of long values.
 */
import { sql, type Kysely } from "kysely";

// Migrations are frozen history: they take Kysely<any>, never the evolving Database interface.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await sql`alter table documents alter column record type text using record::text`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await sql`alter table documents alter column record type jsonb using record::jsonb`.execute(db);
}
