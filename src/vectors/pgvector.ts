/**
 * Chunk vectors in the metadata Postgres (PGlite or a server), in tables this adapter owns
 * (pgvector-schema.ts). `embedding` is vector(d) when the pgvector extension is loaded, with
 * cosine distance and an HNSW index built by finishBulkLoad(). Without it (the CI PostgreSQL 15
 * has none) it is real[] holding unit vectors, searched exactly by brute force in SQL — correct,
 * O(N·d) per query, meant for tests and small corpora. Lexical only (dimension 0) it stays null.
 *
 * BM25 is computed the way Qdrant does for `modifier: "idf"` (src/corpus/bm25.ts), in memory
 * (lexical-index.ts) over the postings each row carries, kept current across processes by the
 * generation protocol of pgvector-lexical.ts; only the payload of the best hits is read back, by
 * primary key. N is kept in chunk_stats, updated in the same transaction as every write.
 * The SQL is written out with Kysely's `sql` tag: it is mostly array-parameter bulk writes,
 * which the query builder would only obscure.
 */
import { sql, type Kysely } from "kysely";
import type { SparseVector } from "../corpus/bm25.js";
import { AppError, VectorStoreError, isAbort } from "../errors.js";
import { log } from "../log.js";
import { checkDenseQuery, checkPoints, checkSparseQuery } from "./points.js";
import { LexicalMirror, TOMBSTONE_GENERATIONS, type LocalWrites } from "./pgvector-lexical.js";
import { createTables, dropTables } from "./pgvector-schema.js";
import { PAYLOAD_COLUMNS, lexicalRow, toHits, type HitRow } from "./pgvector-rows.js";
import { embeddingLiteral, writeSlice, type Storage } from "./pgvector-write.js";
import type { ChunkPayload, ChunkPoint, Hit, SearchOptions, VectorStore } from "./vector-store.js";

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

export class PgVectorStore implements VectorStore {
  readonly kind = "pgvector" as const;
  #layout: Layout | undefined;
  readonly #lexical: LexicalMirror;

  constructor(
    private readonly db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables, not the store's schema
    private readonly hasPgvector: boolean,
    /** The store's commit count where this process is its one writer (PGlite): see Store. */
    localWrites?: LocalWrites,
  ) {
    this.#lexical = new LexicalMirror(db, localWrites);
  }

  /** Bytes of the in-memory BM25 index's typed arrays, once loaded (diagnostics, bench). */
  get lexicalIndexBytes(): number | undefined {
    return this.#lexical.loaded?.bytes;
  }

  async ensure(dimension: number): Promise<void> {
    await this.#call("prepare its tables", () =>
      this.db.transaction().execute(async (trx) => {
        // Two processes starting at once must not race CREATE TABLE IF NOT EXISTS.
        await sql`select pg_advisory_xact_lock(hashtext('pubmed_mcp.chunk_vectors'))`.execute(trx);
        await createTables(trx, dimension, this.hasPgvector);
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
        await dropTables(trx);
      }),
    );
    this.#layout = undefined;
    this.#lexical.reset();
    await this.ensure(dimension);
  }

  async upsert(points: ChunkPoint[], signal?: AbortSignal): Promise<void> {
    const layout = await this.#ready();
    const unique = checkPoints(points, layout.dimension);
    if (unique.length === 0) return;
    const gen = await this.#call("store chunk vectors", () =>
      this.db.transaction().execute(async (trx) => {
        const gen = await LexicalMirror.nextGeneration(trx);
        let inserted = 0;
        for (let i = 0; i < unique.length; i += WRITE_SLICE) {
          signal?.throwIfAborted();
          const slice = unique.slice(i, i + WRITE_SLICE);
          inserted += await writeSlice(trx, slice, layout.storage, gen);
        }
        if (inserted > 0) await sql`update chunk_stats set n = n + ${inserted}`.execute(trx);
        return gen;
      }),
    );
    this.#lexical.committed(gen, unique.map(lexicalRow), []);
  }

  async deletePmids(pmids: string[]): Promise<void> {
    if (pmids.length === 0) return;
    await this.#ready();
    // A first sync deletes nothing: one indexed read instead of a generation's four round trips.
    // Finding no row is the same as a delete that changed nothing, committed at that read.
    if (!(await this.#call("delete chunk vectors", () => anyRowOf(this.db, pmids)))) return;
    // The rows, their tombstones and N change together or not at all.
    const { gen, ids } = await this.#call("delete chunk vectors", () =>
      this.db.transaction().execute(async (trx) => {
        const gen = await LexicalMirror.nextGeneration(trx);
        const { rows } = await sql<{ id: string }>`with gone as (
            delete from chunk_vectors where pmid = any(${pmids}::text[]) returning id)
          insert into chunk_tombstones (gen, id) select ${gen}::bigint, id from gone
          returning id`.execute(trx);
        const pruned = gen - TOMBSTONE_GENERATIONS;
        if (rows.length > 0) {
          await sql`update chunk_stats set n = n - ${rows.length}`.execute(trx);
        }
        if (pruned > 0 && gen % 100 === 0) {
          await sql`delete from chunk_tombstones where gen <= ${pruned}`.execute(trx);
          await sql`update chunk_stats set pruned_gen = ${pruned}`.execute(trx);
        }
        return { gen, ids: rows.map((r) => r.id) };
      }),
    );
    this.#lexical.committed(gen, [], ids);
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
    const hits = await this.#call("search terms", () =>
      this.#lexical.search(query, limit, opts.excludeRetracted === true),
    );
    if (opts.withPayload === false || hits.length === 0) return hits;
    const payloads = await this.payloads(hits.map((h) => h.id));
    return hits.map((h) => ({
      id: h.id,
      pmid: h.pmid,
      score: h.score,
      payload: payloads.get(h.id),
    }));
  }

  /** The payload of these chunks, by primary key. */
  async payloads(ids: string[]): Promise<Map<string, ChunkPayload>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.#call("read chunk payloads", () =>
      sql<HitRow>`select v.id, v.pmid, 0 as score, ${PAYLOAD_COLUMNS} from chunk_vectors v
        where v.id = any(${ids}::uuid[])`.execute(this.db),
    );
    return new Map(toHits(rows).map((h) => [h.id, h.payload!]));
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
    return toHits(rows);
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

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- only its own tables
async function anyRowOf(db: Kysely<any>, pmids: string[]): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`select exists (select 1 from chunk_vectors
    where pmid = any(${pmids}::text[])) as found`.execute(db);
  return rows[0]?.found === true;
}
