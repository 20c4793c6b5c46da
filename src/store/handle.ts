/**
 * The store handle (opened by ./db.ts) as every module of the store sees it: kept apart from
 * db.ts so that the modules db.ts itself uses at open (./abandoned.ts, ./locks.ts) can name it
 * without importing db.ts back.
 */
import type { CompiledQuery, Kysely } from "kysely";
import type { Database } from "./schema.js";

export interface Store {
  db: Kysely<Database>;
  kind: "postgres" | "pglite";
  /** The pgvector extension is loaded in this database (always on PGlite unless disabled). */
  hasPgvector: boolean;
  /**
   * PGlite only (one process holds the data directory, so every writer is in it): the commits of
   * the chunk tables counted in memory by the pgvector adapters on this store, so a search knows
   * whether its index is behind without a round trip (vectors/pgvector-lexical.ts).
   */
  localWrites?: { gen: number; resets: number };
  /** A cheap round trip, for readiness probes. Throws StoreError when the database is unusable. */
  ping(): Promise<void>;
  /**
   * Runs a hot read (search's payload read) that the store may prepare once per connection:
   * on PGlite a named statement, parsed and planned once (about a third of a short read's cost
   * there, planning's file-size lookups included); on a server an ordinary query, as poolers in
   * transaction mode need. One name, one text. Errors are the driver's, as db's are.
   */
  read: PreparedRead;
  /**
   * Housekeeping after bulk writes, which a server's background workers would otherwise do and
   * PGlite (one process, no autovacuum, no checkpointer) never does by itself. `checkpoint` (PGlite
   * only) lets Postgres recycle its write-ahead log, which else grows by gigabytes in a large sync;
   * `analyze` refreshes the planner's statistics, which nothing else would ever gather there, and
   * on PGlite vacuums the tables with many dead rows (autovacuum's threshold).
   */
  maintain(what: Maintenance): Promise<void>;
  /**
   * maintain(what) once the caller's current work is done (it starts after the current turn of
   * the event loop, one at a time), for housekeeping nobody needs to wait for: a sync answers
   * once its records are committed. The promise settles when it is done and never rejects (a
   * failure is logged). close() waits for what was asked before it; nothing asked after it runs.
   */
  maintainLater(what: Maintenance): Promise<void>;
  /** Settles once the maintenance asked for so far (maintainLater) is done. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A hot read that the store may prepare once per connection (Store.read): one name, one text.
 */
export type PreparedRead = <R>(name: string, query: CompiledQuery<R>) => Promise<R[]>;

export interface Maintenance {
  checkpoint?: boolean;
  analyze?: boolean;
}
