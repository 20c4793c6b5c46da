/**
 * The pgvector adapter's tables, created (or brought up to date) inside ensure()'s transaction:
 *   chunk_vectors(id, pmid, chunk_id, embedding, payload columns, postings, gen)  one row per chunk
 *   chunk_stats(n, dimension, gen, pruned_gen, epoch)                              one row
 *   chunk_tombstones(gen, id)                                                      deleted chunks
 * `postings` packs the chunk's BM25 sparse vector (lexical-index.ts); `gen` is the write
 * generation that last wrote the row (pgvector-lexical.ts explains the protocol); `epoch` is
 * drawn when the tables are created, so a replica notices they were recreated.
 */
import { sql, type Kysely } from "kysely";

type Db = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables

export async function createTables(trx: Db, dimension: number, hasPgvector: boolean) {
  await sql`create table if not exists chunk_stats (
    singleton boolean primary key default true check (singleton),
    n bigint not null, dimension integer not null)`.execute(trx);
  await sql`alter table chunk_stats add column if not exists gen bigint not null default 0,
    add column if not exists pruned_gen bigint not null default 0,
    add column if not exists epoch float8 not null default random()`.execute(trx);
  // Lexical only (dimension 0): the column stays, always null.
  const embedding =
    hasPgvector && dimension > 0 ? sql.raw(`vector(${dimension})`) : sql.raw("real[]");
  await sql`create table if not exists chunk_vectors (
    id uuid primary key, pmid text not null, chunk_id text not null,
    embedding ${embedding}, title text not null, text text not null,
    quality real not null, retracted boolean not null, pdat_year integer,
    version integer not null)`.execute(trx);
  await sql`alter table chunk_vectors
    add column if not exists postings bytea not null default ''::bytea,
    add column if not exists gen bigint not null default 0`.execute(trx);
  await addNotices(trx);
  await keepRowsWhole(trx);
  await sql`create index if not exists chunk_vectors_pmid on chunk_vectors (pmid)`.execute(trx);
  await sql`create index if not exists chunk_vectors_gen on chunk_vectors (gen)`.execute(trx);
  await sql`create table if not exists chunk_tombstones (gen bigint not null, id uuid not null)`.execute(
    trx,
  );
  await sql`create index if not exists chunk_tombstones_gen on chunk_tombstones (gen)`.execute(trx);
  await sql`insert into chunk_stats (n, dimension) values (0, ${dimension})
    on conflict do nothing`.execute(trx);
  await migratePostingsTable(trx);
}

/**
 * The paper's integrity notices in each chunk row (null for none, as nearly every paper), read
 * with the payload: a copy of its documents row's, as quality and retracted are, so rag_search's
 * payload read needs no join. Measured on PGlite at 100,000 chunks (20 ids a read, the three
 * reads interleaved): a left join on documents cost the read 0.09 ms more (p50 0.33 ms against
 * 0.24), this column 0.005 ms. The rows of a store made before get theirs from the documents rows
 * when the column is added; from then on every write of a paper's chunks writes them with it
 * (src/corpus/indexer.ts), so a revision's new notice arrives with its new version.
 */
async function addNotices(trx: Db): Promise<void> {
  const { rows } = await sql<{ present: boolean; documents: boolean }>`select
      exists (select 1 from pg_attribute where attrelid = 'chunk_vectors'::regclass
        and attname = 'notices' and not attisdropped) as present,
      exists (select 1 from pg_attribute where attrelid = to_regclass('documents')
        and attname = 'notices' and not attisdropped) as documents`.execute(trx);
  if (rows[0]?.present) return;
  await sql`alter table chunk_vectors add column notices jsonb`.execute(trx);
  // The adapter's tables alone (its own tests) have no documents to copy from.
  if (!rows[0]?.documents) return;
  await sql`update chunk_vectors v set notices = d.notices from documents d
    where d.pmid = v.pmid and d.notices is not null`.execute(trx);
}

/**
 * A chunk row stays whole in its table up to 8,160 bytes, as a document's does
 * (store/migrations/2026_11_28_001_documents_inline.ts): at the default (about 2 KB) a long
 * abstract's chunk went through pglz, in WebAssembly on the embedded store, on every write and
 * read (docs/corpus.md, "Chunk rows kept whole"). Set once; a store made earlier keeps its
 * compressed rows until they are written again.
 */
async function keepRowsWhole(trx: Db): Promise<void> {
  const { rows } = await sql<{ set: boolean }>`select coalesce(
      'toast_tuple_target=8160' = any(reloptions), false) as set
    from pg_class where oid = 'chunk_vectors'::regclass`.execute(trx);
  if (!rows[0]?.set) {
    await sql`alter table chunk_vectors set (toast_tuple_target = 8160)`.execute(trx);
  }
}

/**
 * Stores made before postings moved into the rows kept them in chunk_terms(term, id, weight):
 * pack them into the rows (the same big-endian pairs packPostings writes) and drop the table.
 */
async function migratePostingsTable(trx: Db): Promise<void> {
  const { rows } = await sql<{
    old: boolean;
  }>`select to_regclass('chunk_terms') is not null as old`.execute(trx);
  if (!rows[0]?.old) return;
  await sql`update chunk_vectors v set postings = p.packed, gen = 0
    from (select id, string_agg(int4send(term) || float4send(weight), ''::bytea) as packed
      from chunk_terms group by id) p
    where p.id = v.id`.execute(trx);
  await sql`drop table chunk_terms`.execute(trx);
  await sql`update chunk_stats set epoch = random()`.execute(trx);
}

/**
 * Stores written before a chunk's text lived in chunk_vectors alone also kept it in the store's
 * `chunks` table. Writing a document again removes its copy (writeChunkRows); this removes the
 * copies of every document whose chunks are here, so a store not synced since loses them too.
 * Once they are gone it costs a scan of the empty table.
 */
export async function dropSupersededChunkRows(trx: Db): Promise<void> {
  const { rows } = await sql<{
    present: boolean;
  }>`select to_regclass('chunks') is not null as present`.execute(trx);
  if (!rows[0]?.present) return; // the adapter's tables alone (its own tests)
  await sql`delete from chunks c
    where exists (select 1 from chunk_vectors v where v.pmid = c.pmid)`.execute(trx);
}

export async function dropTables(trx: Db): Promise<void> {
  await sql`drop table if exists chunk_vectors, chunk_terms, chunk_stats, chunk_tombstones`.execute(
    trx,
  );
}
