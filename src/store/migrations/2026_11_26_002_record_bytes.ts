/**
 * The stored record as bytes: brotli-compressed JSON from now on (./../record-codec.ts), and the
 * rows already stored as their JSON's UTF-8 bytes (the codec reads both). Storage `external`:
 * Postgres neither tries to compress it again nor keeps it in the row, which stays small.
 */
import { sql, type Kysely } from "kysely";
import { brotliDecompressSync } from "node:zlib";

// Migrations are frozen history: they take Kysely<any>, never the evolving Database interface.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** Rows decompressed per statement on the way down. */
const DOWN_BATCH = 500;

export async function up(db: AnyDb): Promise<void> {
  await sql`alter table documents
    alter column record type bytea using convert_to(record, 'UTF8'),
    alter column record set storage external`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  // Compressed records (format byte 1, then brotli) back to their JSON in JavaScript, then to text.
  for (;;) {
    const { rows } = await sql<{ pmid: string; record: Uint8Array }>`select pmid, record
      from documents where get_byte(record, 0) = 1 limit ${DOWN_BATCH}`.execute(db);
    if (rows.length === 0) break;
    for (const r of rows) {
      const json = brotliDecompressSync(Buffer.from(r.record).subarray(1));
      await sql`update documents set record = ${json} where pmid = ${r.pmid}`.execute(db);
    }
  }
  await sql`alter table documents
    alter column record type text using convert_from(record, 'UTF8'),
    alter column record set storage extended`.execute(db);
}
