/**
 * A store written before the postings moved into the chunk rows (chunk_terms(term, id, weight))
 * is brought up to date by ensure(): its postings are packed into the rows, chunk_terms is
 * dropped, and BM25 scores are what they were.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { sql } from "kysely";
import { querySparseVector, tokenize } from "../../src/retrieval/bm25.js";
import { PgVectorStore } from "../../src/vectors/pgvector/adapter.js";
import { CORPUS, DIMENSION, QUERIES, expectedBm25, openPglite, type DbHandle } from "./harness.js";

/** The tables and rows as the previous release wrote them. */
async function writeOldLayout(h: DbHandle): Promise<void> {
  await sql`create table chunk_stats (singleton boolean primary key default true check (singleton),
    n bigint not null, dimension integer not null)`.execute(h.db);
  await sql`create table chunk_vectors (id uuid primary key, pmid text not null,
    chunk_id text not null, embedding vector(${sql.raw(String(DIMENSION))}) not null,
    title text not null, text text not null, quality real not null, retracted boolean not null,
    pdat_year integer, version integer not null)`.execute(h.db);
  await sql`create table chunk_terms (term integer not null, id uuid not null,
    weight real not null, primary key (term, id))`.execute(h.db);
  await sql`insert into chunk_stats (n, dimension) values (${CORPUS.length}, ${DIMENSION})`.execute(
    h.db,
  );
  for (const c of CORPUS) {
    const p = c.payload;
    await sql`insert into chunk_vectors values (${c.id}, ${c.pmid}, ${c.chunkId},
      ${`[${c.dense.join(",")}]`}::vector, ${p.title}, ${p.text}, ${p.quality}, ${p.retracted},
      ${p.pdatYear}, ${p.version})`.execute(h.db);
    await sql`insert into chunk_terms select t, ${c.id}::uuid, w
      from unnest(${c.sparse.indices.map((t) => t | 0)}::int[], ${c.sparse.values}::real[])
      as u(t, w)`.execute(h.db);
  }
}

describe("pgvector adapter on a store with the previous postings table", () => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openPglite();
  });
  afterAll(async () => {
    await handle.close();
  });

  it("packs chunk_terms into the rows, drops it, and scores as before", async () => {
    await writeOldLayout(handle);
    const store = new PgVectorStore(handle.db, true);
    await store.ensure(DIMENSION);
    const { rows } = await sql<{
      old: boolean;
    }>`select to_regclass('chunk_terms') is not null as old`.execute(handle.db);
    expect(rows[0]?.old).toBe(false);
    expect(await store.count()).toBe(CORPUS.length);
    for (const query of QUERIES) {
      const want = [...expectedBm25(CORPUS, query)].sort((a, b) => b[1] - a[1]);
      const got = await store.searchSparse(querySparseVector(tokenize(query)), 50);
      expect(got.map((h) => h.score)).toEqual(want.map(([, s]) => expect.closeTo(s, 4)));
      got.forEach((h) => expect(h.score).toBeCloseTo(want.find(([id]) => id === h.id)![1], 4));
    }
  });
});
