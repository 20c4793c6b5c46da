import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { sql } from "kysely";
import { log } from "../../src/log.js";
import { PgVectorStore } from "../../src/vectors/pgvector/adapter.js";
import { createVectorStore } from "../../src/vectors/index.js";
import {
  CORPUS,
  DIMENSION,
  describePostgres,
  openPglite,
  openPostgres,
  type DbHandle,
} from "./harness.js";
import { vectorStoreBehaviour } from "./suite.js";

// The fallback warning and the failure logs below are expected; keep the test output readable.
beforeAll(() => {
  log.silent = true;
});
afterAll(() => {
  log.silent = false;
});

async function columnType(h: DbHandle): Promise<string | undefined> {
  const { rows } = await sql<{ type: string }>`select format_type(atttypid, atttypmod) as type
    from pg_attribute where attrelid = 'chunk_vectors'::regclass and attname = 'embedding'`.execute(
    h.db,
  );
  return rows[0]?.type;
}

async function rowCount(h: DbHandle): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from chunk_vectors`.execute(
    h.db,
  );
  return rows[0]!.n;
}

function opener(open: () => Promise<DbHandle>, into: { handle?: DbHandle }) {
  return async () => {
    const handle = await open();
    into.handle = handle;
    const store = await createVectorStore(
      { vectorStore: "pgvector", qdrant: { url: undefined, apiKey: undefined, collection: "x" } },
      handle,
    );
    expect(store).toBeInstanceOf(PgVectorStore);
    return { store, close: () => handle.close() };
  };
}

/** Concurrent payload reads (batched while one runs) answer each caller as one read alone does. */
async function concurrentPayloads(store: PgVectorStore): Promise<void> {
  const asks = CORPUS.map((_, i) => [CORPUS[i]!.id, CORPUS[(i + 3) % CORPUS.length]!.id]);
  const alone: Map<string, unknown>[] = [];
  for (const ids of asks) alone.push(await store.payloads(ids));
  const together = await Promise.all(asks.map((ids) => store.payloads(ids)));
  asks.forEach((ids, i) => {
    for (const id of ids) {
      expect(together[i]!.get(id)).toEqual(CORPUS.find((c) => c.id === id)!.payload);
      expect(together[i]!.get(id)).toEqual(alone[i]!.get(id));
    }
  });
}

describe("pgvector adapter on PGlite (vector type, dense leg in memory)", () => {
  const ctx: { handle?: DbHandle } = {};
  const store = vectorStoreBehaviour(opener(openPglite, ctx));

  it(`stores vector(${DIMENSION}) and keeps N equal to the row count`, async () => {
    expect(await columnType(ctx.handle!)).toBe(`vector(${DIMENSION})`);
    expect(await store().count()).toBe(await rowCount(ctx.handle!));
  });

  it("answers concurrent payload reads as it answers one alone", async () => {
    await concurrentPayloads(store() as PgVectorStore);
  });

  it("read the suite's payloads through the store's named statement (across a reset)", async () => {
    const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements
      where name = 'chunk_payloads'`.execute(ctx.handle!.db);
    expect(rows).toHaveLength(1);
  });

  it("answers the dense leg from memory, and drops the HNSW index a store made earlier has", async () => {
    const db = ctx.handle!.db;
    const hnswIndexes = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from pg_indexes
          where tablename = 'chunk_vectors' and indexdef like '%USING hnsw%'`.execute(db)
      ).rows[0]!.n;
    await sql`create index chunk_vectors_embedding_hnsw
      on chunk_vectors using hnsw (embedding vector_cosine_ops)`.execute(db);
    const reopened = new PgVectorStore(db, true);
    await reopened.ensure(DIMENSION);
    expect(await hnswIndexes()).toBe(0);
    expect(reopened.denseIndexSize).toBeUndefined();
    for (const c of CORPUS) {
      const hits = await reopened.searchDense(c.dense, 4, { excludeRetracted: true });
      expect(hits).toHaveLength(4);
      if (!c.payload.retracted) expect(hits[0]!.id).toBe(c.id);
      expect(hits.map((h) => h.id)).not.toContain(CORPUS[9]!.id);
    }
    expect(reopened.denseIndexSize).toBe(await rowCount(ctx.handle!));
  });
});

describePostgres("pgvector adapter on PostgreSQL without the extension (real[] fallback)", () => {
  const ctx: { handle?: DbHandle } = {};
  const store = vectorStoreBehaviour(opener(openPostgres, ctx));

  it("answers concurrent payload reads as it answers one alone", async () => {
    await concurrentPayloads(store() as PgVectorStore);
  });

  it("stores real[] unit vectors, keeps N exact, and builds no index over them", async () => {
    expect(ctx.handle!.hasPgvector).toBe(false);
    expect(await columnType(ctx.handle!)).toBe("real[]");
    expect(await store().count()).toBe(await rowCount(ctx.handle!));
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_indexes
      where tablename = 'chunk_vectors' and indexname like '%hnsw%'`.execute(ctx.handle!.db);
    expect(rows[0]!.n).toBe(0);
  });
});

describe("pgvector adapter before ensure()", () => {
  it("explains that the tables do not exist yet", async () => {
    const handle = await openPglite();
    try {
      const store = new PgVectorStore(handle.db, true);
      await expect(store.count()).rejects.toThrow(/tables do not exist yet/);
      await expect(store.health()).rejects.toThrow(/tables do not exist yet/);
      await handle.db.destroy();
      await expect(store.health()).rejects.toThrow(/pgvector store could not read its layout/);
    } finally {
      await handle.close();
    }
  });
});
