/**
 * Chunks: the retrievable pieces of a document (title, abstract paragraphs…). Their vectors and
 * BM25 postings live with the vector adapters, keyed by the same uuid. This table is their local
 * copy where the vector store is elsewhere (Qdrant); where it keeps them itself (pgvector's rows,
 * VectorStore.keepsChunks) the table is not written.
 */
import { sql, type Kysely, type Selectable } from "kysely";
import { StoreError } from "../errors.js";
import { arrayParam, packBytes, utf8, type ArrayElement } from "./params.js";
import type { ChunksTable, Database } from "./schema.js";
import { storeCall } from "./store-errors.js";
import { inTransaction } from "./tx.js";

type Db = Kysely<Database>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ChunkInput {
  /** uuid5(namespace, "<pmid>:<chunkId>"). */
  id: string;
  chunkId: string;
  ord: number;
  section: string | null;
  text: string;
  tokenCount: number;
  version: number;
}

export interface StoredChunk extends ChunkInput {
  pmid: string;
}

export function rowToChunk(r: Selectable<ChunksTable>): StoredChunk {
  return {
    id: r.id,
    pmid: r.pmid,
    chunkId: r.chunk_id,
    ord: r.ord,
    section: r.section,
    text: r.text,
    tokenCount: r.token_count,
    version: r.version,
  };
}

/** Chunk rows per INSERT (one array parameter per column: only memory bounds it). */
const ROWS_PER_STATEMENT = 2000;

/** Replaces all chunks of one document atomically. */
export async function replaceChunks(db: Db, pmid: string, chunks: ChunkInput[]): Promise<void> {
  await replaceChunksOf(db, [{ pmid, chunks }]);
}

/**
 * Replaces all chunks of each of these documents, together in one transaction: the indexer's
 * batches of 500 documents cost a few statements instead of a transaction per document. Chunks
 * need their document stored: one statement finds and key-share locks the documents given chunks
 * (as a foreign key's check would, row by row).
 */
export async function replaceChunksOf(
  db: Db,
  docs: { pmid: string; chunks: ChunkInput[] }[],
): Promise<void> {
  if (docs.length === 0) return;
  const rows = docs.flatMap(({ pmid, chunks }) => chunks.map((c) => ({ ...c, pmid })));
  const missing = await storeCall("saving chunks", () =>
    inTransaction(db, async (trx) => {
      const missing = await unstored(trx, [...new Set(rows.map((r) => r.pmid))]);
      if (missing.length > 0) return missing;
      await deleteStatement(docs.map((d) => d.pmid)).execute(trx);
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
        await insertStatement(rows.slice(i, i + ROWS_PER_STATEMENT)).execute(trx);
      }
      return [];
    }),
  );
  if (missing.length > 0) {
    const which = missing.length === 1 ? "PMID" : "PMIDs";
    throw new StoreError(
      `Cannot store chunks for ${which} ${missing.join(", ")}: the document is not stored. Upsert it first.`,
    );
  }
}

/**
 * Removes these documents' chunk rows. Where the vector store keeps the chunks (pgvector) a write
 * calls it instead of replaceChunksOf, so no row an earlier version of the server wrote outlives
 * its document's new version.
 */
export async function deleteChunksOf(db: Db, pmids: string[]): Promise<void> {
  if (pmids.length === 0) return;
  await storeCall("saving chunks", () => deleteStatement(pmids).execute(db));
}

function deleteStatement(pmids: string[]) {
  return sql`delete from chunks where pmid = any(${pmids}::text[])`;
}

/** Those of `pmids` with no stored document; the others are locked against deletion until commit. */
async function unstored(trx: Db, pmids: string[]): Promise<string[]> {
  if (pmids.length === 0) return [];
  const { rows } = await sql<{ pmid: string }>`select pmid from documents
    where pmid = any(${pmids}::text[]) for key share`.execute(trx);
  const stored = new Set(rows.map((r) => r.pmid));
  return pmids.filter((p) => !stored.has(p));
}

/** One INSERT of these rows: a column per array parameter, the texts as one blob (params.ts). */
function insertStatement(rows: StoredChunk[]) {
  const col = (f: (r: StoredChunk) => ArrayElement): string => arrayParam(rows.map(f));
  const texts = packBytes(rows.map((r) => utf8(r.text)));
  return sql`insert into chunks (id, pmid, chunk_id, ord, section, text, token_count, version)
    select id, pmid, chunk_id, ord, section,
      convert_from(substring(${texts.blob}::bytea from t_start for t_length), 'UTF8'),
      token_count, version
    from unnest(${col((r) => r.id)}::uuid[], ${col((r) => r.pmid)}::text[],
      ${col((r) => r.chunkId)}::text[], ${col((r) => r.ord)}::int[],
      ${col((r) => r.section)}::text[],
      ${arrayParam(texts.starts)}::int[], ${arrayParam(texts.lengths)}::int[],
      ${col((r) => r.tokenCount)}::int[], ${col((r) => r.version)}::int[])
      as u(id, pmid, chunk_id, ord, section, t_start, t_length, token_count, version)`;
}

/** Chunks by id, in the order asked; unknown ids are left out. */
export async function getChunks(db: Db, ids: string[]): Promise<StoredChunk[]> {
  // A malformed id cannot match and would make Postgres reject the whole uuid[] comparison.
  const valid = ids.filter((id) => UUID.test(id));
  if (valid.length === 0) return [];
  const rows = await storeCall("reading chunks", () =>
    db.selectFrom("chunks").selectAll().where("id", "in", valid).execute(),
  );
  const byId = new Map(rows.map((r) => [r.id, rowToChunk(r)]));
  return ids.flatMap((id) => byId.get(id.toLowerCase()) ?? []);
}

export async function getDocumentChunks(db: Db, pmid: string): Promise<StoredChunk[]> {
  const rows = await storeCall("reading chunks", () =>
    db.selectFrom("chunks").selectAll().where("pmid", "=", pmid).orderBy("ord").execute(),
  );
  return rows.map(rowToChunk);
}

export async function countChunks(db: Db): Promise<number> {
  const r = await storeCall("counting chunks", () =>
    db
      .selectFrom("chunks")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow(),
  );
  return Number(r.n);
}
