/**
 * An in-memory index of the pgvector adapter's chunk rows, kept equal to the tables across
 * processes. The BM25 leg (pgvector-lexical.ts) and the dense leg (pgvector-dense.ts) each keep one.
 *
 * Protocol (what makes replicas sharing one PostgreSQL consistent):
 * - every write transaction first bumps `chunk_stats.gen` (`update … returning gen`), which row-locks
 *   the one stats row until commit: writers are serialised, so generations commit in order and a
 *   reader that sees generation G sees every write ≤ G and none > G;
 * - a written chunk row carries its transaction's `gen`; a deleted one leaves a tombstone
 *   (`chunk_tombstones(gen, id)`), kept for TOMBSTONE_GENERATIONS generations;
 * - before each query the mirror reads `chunk_stats` (one primary-key row); when `gen` moved it
 *   reads, in one repeatable-read snapshot, the rows with a newer `gen` and the newer tombstones,
 *   and applies them. When tombstones it needs were pruned, or the tables were recreated (`epoch`
 *   changed: reindex), it reloads everything.
 * Guarantee: a query sees every write committed before it started, from any process — the same
 * read-committed view SQL scoring gave. A process's own writes are applied in place when no
 * other writer came between (no re-read).
 *
 * On an exclusive store (PGlite: one process holds the data directory) every writer is in this
 * process, so the adapters of the store count its commits in one shared `LocalWrites` and a query
 * that is not behind them skips the `chunk_stats` read.
 */
import { sql, type Kysely, type RawBuilder } from "kysely";

type Db = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables

/** Tombstones older than this many generations are pruned; a replica further behind reloads. */
export const TOMBSTONE_GENERATIONS = 10_000;
/** Rows per read while loading (bounds one reply). */
const LOAD_PAGE = 5_000;

export interface Stats {
  gen: number;
  epoch: number;
  pruned: number;
  /** Numbers per dense vector (0: lexical only). */
  dimension: number;
  /** Chunk rows (chunk_stats.n): how many a full load reads. */
  rows: number;
}

/** What was committed to an exclusive store by all its adapters (Store.localWrites). */
export interface LocalWrites {
  gen: number;
  /** Table recreations (reset), which change the epoch. */
  resets: number;
}

/** How one kind of index is read from chunk_vectors and kept current. */
export interface MirrorSource<R extends { id: string }, I> {
  /** The select list of one chunk_vectors row (must include `id`). */
  columns: RawBuilder<unknown>;
  /** One selected row as the index takes it, for the rows applied after a load. */
  toRow(raw: Record<string, unknown>): R;
  /**
   * Starts a full load at these stats: pages of selected rows are added as read (a source may
   * take them apart itself rather than through toRow), then the index is finished.
   */
  load(stats: Stats): Promise<{ add(raw: readonly Record<string, unknown>[]): void; finish(): I }>;
  apply(index: I, rows: readonly R[], removedIds: readonly string[]): void;
}

export class TableMirror<R extends { id: string }, I> {
  #index: I | undefined;
  #at: Stats | undefined;
  #refreshing: Promise<void> | undefined;
  readonly #local: LocalWrites | undefined;
  /** `#local.resets` when `#at` was read. */
  #resetsSeen = -1;

  constructor(
    private readonly db: Db,
    private readonly source: MirrorSource<R, I>,
    /** Given only where this process is the one writer of the tables (see the header). */
    local?: LocalWrites,
  ) {
    this.#local = local;
  }

  /** Bumps the generation inside the caller's write transaction; returns it. */
  static async nextGeneration(trx: Db): Promise<number> {
    const { rows } = await sql<{
      gen: string;
    }>`update chunk_stats set gen = gen + 1 returning gen`.execute(trx);
    return Number(rows[0]?.gen);
  }

  /** The index as of the latest committed write (refreshing it first when it is behind). */
  async current(): Promise<I> {
    const local = this.#local;
    if (local && this.#index && this.#at && !this.#refreshing) {
      if (this.#resetsSeen === local.resets && this.#at.gen >= local.gen) return this.#index;
    }
    if (local) this.#resetsSeen = local.resets;
    const stats = await readStats(this.db);
    while (!this.#index || !this.#at || this.#behind(stats)) {
      this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
      await this.#refreshing;
    }
    return this.#index;
  }

  /**
   * After this process committed generation `gen`: apply its rows in place when the index was at
   * gen − 1 (no other writer between); otherwise the next query re-reads.
   */
  committed(gen: number, rows: () => readonly R[], removedIds: readonly string[]): void {
    if (this.#local) this.#local.gen = Math.max(this.#local.gen, gen);
    if (!this.#index || !this.#at || this.#refreshing || this.#at.gen !== gen - 1) return;
    this.source.apply(this.#index, rows(), removedIds);
    this.#at = { ...this.#at, gen };
  }

  /** Forgets the index (the tables were dropped). */
  reset(): void {
    if (this.#local) this.#local.resets++;
    this.#index = undefined;
    this.#at = undefined;
  }

  /**
   * Drops the index (it was lost, the tables were not touched): the next query loads it. While a
   * refresh runs it is left alone; the query after that refresh drops it.
   */
  protected forget(): void {
    if (this.#refreshing) return;
    this.#index = undefined;
    this.#at = undefined;
  }

  get loaded(): I | undefined {
    return this.#index;
  }

  #behind(stats: Stats): boolean {
    return this.#at!.epoch !== stats.epoch || this.#at!.gen < stats.gen;
  }

  async #refresh(): Promise<void> {
    const at = this.#at;
    const { columns } = this.source;
    await this.db
      .transaction()
      .setIsolationLevel("repeatable read")
      .execute(async (trx) => {
        const stats = await readStats(trx);
        if (at && at.epoch === stats.epoch && at.gen >= stats.pruned) {
          if (at.gen >= stats.gen) return;
          const { rows } = await sql<Record<string, unknown>>`select ${columns}
            from chunk_vectors where gen > ${at.gen}`.execute(trx);
          const gone = await sql<{ id: string }>`select id from chunk_tombstones
            where gen > ${at.gen}`.execute(trx);
          // A process's own in-place update may have run meanwhile; the snapshot is newer or equal.
          if (this.#at !== at) return;
          this.source.apply(
            this.#index!,
            rows.map((r) => this.source.toRow(r)),
            gone.rows.map((r) => r.id),
          );
          this.#at = stats;
          return;
        }
        // A cursor reads the table in its physical order, a page at a time, in this snapshot.
        const builder = await this.source.load(stats);
        await sql`declare mirror_load no scroll cursor for
          select ${columns} from chunk_vectors`.execute(trx);
        for (;;) {
          const { rows } = await sql<
            Record<string, unknown>
          >`fetch ${sql.raw(String(LOAD_PAGE))} from mirror_load`.execute(trx);
          builder.add(rows);
          if (rows.length < LOAD_PAGE) break;
        }
        await sql`close mirror_load`.execute(trx);
        this.#index = builder.finish();
        this.#at = stats;
      });
  }
}

async function readStats(db: Db): Promise<Stats> {
  const { rows } = await sql<{
    gen: string;
    epoch: number;
    pruned: string;
    dimension: number;
    rows: string;
  }>`select gen, epoch, pruned_gen as pruned, dimension, n as rows from chunk_stats`.execute(db);
  const r = rows[0];
  return {
    gen: Number(r?.gen ?? 0),
    epoch: Number(r?.epoch ?? 0),
    pruned: Number(r?.pruned ?? 0),
    dimension: Number(r?.dimension ?? 0),
    rows: Number(r?.rows ?? 0),
  };
}
