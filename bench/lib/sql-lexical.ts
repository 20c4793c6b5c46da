/**
 * The BM25 leg as the pgvector adapter computed it in SQL before the in-memory index (kept here,
 * verbatim, to measure the two in the same run): postings in chunk_terms(term, id, weight),
 * df counted from the query terms' postings, N from chunk_stats, the payload of the best
 * `limit` rows joined by primary key with the retracted filter. buildSqlPostings() fills a
 * chunk_terms table from the rows' packed postings, as the previous write path would have.
 */
import { sql, type Kysely } from "kysely";
import type { SparseVector } from "../../src/retrieval/bm25.js";
import { POSTING_BYTES } from "../../src/vectors/memory/lexical-index.js";
import { toHits, type HitRow } from "../../src/vectors/pgvector/rows.js";
import type { Hit, VectorStore } from "../../src/vectors/vector-store.js";

type Db = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- bench tables

export async function buildSqlPostings(db: Db): Promise<number> {
  await sql`drop table if exists chunk_terms`.execute(db);
  await sql`create table chunk_terms (term integer not null, id uuid not null,
    weight real not null, primary key (term, id))`.execute(db);
  let after = "00000000-0000-0000-0000-000000000000";
  let total = 0;
  for (;;) {
    const { rows } = await sql<{ id: string; postings: Uint8Array }>`select id, postings
      from chunk_vectors where id > ${after}::uuid order by id limit 2000`.execute(db);
    if (rows.length === 0) break;
    const terms: number[] = [];
    const ids: string[] = [];
    const weights: number[] = [];
    for (const r of rows) {
      const v = new DataView(r.postings.buffer, r.postings.byteOffset, r.postings.length);
      for (let off = 0; off < r.postings.length; off += POSTING_BYTES) {
        terms.push(v.getInt32(off, false));
        ids.push(r.id);
        weights.push(v.getFloat32(off + 4, false));
      }
    }
    await sql`insert into chunk_terms (term, id, weight)
      select * from unnest(${terms}::int[], ${ids}::uuid[], ${weights}::real[])`.execute(db);
    total += terms.length;
    after = rows[rows.length - 1]!.id;
  }
  await sql`create index chunk_terms_id on chunk_terms (id)`.execute(db);
  await sql`analyze chunk_terms`.execute(db);
  return total;
}

export async function sqlSearchSparse(
  db: Db,
  query: SparseVector,
  limit: number,
  excludeRetracted: boolean,
): Promise<Hit[]> {
  if (query.indices.length === 0) return [];
  const terms = query.indices.map((t) => t | 0);
  const retracted = excludeRetracted ? sql`and not v.retracted` : sql``;
  const { rows } = await sql<HitRow>`with q as (
      select * from unnest(${terms}::int[], ${query.values}::float8[]) as q(term, w)),
    p as materialized (select t.id, t.term, t.weight from chunk_terms t
      join q on q.term = t.term),
    df as (select term, count(*)::float8 as df from p group by term),
    qidf as (select q.term, q.w * ln((s.n - df.df + 0.5) / (df.df + 0.5) + 1) as w
      from q join df on df.term = q.term cross join chunk_stats s),
    scored as (select p.id, sum(qidf.w * p.weight) as score from p
      join qidf on qidf.term = p.term group by p.id order by score desc, p.id)
    select v.id, v.pmid, s.score, v.title, v.text, v.quality, v.retracted, v.pdat_year, v.version
    from scored s
      join lateral (select * from chunk_vectors v where v.id = s.id ${retracted}) v on true
    order by s.score desc, s.id limit ${limit}`.execute(db);
  return toHits(rows);
}

/** The adapter with its sparse leg answered by the SQL above (for ragSearch over the SQL path). */
export function withSqlLexicalLeg(vectors: VectorStore, db: Db): VectorStore {
  const searchSparse = (
    q: SparseVector,
    limit: number,
    opts: { excludeRetracted?: boolean } = {},
  ) => sqlSearchSparse(db, q, limit, opts.excludeRetracted === true);
  return new Proxy(vectors, {
    get(target, prop) {
      if (prop === "searchSparse") return searchSparse;
      // Ranking beside the in-memory index would bypass the SQL leg: search.ts ranks its hits.
      if (prop === "rankSparse") return undefined;
      const value: unknown = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
