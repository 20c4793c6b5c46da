import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { sql } from "kysely";
import { log } from "../../src/log.js";
import { PgVectorStore } from "../../src/vectors/pgvector.js";
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
    const store = createVectorStore(
      { vectorStore: "pgvector", qdrant: { url: undefined, apiKey: undefined, collection: "x" } },
      handle,
    );
    expect(store).toBeInstanceOf(PgVectorStore);
    return { store, close: () => handle.close() };
  };
}

describe("pgvector adapter on PGlite (vector type, HNSW)", () => {
  const ctx: { handle?: DbHandle } = {};
  const store = vectorStoreBehaviour(opener(openPglite, ctx));

  it(`stores vector(${DIMENSION}) and keeps N equal to the row count`, async () => {
    expect(await columnType(ctx.handle!)).toBe(`vector(${DIMENSION})`);
    expect(await store().count()).toBe(await rowCount(ctx.handle!));
  });

  it("builds the HNSW cosine index after a bulk load and searches through it", async () => {
    const db = ctx.handle!.db;
    const memory = async () =>
      (await sql<{ m: string }>`select current_setting('maintenance_work_mem') as m`.execute(db))
        .rows[0]?.m;
    const before = await memory();
    await store().finishBulkLoad!();
    await store().finishBulkLoad!(); // idempotent
    // The build's larger maintenance_work_mem was local to its transaction.
    expect(await memory()).toBe(before);
    expect(before).not.toBe("512MB");
    const { rows } = await sql<{ def: string }>`select indexdef as def from pg_indexes
      where tablename = 'chunk_vectors' and indexname = 'chunk_vectors_embedding_hnsw'`.execute(db);
    expect(rows[0]?.def).toMatch(/USING hnsw \(embedding vector_cosine_ops\)/);
    // Eleven rows would be scanned sequentially; PGlite is one session, so this reaches the
    // adapter's queries and makes them go through the index.
    await sql`set enable_seqscan = off`.execute(db);
    try {
      const q = `[${CORPUS[5]!.dense.join(",")}]`;
      const plan = await sql<{ "QUERY PLAN": string }>`explain select id from chunk_vectors
        where not retracted order by embedding <=> ${q}::vector limit 3`.execute(db);
      expect(plan.rows.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(
        /Index Scan using chunk_vectors_embedding_hnsw/,
      );
      for (const c of CORPUS) {
        const hits = await store().searchDense(c.dense, 4, { excludeRetracted: true });
        expect(hits).toHaveLength(4);
        if (!c.payload.retracted) expect(hits[0]!.id).toBe(c.id);
        expect(hits.map((h) => h.id)).not.toContain(CORPUS[9]!.id);
      }
    } finally {
      await sql`reset enable_seqscan`.execute(db);
    }
  });

  it("searches through the HNSW index even where the planner would rather scan the table", async () => {
    const db = ctx.handle!.db;
    await store().finishBulkLoad!();
    const indexScans = async () => {
      await sql`select pg_stat_force_next_flush()`.execute(db);
      const { rows } = await sql<{ n: string }>`select idx_scan as n from pg_stat_user_indexes
        where indexrelname = 'chunk_vectors_embedding_hnsw'`.execute(db);
      return Number(rows[0]?.n);
    };
    const before = await indexScans();
    // Eleven rows and a deep leg (300): priced alone, a sequential scan wins.
    const hits = await store().searchDense(CORPUS[5]!.dense, 300, { excludeRetracted: true });
    expect(hits[0]!.id).toBe(CORPUS[5]!.id);
    expect(await indexScans()).toBe(before + 1);
  });
});

describePostgres("pgvector adapter on PostgreSQL without the extension (real[] fallback)", () => {
  const ctx: { handle?: DbHandle } = {};
  const store = vectorStoreBehaviour(opener(openPostgres, ctx));

  it("stores real[] unit vectors, keeps N exact, and has no index to build", async () => {
    expect(ctx.handle!.hasPgvector).toBe(false);
    expect(await columnType(ctx.handle!)).toBe("real[]");
    expect(await store().count()).toBe(await rowCount(ctx.handle!));
    await store().finishBulkLoad!();
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
