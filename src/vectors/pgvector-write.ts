/**
 * The write path of the pgvector adapter: one slice of points as three array-parameter
 * statements (rows, old postings out, new postings in), inside the caller's transaction.
 */
import { sql, type Kysely } from "kysely";
import type { ChunkPoint } from "./vector-store.js";

/** `vector` with pgvector; `real[]` (unit vectors, searched by brute force) without it. */
export type Storage = "vector" | "real[]";

/** Writes one slice of points; returns how many ids were new (for N). */
export async function writeSlice(
  trx: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables
  points: ChunkPoint[],
  storage: Storage,
): Promise<number> {
  const col = <T>(f: (p: ChunkPoint) => T): T[] => points.map(f);
  const ids = col((p) => p.id);
  const cast = storage === "vector" ? sql.raw("vector") : sql.raw("real[]");
  const { rows } = await sql<{ inserted: boolean }>`insert into chunk_vectors
      (id, pmid, chunk_id, embedding, title, text, quality, retracted, pdat_year, version)
    select id, pmid, chunk_id, embedding::${cast}, title, text, quality, retracted, pdat_year, version
    from unnest(${ids}::uuid[], ${col((p) => p.pmid)}::text[], ${col((p) => p.chunkId)}::text[],
      ${col((p) => (p.dense.length > 0 ? embeddingLiteral(p.dense, storage) : null))}::text[],
      ${col((p) => p.payload.title)}::text[], ${col((p) => p.payload.text)}::text[],
      ${col((p) => p.payload.quality)}::real[], ${col((p) => p.payload.retracted)}::boolean[],
      ${col((p) => p.payload.pdatYear)}::int[], ${col((p) => p.payload.version)}::int[])
      as u(id, pmid, chunk_id, embedding, title, text, quality, retracted, pdat_year, version)
    on conflict (id) do update set pmid = excluded.pmid, chunk_id = excluded.chunk_id,
      embedding = excluded.embedding, title = excluded.title, text = excluded.text,
      quality = excluded.quality, retracted = excluded.retracted,
      pdat_year = excluded.pdat_year, version = excluded.version
    returning (xmax = 0) as inserted`.execute(trx);
  await sql`delete from chunk_terms where id = any(${ids}::uuid[])`.execute(trx);
  const terms: number[] = [];
  const termIds: string[] = [];
  const weights: number[] = [];
  for (const p of points) {
    p.sparse.indices.forEach((t, k) => {
      terms.push(t | 0);
      termIds.push(p.id);
      weights.push(p.sparse.values[k]!);
    });
  }
  if (terms.length > 0) {
    await sql`insert into chunk_terms (term, id, weight)
      select * from unnest(${terms}::int[], ${termIds}::uuid[], ${weights}::real[])`.execute(trx);
  }
  return rows.filter((r) => r.inserted).length;
}

/** pgvector's text form, or (fallback) a Postgres array of the unit vector so cosine = dot. */
export function embeddingLiteral(v: readonly number[], storage: Storage): string {
  if (storage === "vector") return `[${v.join(",")}]`;
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return `{${v.map((x) => x / norm).join(",")}}`;
}
