/**
 * A document's integrity notices (retraction, correction, expression of concern, withdrawal;
 * docs/trust.md) in a column of their own, null for none: rag_get reads them there, and the
 * vector stores copy them into each chunk's payload (src/vectors/pgvector/schema.ts), so neither
 * decodes a record to find them. The rows already stored get theirs from their stored record
 * here, as the writer derives them (noticesFromArticle); from then on every write of a record
 * writes its notices with it. Reading every record once took 2.6 s for 35,701 records on PGlite
 * (a 2-core machine under load): a one-off pause of the first open after the upgrade.
 */
import { sql, type Kysely } from "kysely";
import { noticesFromArticle } from "../../ncbi/notices.js";
import { decodeRecord } from "../record-codec.js";

// Migrations are frozen history: they take Kysely<any>, never the evolving Database interface.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** Records decoded per read: about 1.2 MB of compressed records. */
const BACKFILL_BATCH = 1000;

export async function up(db: AnyDb): Promise<void> {
  await sql`alter table documents add column notices jsonb`.execute(db);
  // In primary-key order from the last one read: each batch is an index range, never a rescan.
  let after = "";
  for (;;) {
    const { rows } = await sql<{ pmid: string; record: Uint8Array }>`select pmid, record
      from documents where pmid > ${after} order by pmid limit ${BACKFILL_BATCH}`.execute(db);
    const last = rows[rows.length - 1];
    if (!last) break;
    after = last.pmid;
    const found = rows.flatMap((r) => {
      // A record stored before the parser kept every field reads with that field missing.
      const { publicationTypes = [], commentsCorrections = [] } = decodeRecord(r.record);
      const notices = noticesFromArticle({ publicationTypes, commentsCorrections });
      return notices.length > 0 ? [{ pmid: r.pmid, notices: JSON.stringify(notices) }] : [];
    });
    if (found.length === 0) continue;
    // Not a new version: the record is unchanged, only read again.
    await sql`update documents d set notices = u.notices::jsonb
      from unnest(${found.map((f) => f.pmid)}::text[], ${found.map((f) => f.notices)}::text[])
        as u(pmid, notices)
      where d.pmid = u.pmid`.execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("documents").dropColumn("notices").execute();
}
