/**
 * chunks.pmid no longer references documents through a foreign key. The key checked every chunk
 * row on its own (a lookup and a key-share lock of its document per row: a sync writes about 2.9
 * rows a record), which cost a sync's chunk writes about a third of their time. replaceChunksOf
 * now checks a batch's documents in one statement, with the same lock, and a statement trigger
 * keeps the cascade: deleting documents deletes their chunks.
 */
import { sql, type Kysely } from "kysely";

// Migrations are frozen history: they take Kysely<any>, never the evolving Database interface.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await sql`alter table chunks drop constraint if exists chunks_pmid_fkey`.execute(db);
  await sql`create or replace function pubmed_mcp_delete_chunks() returns trigger
    language plpgsql as $$
    begin
      delete from chunks c using gone g where c.pmid = g.pmid;
      return null;
    end $$`.execute(db);
  await sql`create trigger documents_delete_chunks after delete on documents
    referencing old table as gone for each statement
    execute function pubmed_mcp_delete_chunks()`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await sql`drop trigger if exists documents_delete_chunks on documents`.execute(db);
  await sql`drop function if exists pubmed_mcp_delete_chunks()`.execute(db);
  await sql`delete from chunks c
    where not exists (select 1 from documents d where d.pmid = c.pmid)`.execute(db);
  await sql`alter table chunks add constraint chunks_pmid_fkey foreign key (pmid)
    references documents (pmid) on delete cascade`.execute(db);
}
