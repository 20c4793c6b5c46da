/**
 * Chunk vectors in the metadata Postgres (PGlite or a server), in tables this adapter owns
 * (pgvector-schema.ts). `embedding` is vector(d) when the pgvector extension is loaded, else
 * real[] holding unit vectors (the CI PostgreSQL 15 has no pgvector); lexical only (dimension 0)
 * it stays null. The rows are the source of truth; both legs are answered in memory:
 * - dense: an exact scan of the vectors loaded from the rows (USearch's exactSearch; dense-index.ts,
 *   pgvector-dense.ts). No pgvector index is built: searching HNSW inside WASM Postgres was slower,
 *   and its build was a large share of a sync with vectors (`npm run bench -- --only search`,
 *   `search.*.dense`);
 * - BM25, computed the way Qdrant does for `modifier: "idf"` (src/retrieval/bm25.ts), over the
 *   postings each row carries (lexical-index.ts, pgvector-lexical.ts).
 * Both are kept current across processes by the generation protocol of table-mirror.ts; only the
 * payload of the best hits is read back, by primary key. N is kept in chunk_stats, updated in the
 * same transaction as every write.
 * The SQL is written out with Kysely's `sql` tag: it is mostly array-parameter bulk writes,
 * which the query builder would only obscure.
 */
import { sql, type Kysely } from "kysely";
import type { SparseVector } from "../../retrieval/bm25.js";
import type { PaperRank } from "../../retrieval/rank.js";
import { AppError, VectorStoreError, isAbort } from "../../errors.js";
import type { PreparedRead } from "../../store/db.js";
import { log } from "../../log.js";
import { checkDenseQuery, checkPoints, checkSparseQuery } from "../points.js";
import { DenseMirror, denseRow } from "./dense.js";
import { LexicalThread } from "../memory/lexical-thread.js";
import { LexicalMirror } from "./lexical.js";
import { createTables, dropSupersededChunkRows, dropTables } from "./schema.js";
import { PAYLOAD_COLUMNS, lexicalRow, toHits, type HitRow } from "./rows.js";
import { writeSlice, type Storage } from "./write.js";
import { ReadBatcher } from "./read-batcher.js";
import { TOMBSTONE_GENERATIONS, type LocalWrites } from "./table-mirror.js";
import type {
  ChunkPayload,
  ChunkPoint,
  Hit,
  SearchOptions,
  TransactionWriter,
  VectorStore,
} from "../vector-store.js";

/** Rows per write statement: bounds statement size, not correctness (one transaction per call). */
const WRITE_SLICE = 500;

interface Layout {
  storage: Storage;
  dimension: number;
}

export interface PgVectorOptions {
  /** Keep the BM25 index in a thread of its own (lexical-thread.ts), as the corpus worker does. */
  lexicalThread?: boolean;
  /** The store's prepared reads (Store.read); without, the payload read is an ordinary query. */
  read?: PreparedRead;
}

export class PgVectorStore implements VectorStore {
  readonly kind = "pgvector" as const;
  readonly keepsChunks = true;
  #layout: Layout | undefined;
  readonly #lexical: LexicalMirror;
  readonly #dense: DenseMirror;
  readonly #read: PreparedRead;
  readonly #payloads = new ReadBatcher((ids) => this.#readPayloads(ids));

  constructor(
    private readonly db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables, not the store's schema
    private readonly hasPgvector: boolean,
    /** The store's commit count where this process is its one writer (PGlite): see Store. */
    localWrites?: LocalWrites,
    opts: PgVectorOptions = {},
  ) {
    const thread = opts.lexicalThread ? new LexicalThread() : undefined;
    this.#lexical = new LexicalMirror(db, localWrites, thread);
    // The dense leg is searched after #ready(), which reads the layout.
    this.#dense = new DenseMirror(db, () => this.#layout?.storage ?? "real[]", localWrites);
    this.#read = opts.read ?? (async (_name, query) => (await db.executeQuery(query)).rows);
  }

  /** Chunks in the in-memory dense index, once loaded (diagnostics, tests). */
  get denseIndexSize(): number | undefined {
    return this.#dense.loaded?.size;
  }

  /** Bytes of the in-memory BM25 index's typed arrays, once loaded here (diagnostics, bench). */
  get lexicalIndexBytes(): number | undefined {
    return this.#lexical.bytes;
  }

  async ensure(dimension: number): Promise<void> {
    await this.#call("prepare its tables", () =>
      this.db.transaction().execute(async (trx) => {
        // Two processes starting at once must not race CREATE TABLE IF NOT EXISTS.
        await sql`select pg_advisory_xact_lock(hashtext('pubmed_mcp.chunk_vectors'))`.execute(trx);
        await createTables(trx, dimension, this.hasPgvector);
        // Stores made before the dense leg moved into memory have one; nothing reads it now, and
        // every write would keep paying to maintain it.
        await sql`drop index if exists chunk_vectors_embedding_hnsw`.execute(trx);
        await dropSupersededChunkRows(trx);
      }),
    );
    const layout = await this.#loadLayout();
    if (layout.dimension !== dimension) {
      throw new VectorStoreError(
        `The pgvector tables hold ${layout.dimension}-number vectors but the embedder makes ${dimension}; run \`pubmed-mcp reindex\` to rebuild them.`,
      );
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
    this.#dense.reset();
    await this.ensure(dimension);
  }

  async upsert(points: ChunkPoint[], signal?: AbortSignal): Promise<void> {
    const layout = await this.#ready();
    const unique = checkPoints(points, layout.dimension);
    if (unique.length === 0) return;
    const gen = await this.#call("store chunk vectors", () =>
      this.db.transaction().execute(async (trx) => {
        const gen = await LexicalMirror.nextGeneration(trx);
        await this.#write(trx, unique, layout, gen, signal);
        return gen;
      }),
    );
    this.#committed(gen, unique, []);
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
        return { gen, ids: await this.#delete(trx, pmids, gen) };
      }),
    );
    this.#committed(gen, [], ids);
  }

  /** The tables are in the store's database: documents, chunks and vectors commit together. */
  writerIn(db: unknown): TransactionWriter | undefined {
    if (db !== this.db) return undefined;
    return async (trx, pmids, points) => {
      // Read in the caller's transaction: PGlite's one connection is busy with it until commit.
      const layout = this.#layout ?? (await this.#loadLayout(trx));
      const unique = checkPoints(points, layout.dimension);
      // One generation for the delete and the writes: a chunk id may be in both (a revised
      // record keeps its chunk ids), and the mirrors apply a generation's removals first.
      const { gen, ids } = await this.#call("store chunk vectors", async () => {
        const gen = await LexicalMirror.nextGeneration(trx);
        const ids = pmids.length > 0 ? await this.#delete(trx, pmids, gen) : [];
        await this.#write(trx, unique, layout, gen);
        return { gen, ids };
      });
      return () => this.#committed(gen, unique, ids);
    };
  }

  /** Writes these points at generation `gen` in `trx`, and N with them. */
  async #write(
    trx: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables
    points: ChunkPoint[],
    layout: Layout,
    gen: number,
    signal?: AbortSignal,
  ): Promise<void> {
    let inserted = 0;
    for (let i = 0; i < points.length; i += WRITE_SLICE) {
      signal?.throwIfAborted();
      inserted += await writeSlice(trx, points.slice(i, i + WRITE_SLICE), layout.storage, gen);
    }
    if (inserted > 0) await sql`update chunk_stats set n = n + ${inserted}`.execute(trx);
  }

  /** Deletes every chunk of `pmids` at generation `gen` in `trx`, tombstoned; returns their ids. */
  async #delete(
    trx: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables
    pmids: string[],
    gen: number,
  ): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`with gone as (
        delete from chunk_vectors where pmid = any(${pmids}::text[]) returning id)
      insert into chunk_tombstones (gen, id) select ${gen}::bigint, id from gone
      returning id`.execute(trx);
    if (rows.length > 0) await sql`update chunk_stats set n = n - ${rows.length}`.execute(trx);
    const pruned = gen - TOMBSTONE_GENERATIONS;
    if (pruned > 0 && gen % 100 === 0) {
      await sql`delete from chunk_tombstones where gen <= ${pruned}`.execute(trx);
      await sql`update chunk_stats set pruned_gen = ${pruned}`.execute(trx);
    }
    return rows.map((r) => r.id);
  }

  /** After this process committed generation `gen`: the in-memory indexes take its changes. */
  #committed(gen: number, written: ChunkPoint[], removedIds: string[]): void {
    this.#lexical.committed(gen, () => written.map(lexicalRow), removedIds);
    this.#dense.committed(gen, () => written.map(denseRow), removedIds);
  }

  async searchDense(vector: number[], limit: number, opts: SearchOptions = {}): Promise<Hit[]> {
    const layout = await this.#ready();
    if (layout.dimension === 0) {
      throw new VectorStoreError(
        "The pgvector tables are lexical only (no vectors); set an embedding provider and run `pubmed-mcp reindex`.",
      );
    }
    checkDenseQuery(vector, layout.dimension);
    const hits = await this.#call("search vectors", () =>
      this.#dense.search(vector, limit, opts.excludeRetracted === true),
    );
    return this.#withPayloads(hits, opts);
  }

  async searchSparse(query: SparseVector, limit: number, opts: SearchOptions = {}): Promise<Hit[]> {
    await this.#ready();
    checkSparseQuery(query);
    if (query.indices.length === 0) return [];
    const hits = await this.#call("search terms", () =>
      this.#lexical.search(query, limit, opts.excludeRetracted === true),
    );
    return this.#withPayloads(hits, opts);
  }

  async rankSparse(query: SparseVector, limit: number, rank: PaperRank, opts: SearchOptions = {}) {
    await this.#ready();
    checkSparseQuery(query);
    if (query.indices.length === 0) return [];
    return this.#call("search terms", () =>
      this.#lexical.rank(query, limit, opts.excludeRetracted === true, rank),
    );
  }

  /** In-memory hits carry `quality`; the payload is read by primary key unless left out. */
  async #withPayloads(hits: Hit[], opts: SearchOptions): Promise<Hit[]> {
    if (opts.withPayload === false || hits.length === 0) return hits;
    const payloads = await this.payloads(hits.map((h) => h.id));
    return hits.map((h) => ({
      id: h.id,
      pmid: h.pmid,
      score: h.score,
      payload: payloads.get(h.id),
    }));
  }

  /**
   * The payload of these chunks, by primary key (with other chunks' when concurrent searches'
   * reads went together: ./read-batcher.ts).
   */
  async payloads(ids: string[]): Promise<Map<string, ChunkPayload>> {
    if (ids.length === 0) return new Map();
    return this.#payloads.get(ids);
  }

  async #readPayloads(ids: string[]): Promise<Map<string, ChunkPayload>> {
    // The same text every time (one parameter): the store may keep it prepared.
    const query = sql<HitRow>`select v.id, v.pmid, 0 as score, ${PAYLOAD_COLUMNS}
      from chunk_vectors v where v.id = any(${ids}::uuid[])`.compile(this.db);
    const rows = await this.#call("read chunk payloads", () => this.#read("chunk_payloads", query));
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

  async close(): Promise<void> {
    // The Store owns the connection pool.
    await this.#lexical.close();
  }

  async #ready(): Promise<Layout> {
    return (this.#layout ??= await this.#loadLayout());
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- only its own tables
  async #loadLayout(db: Kysely<any> = this.db): Promise<Layout> {
    const { rows } = await this.#call("read its layout", () =>
      sql<{ type: string | null; stats: boolean }>`select
        (select format_type(atttypid, atttypmod) from pg_attribute
          where attrelid = to_regclass('chunk_vectors') and attname = 'embedding') as type,
        to_regclass('chunk_stats') is not null as stats`.execute(db),
    );
    const row = rows[0];
    if (!row?.type || !row.stats) {
      throw new VectorStoreError(
        "The pgvector tables do not exist yet; the corpus must be opened (ensure) before use.",
      );
    }
    const stats = await this.#call("read its layout", () =>
      sql<{ dimension: number }>`select dimension from chunk_stats`.execute(db),
    );
    return (this.#layout = {
      storage: row.type.startsWith("vector") ? "vector" : "real[]",
      dimension: stats.rows[0]?.dimension ?? 0,
    });
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
