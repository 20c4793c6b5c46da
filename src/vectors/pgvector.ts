/**
 * Chunk vectors in the metadata Postgres (PGlite or a server), in tables this adapter owns:
 *   chunk_vectors(id, pmid, chunk_id, embedding, payload columns)  one row per chunk
 *   chunk_terms(term, id, weight)                                   BM25 postings, pk (term, id)
 *   chunk_stats(n, dimension)                                       one row: N for idf, the size
 * `embedding` is vector(d) when the pgvector extension is loaded, with cosine distance and an
 * HNSW index built by finishBulkLoad(). Without it (the CI PostgreSQL 15 has none) it is real[]
 * holding unit vectors, searched exactly by brute force in SQL — correct, O(N·d) per query,
 * meant for tests and small corpora.
 *
 * BM25 is computed the way Qdrant does for `modifier: "idf"` (src/corpus/bm25.ts): df is counted
 * from the postings of the query's terms (the rows the score needs anyway, so it is always exact
 * and has no hot counter rows); N is kept in chunk_stats, updated in the same transaction as
 * every write. Term ids are uint32; they are stored as int4 with the same bits (id | 0).
 * The SQL is written out with Kysely's `sql` tag: it is mostly scoring arithmetic and
 * array-parameter bulk writes, which the query builder would only obscure.
 */
import { sql, type Kysely } from "kysely";
import type { SparseVector } from "../corpus/bm25.js";
import { AppError, VectorStoreError, isAbort } from "../errors.js";
import { log } from "../log.js";
import { checkDenseQuery, checkPoints, checkSparseQuery } from "./points.js";
import { embeddingLiteral, writeSlice, type Storage } from "./pgvector-write.js";
import type { ChunkPoint, Hit, SearchOptions, VectorStore } from "./vector-store.js";

/** HNSW on pgvector's `vector` type supports at most this many dimensions. */
const HNSW_MAX_DIMENSIONS = 2000;
/** Memory for one HNSW build; pgvector takes only what the graph needs, up to this. Half of
 * PGlite's 2 GB WebAssembly heap at most, so the embedded store can always grant it. */
const HNSW_BUILD_MEMORY = "512MB";
/** Rows per write statement: bounds statement size, not correctness (one transaction per call). */
const WRITE_SLICE = 500;

interface Layout {
  storage: Storage;
  dimension: number;
  /** pgvector ≥ 0.8 can keep scanning HNSW until enough rows pass the retracted filter. */
  iterativeScan: boolean;
}

interface HitRow {
  id: string;
  pmid: string;
  score: number | string;
  title: string;
  text: string;
  quality: number;
  retracted: boolean;
  pdat_year: number | null;
  version: number;
}

const PAYLOAD_COLUMNS = sql`v.title, v.text, v.quality, v.retracted, v.pdat_year, v.version`;

export class PgVectorStore implements VectorStore {
  readonly kind = "pgvector" as const;
  #layout: Layout | undefined;

  constructor(
    private readonly db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables, not the store's schema
    private readonly hasPgvector: boolean,
  ) {}

  async ensure(dimension: number): Promise<void> {
    await this.#call("prepare its tables", () =>
      this.db.transaction().execute(async (trx) => {
        // Two processes starting at once must not race CREATE TABLE IF NOT EXISTS.
        await sql`select pg_advisory_xact_lock(hashtext('pubmed_mcp.chunk_vectors'))`.execute(trx);
        await sql`create table if not exists chunk_stats (
          singleton boolean primary key default true check (singleton),
          n bigint not null, dimension integer not null)`.execute(trx);
        // Lexical only (dimension 0): the column stays, always null.
        const embedding =
          this.hasPgvector && dimension > 0 ? sql.raw(`vector(${dimension})`) : sql.raw("real[]");
        await sql`create table if not exists chunk_vectors (
          id uuid primary key, pmid text not null, chunk_id text not null,
          embedding ${embedding}, title text not null, text text not null,
          quality real not null, retracted boolean not null, pdat_year integer,
          version integer not null)`.execute(trx);
        await sql`create index if not exists chunk_vectors_pmid on chunk_vectors (pmid)`.execute(
          trx,
        );
        await sql`create table if not exists chunk_terms (term integer not null, id uuid not null,
          weight real not null, primary key (term, id))`.execute(trx);
        await sql`create index if not exists chunk_terms_id on chunk_terms (id)`.execute(trx);
        await sql`insert into chunk_stats (n, dimension) values (0, ${dimension})
          on conflict do nothing`.execute(trx);
      }),
    );
    const layout = await this.#loadLayout();
    if (layout.dimension !== dimension) {
      throw new VectorStoreError(
        `The pgvector tables hold ${layout.dimension}-number vectors but the embedder makes ${dimension}; run \`pubmed-mcp reindex\` to rebuild them.`,
      );
    }
    if (layout.storage === "real[]" && this.hasPgvector && dimension > 0) {
      log.info("chunk vectors are stored as real[] (made without pgvector); reindex to use HNSW");
    }
  }

  async reset(dimension: number): Promise<void> {
    await this.#call("drop its tables", () =>
      this.db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtext('pubmed_mcp.chunk_vectors'))`.execute(trx);
        await sql`drop table if exists chunk_vectors, chunk_terms, chunk_stats`.execute(trx);
      }),
    );
    this.#layout = undefined;
    await this.ensure(dimension);
  }

  async upsert(points: ChunkPoint[], signal?: AbortSignal): Promise<void> {
    const layout = await this.#ready();
    const unique = checkPoints(points, layout.dimension);
    if (unique.length === 0) return;
    await this.#call("store chunk vectors", () =>
      this.db.transaction().execute(async (trx) => {
        let inserted = 0;
        for (let i = 0; i < unique.length; i += WRITE_SLICE) {
          signal?.throwIfAborted();
          inserted += await writeSlice(trx, unique.slice(i, i + WRITE_SLICE), layout.storage);
        }
        if (inserted > 0) await sql`update chunk_stats set n = n + ${inserted}`.execute(trx);
      }),
    );
  }

  async deletePmids(pmids: string[]): Promise<void> {
    if (pmids.length === 0) return;
    await this.#ready();
    // One statement: the rows, their postings and N change together or not at all.
    await this.#call("delete chunk vectors", () =>
      sql`with gone as (delete from chunk_vectors where pmid = any(${pmids}::text[]) returning id),
        postings as (delete from chunk_terms where id in (select id from gone))
        update chunk_stats set n = n - (select count(*) from gone)`.execute(this.db),
    );
  }

  async searchDense(vector: number[], limit: number, opts: SearchOptions = {}): Promise<Hit[]> {
    const layout = await this.#ready();
    if (layout.dimension === 0) {
      throw new VectorStoreError(
        "The pgvector tables are lexical only (no vectors); set an embedding provider and run `pubmed-mcp reindex`.",
      );
    }
    checkDenseQuery(vector, layout.dimension);
    const where = opts.excludeRetracted ? sql`where not v.retracted` : sql``;
    if (layout.storage === "real[]") {
      const q = embeddingLiteral(vector, "real[]");
      return this.#hits("search vectors", () =>
        sql<HitRow>`select v.id, v.pmid,
          (select sum(a::float8 * b) from unnest(v.embedding, ${q}::real[]) as t(a, b)) as score,
          ${PAYLOAD_COLUMNS} from chunk_vectors v ${where}
          order by score desc, v.id limit ${limit}`.execute(this.db),
      );
    }
    const q = embeddingLiteral(vector, "vector");
    return this.#hits("search vectors", () =>
      this.db.transaction().execute(async (trx) => {
        // Recall needs ef_search ≥ limit (pgvector caps it at 1000). No tie-break column in the
        // ORDER BY: it would stop the planner from using the HNSW index.
        // At ef_search 300 the planner prices the index above a sequential scan, which computes
        // every distance instead (20,000 chunks: 330 ms against 12 ms): no sequential scan here.
        const ef = Math.min(1000, Math.max(40, limit));
        const iterative = layout.iterativeScan
          ? sql`, set_config('hnsw.iterative_scan', 'strict_order', true)`
          : sql``;
        await sql`select set_config('hnsw.ef_search', ${String(ef)}, true),
          set_config('enable_seqscan', 'off', true) ${iterative}`.execute(trx);
        return sql<HitRow>`select v.id, v.pmid, 1 - (v.embedding <=> ${q}::vector) as score,
          ${PAYLOAD_COLUMNS} from chunk_vectors v ${where}
          order by v.embedding <=> ${q}::vector limit ${limit}`.execute(trx);
      }),
    );
  }

  async searchSparse(query: SparseVector, limit: number, opts: SearchOptions = {}): Promise<Hit[]> {
    await this.#ready();
    checkSparseQuery(query);
    if (query.indices.length === 0) return [];
    const terms = query.indices.map((t) => t | 0);
    const retracted = opts.excludeRetracted ? sql`and not v.retracted` : sql``;
    // The query terms' postings are read once (p), for their document frequencies and the
    // scores; only the best-scoring chunks are then looked up, by primary key, for their payload
    // and the retraction filter (40,000 chunks: 60 ms against 100–220 ms joining every match).
    return this.#hits("search terms", () =>
      sql<HitRow>`with q as (
          select * from unnest(${terms}::int[], ${query.values}::float8[]) as q(term, w)),
        p as materialized (select t.id, t.term, t.weight from chunk_terms t
          join q on q.term = t.term),
        df as (select term, count(*)::float8 as df from p group by term),
        qidf as (select q.term, q.w * ln((s.n - df.df + 0.5) / (df.df + 0.5) + 1) as w
          from q join df on df.term = q.term cross join chunk_stats s),
        scored as (select p.id, sum(qidf.w * p.weight) as score from p
          join qidf on qidf.term = p.term group by p.id order by score desc, p.id)
        select v.id, v.pmid, s.score, ${PAYLOAD_COLUMNS} from scored s
          join lateral (select * from chunk_vectors v where v.id = s.id ${retracted}) v on true
        order by s.score desc, s.id limit ${limit}`.execute(this.db),
    );
  }

  async count(): Promise<number> {
    await this.#ready();
    const { rows } = await this.#call("count chunk vectors", () =>
      sql<{ n: string }>`select n from chunk_stats`.execute(this.db),
    );
    return Number(rows[0]?.n ?? 0);
  }

  async health(): Promise<void> {
    await this.#loadLayout();
  }

  async finishBulkLoad(): Promise<void> {
    const layout = await this.#ready();
    if (layout.storage !== "vector") return;
    if (layout.dimension > HNSW_MAX_DIMENSIONS) {
      log.warn("vectors too wide for an HNSW index; dense search stays exact", {
        dimension: layout.dimension,
      });
      return;
    }
    await this.#call("build the HNSW index", () =>
      this.db.transaction().execute(async (trx) => {
        // pgvector keeps the graph in memory up to maintenance_work_mem and is much slower past
        // it: at the 64 MB default, 27,658 chunks took 62 s instead of 32 s (bench/README.md).
        // Raised for this transaction only, and never below the server's own setting.
        await sql`select set_config('maintenance_work_mem', ${HNSW_BUILD_MEMORY}, true)
          where pg_size_bytes(current_setting('maintenance_work_mem'))
            < pg_size_bytes(${HNSW_BUILD_MEMORY})`.execute(trx);
        await sql`create index if not exists chunk_vectors_embedding_hnsw
          on chunk_vectors using hnsw (embedding vector_cosine_ops)`.execute(trx);
      }),
    );
  }

  async close(): Promise<void> {
    // The Store owns the connection pool.
  }

  async #ready(): Promise<Layout> {
    return (this.#layout ??= await this.#loadLayout());
  }

  async #loadLayout(): Promise<Layout> {
    const { rows } = await this.#call("read its layout", () =>
      sql<{ type: string | null; stats: boolean; ext: string | null }>`select
        (select format_type(atttypid, atttypmod) from pg_attribute
          where attrelid = to_regclass('chunk_vectors') and attname = 'embedding') as type,
        to_regclass('chunk_stats') is not null as stats,
        (select extversion from pg_extension where extname = 'vector') as ext`.execute(this.db),
    );
    const row = rows[0];
    if (!row?.type || !row.stats) {
      throw new VectorStoreError(
        "The pgvector tables do not exist yet; the corpus must be opened (ensure) before use.",
      );
    }
    const stats = await this.#call("read its layout", () =>
      sql<{ dimension: number }>`select dimension from chunk_stats`.execute(this.db),
    );
    const [major = 0, minor = 0] = (row.ext ?? "0.0").split(".").map(Number);
    return (this.#layout = {
      storage: row.type.startsWith("vector") ? "vector" : "real[]",
      dimension: stats.rows[0]?.dimension ?? 0,
      iterativeScan: major > 0 || minor >= 8,
    });
  }

  async #hits(op: string, run: () => Promise<{ rows: HitRow[] }>): Promise<Hit[]> {
    const { rows } = await this.#call(op, run);
    return rows.map((r) => ({
      id: r.id,
      pmid: r.pmid,
      score: Number(r.score),
      payload: {
        title: r.title,
        text: r.text,
        quality: r.quality,
        retracted: r.retracted,
        pdatYear: r.pdat_year,
        version: r.version,
      },
    }));
  }

  /** Database failures become VectorStoreError without SQL in the message; the log keeps it. */
  async #call<T>(op: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof AppError || isAbort(err)) throw err;
      const code = (err as { code?: unknown }).code;
      log.error("pgvector store failure", {
        op,
        code,
        message: err instanceof Error ? err.message : String(err),
      });
      throw new VectorStoreError(
        `The pgvector store could not ${op}${typeof code === "string" ? ` (Postgres error ${code})` : ""}. Check that the database is reachable; the log has details.`,
        { code: typeof code === "string" ? code : null },
        { cause: err },
      );
    }
  }
}
