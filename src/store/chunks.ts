/**
 * Chunks: the retrievable pieces of a document (title, abstract paragraphs…). Their vectors and
 * BM25 postings live with the vector adapters, keyed by the same uuid.
 */
import type { Kysely, Selectable } from "kysely";
import { StoreError } from "../errors.js";
import type { ChunksTable, Database } from "./schema.js";
import { sqlState, storeCall, toStoreError } from "./store-errors.js";
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

/** Replaces all chunks of one document atomically. */
export async function replaceChunks(db: Db, pmid: string, chunks: ChunkInput[]): Promise<void> {
  try {
    await inTransaction(db, async (trx) => {
      await trx.deleteFrom("chunks").where("pmid", "=", pmid).execute();
      if (chunks.length === 0) return;
      await trx
        .insertInto("chunks")
        .values(
          chunks.map((c) => ({
            id: c.id,
            pmid,
            chunk_id: c.chunkId,
            ord: c.ord,
            section: c.section,
            text: c.text,
            token_count: c.tokenCount,
            version: c.version,
          })),
        )
        .execute();
    });
  } catch (err) {
    if (sqlState(err) === "23503") {
      throw new StoreError(
        `Cannot store chunks for PMID ${pmid}: the document is not stored. Upsert it first.`,
      );
    }
    throw toStoreError(err, "saving chunks");
  }
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
