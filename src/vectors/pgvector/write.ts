/**
 * The write path of the pgvector adapter: one slice of points as one array-parameter statement,
 * inside the caller's transaction. A chunk's BM25 postings travel in its own row (`postings`, see
 * lexical-index.ts), so replacing a chunk replaces its postings with no delete of its own, and a
 * first sync deletes nothing.
 */
import { sql, type Kysely } from "kysely";
import { arrayParam, packBytes, utf8, type ArrayElement } from "../../store/params.js";
import { packPostings } from "../memory/lexical-index.js";
import type { ChunkPoint } from "../vector-store.js";

/** `vector` with pgvector; `real[]` (unit vectors) without it. Both are searched in memory. */
export type Storage = "vector" | "real[]";

/** Writes one slice of points at generation `gen`; returns how many ids were new (for N). */
export async function writeSlice(
  trx: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables
  points: ChunkPoint[],
  storage: Storage,
  gen: number,
): Promise<number> {
  const col = (f: (p: ChunkPoint) => ArrayElement): string => arrayParam(points.map(f));
  const cast = storage === "vector" ? sql.raw("vector") : sql.raw("real[]");
  // The two bulky columns travel as one blob each, cut apart in SQL (see store/params.ts).
  const texts = packBytes(points.map((p) => utf8(p.payload.text)));
  const postings = packBytes(points.map((p) => packPostings(p.sparse)));
  // One row back (how many were new), not one per chunk: PGlite would build and parse thousands.
  const { rows } = await sql<{ inserted: number }>`with written as (insert into chunk_vectors
      (id, pmid, chunk_id, embedding, title, text, quality, retracted, pdat_year, version,
        notices, postings, gen)
    select id, pmid, chunk_id, embedding::${cast}, title,
      convert_from(substring(${texts.blob}::bytea from t_start for t_length), 'UTF8'),
      quality, retracted, pdat_year, version, notices::jsonb,
      substring(${postings.blob}::bytea from p_start for p_length), ${gen}::bigint
    from unnest(${col((p) => p.id)}::uuid[], ${col((p) => p.pmid)}::text[],
      ${col((p) => p.chunkId)}::text[],
      ${col((p) => (p.dense.length > 0 ? embeddingLiteral(p.dense, storage) : null))}::text[],
      ${col((p) => p.payload.title)}::text[],
      ${col((p) => p.payload.quality)}::real[], ${col((p) => p.payload.retracted)}::boolean[],
      ${col((p) => p.payload.pdatYear)}::int[], ${col((p) => p.payload.version)}::int[],
      ${col((p) => (p.payload.notices?.length ? JSON.stringify(p.payload.notices) : null))}::text[],
      ${arrayParam(texts.starts)}::int[], ${arrayParam(texts.lengths)}::int[],
      ${arrayParam(postings.starts)}::int[], ${arrayParam(postings.lengths)}::int[])
      as u(id, pmid, chunk_id, embedding, title, quality, retracted, pdat_year, version, notices,
        t_start, t_length, p_start, p_length)
    on conflict (id) do update set pmid = excluded.pmid, chunk_id = excluded.chunk_id,
      embedding = excluded.embedding, title = excluded.title, text = excluded.text,
      quality = excluded.quality, retracted = excluded.retracted,
      pdat_year = excluded.pdat_year, version = excluded.version, notices = excluded.notices,
      postings = excluded.postings, gen = excluded.gen
    returning (xmax = 0) as inserted)
    select count(*) filter (where inserted)::int as inserted from written`.execute(trx);
  return rows[0]?.inserted ?? 0;
}

/** pgvector's text form, or (fallback) a Postgres array of the unit vector so cosine = dot. */
export function embeddingLiteral(v: readonly number[], storage: Storage): string {
  if (storage === "vector") return `[${v.join(",")}]`;
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return `{${v.map((x) => x / norm).join(",")}}`;
}
