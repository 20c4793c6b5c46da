/**
 * What the vector-store suites share: Kysely handles on PGlite (with pgvector) and on a
 * throw-away database of the local PostgreSQL server (no pgvector: the real[] fallback), a small
 * corpus written for these tests, and BM25 scores computed straight from the tokens, without
 * going through the stored sparse vectors.
 */
import { describe } from "@jest/globals";
import { PGlite } from "@electric-sql/pglite";
import { createPgConfig } from "@electric-sql/pglite/node-postgres";
import { vector } from "@electric-sql/pglite-pgvector";
import { randomBytes } from "node:crypto";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { v5 as uuidv5 } from "uuid";
import { docSparseVector, idf, termId, tfPart, tokenize } from "../../src/retrieval/bm25.js";
import { hashEmbed } from "../../src/embeddings/hash.js";
import { namedReads, type PreparedRead } from "../../src/store/db.js";
import type { ChunkPoint } from "../../src/vectors/vector-store.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- the adapters take any schema */
export interface DbHandle {
  db: Kysely<any>;
  hasPgvector: boolean;
  /** Store.read, as the embedded store gives it (PGlite only). */
  read?: PreparedRead;
  close(): Promise<void>;
}

/** In-memory PGlite with pgvector, reached through node-postgres as the store does. */
export async function openPglite(): Promise<DbHandle> {
  const lite = await PGlite.create({ extensions: { vector } });
  await lite.exec("create extension if not exists vector");
  const pool = new pg.Pool(createPgConfig(lite));
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    hasPgvector: true,
    read: namedReads(pool),
    close: async () => {
      await db.destroy();
      await lite.close();
    },
  };
}

export const ADMIN_URL =
  process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const postgresProblem = await admin("select 1").then(
  () => undefined,
  (err: unknown) => (err instanceof Error ? err.message : String(err)),
);

/** `describe` that skips, with a note, when the local PostgreSQL server is not there. */
export function describePostgres(name: string, fn: () => void): void {
  if (!postgresProblem) return describe(name, fn);
  process.stderr.write(`note: skipping "${name}": PostgreSQL unreachable (${postgresProblem})\n`);
  describe.skip(name, fn);
}

/** A fresh database on the local server, dropped on close. Its pgvector flag is what it has. */
export async function openPostgres(): Promise<DbHandle> {
  const name = `pmcp_vec_${randomBytes(6).toString("hex")}`;
  await admin(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  // DROP DATABASE … WITH (FORCE) at close terminates any connection still open; an idle pg
  // client reports that as an 'error' event, which must not crash the test process.
  pool.on("error", () => undefined);
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from pg_available_extensions where name = 'vector'`.execute(db);
  return {
    db,
    hasPgvector: (rows[0]?.n ?? 0) > 0,
    close: async () => {
      await db.destroy();
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export const DIMENSION = 768;
const NAMESPACE = "6f1d0c1e-9a52-4c55-8f3e-2a7d4b1c0e99";

export interface TestChunk extends ChunkPoint {
  tokens: string[];
}

export function chunk(
  pmid: string,
  chunkId: string,
  title: string,
  text: string,
  extra: Partial<ChunkPoint["payload"]> = {},
): TestChunk {
  const tokens = tokenize(`${title} ${text}`);
  return {
    id: uuidv5(`${pmid}:${chunkId}`, NAMESPACE),
    pmid,
    chunkId,
    tokens,
    dense: hashEmbed(`${title} ${text}`),
    sparse: docSparseVector(tokens),
    payload: {
      title,
      text,
      quality: 3,
      retracted: false,
      pdatYear: 2020,
      version: 1,
      notices: [],
      ...extra,
    },
  };
}

/** Eleven chunks of ten papers; 1002 has two chunks, 1009 is retracted, 1003 corrected. */
export const CORPUS: TestChunk[] = [
  chunk(
    "1001",
    "a0",
    "Statin therapy and myopathy",
    "Statins lower LDL cholesterol; myopathy and muscle pain are the commonest adverse effects of statin therapy.",
    { quality: 7, pdatYear: 2021 },
  ),
  chunk(
    "1002",
    "a0",
    "Metformin in type 2 diabetes",
    "Metformin improves insulin sensitivity and glycaemic control in type 2 diabetes.",
    { pdatYear: null },
  ),
  chunk(
    "1002",
    "a1",
    "Metformin in type 2 diabetes",
    "Lactic acidosis with metformin is rare; renal function should be checked before metformin is prescribed.",
  ),
  chunk(
    "1003",
    "a0",
    "Aspirin after myocardial infarction",
    "Low-dose aspirin reduces recurrent myocardial infarction and vascular death after a first infarction.",
    { quality: 9, notices: [{ type: "correction", notice_pmid: "2003", date: "2021-05-04" }] },
  ),
  chunk(
    "1004",
    "a0",
    "Vitamin D and bone density",
    "Vitamin D supplementation had no effect on bone mineral density in healthy adults.",
  ),
  chunk(
    "1005",
    "a0",
    "Exercise and depression",
    "Aerobic exercise reduced depressive symptoms in adults with major depression, comparable to antidepressants.",
  ),
  chunk(
    "1006",
    "a0",
    "Insulin resistance in obesity",
    "Obesity drives insulin resistance; weight loss restores insulin sensitivity in obese adolescents.",
  ),
  chunk(
    "1007",
    "a0",
    "Statins in the elderly",
    "In elderly patients statin therapy reduced cardiovascular events; muscle symptoms were reported.",
  ),
  chunk(
    "1008",
    "a0",
    "Sleep and cardiovascular risk",
    "Short sleep duration was associated with hypertension and cardiovascular disease.",
  ),
  chunk(
    "1009",
    "a0",
    "Retracted: homeopathy cures influenza",
    "Homeopathic oscillococcinum cured influenza within hours.",
    { retracted: true, quality: 0 },
  ),
  chunk(
    "1010",
    "a0",
    "Aspirin for primary prevention",
    "Aspirin for primary prevention increased major bleeding without reducing cardiovascular mortality.",
  ),
];

export const QUERIES = [
  "statin myopathy muscle pain",
  "metformin insulin diabetes",
  "aspirin infarction cardiovascular",
  "insulin sensitivity obesity weight",
  "homeopathy influenza",
];

/** Σ idf(N, df)·tfPart over the query's distinct terms, from tokens alone. */
export function expectedBm25(chunks: TestChunk[], query: string): Map<string, number> {
  const terms = [...new Set(tokenize(query).map(termId))];
  const ids = chunks.map((c) => c.tokens.map(termId));
  const scores = new Map<string, number>();
  for (const t of terms) {
    const df = ids.filter((d) => d.includes(t)).length;
    if (df === 0) continue;
    chunks.forEach((c, k) => {
      const tf = ids[k]!.filter((x) => x === t).length;
      if (tf === 0) return;
      scores.set(
        c.id,
        (scores.get(c.id) ?? 0) + idf(chunks.length, df) * tfPart(tf, c.tokens.length),
      );
    });
  }
  return scores;
}

export const points = (chunks: TestChunk[]): ChunkPoint[] =>
  chunks.map(({ tokens: _tokens, ...p }) => p);
