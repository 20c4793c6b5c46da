/**
 * Opens the metadata store: Postgres when DATABASE_URL is set, otherwise embedded PGlite in the
 * data directory (held under an exclusive lock file). Both are reached through node-postgres and
 * Kysely's PostgresDialect, so every repository runs the same SQL on both. Migrations run at open.
 */
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { Kysely, Migrator, PostgresDialect, sql } from "kysely";
import type { Extensions } from "@electric-sql/pglite";
import pg from "pg";
import { StoreError } from "../errors.js";
import { log } from "../log.js";
import { markAbandonedJobs } from "./abandoned.js";
import { acquireDirLock } from "./file-lock.js";
import { migrationProvider } from "./migrations/index.js";
import { encodeBeforeBind, pipelined } from "./pglite-pipeline.js";
import { startPglite } from "./pglite-template.js";
import { YieldAfterStatement, afterStatement } from "./yield-plugin.js";
import type { Database } from "./schema.js";
import type { Maintenance, PreparedRead, Store } from "./handle.js";
import { storeCall, toStoreError } from "./store-errors.js";

export type { Maintenance, PreparedRead, Store } from "./handle.js";

/** node-postgres's own encoding of a parameter (what its Bind applies to each value). */
const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as {
  prepareValue: (value: unknown) => unknown;
};

/**
 * Store.read on one session (PGlite's pool of one client): named statements, prepared once.
 * Kysely cannot name a statement, so these go to the pool directly, past YieldAfterStatement,
 * and yield as it does: without, a loop of searches on one thread settled only microtasks and
 * starved every timer and socket.
 */
export function namedReads(pool: pg.Pool): PreparedRead {
  return async (name, query) => {
    // Encoded before node-postgres sees them: when a value cannot be, it would have sent the
    // Parse already and, after closing the statement, still take it for prepared.
    const values = query.parameters.map((v) => prepareValue(v));
    // Not pool.query: after a failed statement it ends the client, and PGlite's clients share
    // one connection object, whose next client then reads the old one's remaining replies.
    const client = await pool.connect();
    try {
      const { rows } = await client.query({ name, text: query.sql, values });
      return rows;
    } finally {
      client.release();
      await afterStatement();
    }
  };
}

export interface OpenStoreOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Load/detect pgvector (default true). False skips it, e.g. when vectors live in Qdrant. */
  vectorExtension?: boolean;
  /**
   * Where a fresh embedded store finds (or the first one saves) its template, instead of running
   * initdb (./pglite-template.ts). Unset: every fresh store runs initdb.
   */
  templateDir?: string;
}

/** Kept apart from any other application's Kysely migrations in a shared database. */
const MIGRATION_TABLE = "pubmed_mcp_migration";
const MIGRATION_LOCK_TABLE = "pubmed_mcp_migration_lock";

/**
 * The columns the store's queries filter, join and sort on, per large table (the pgvector
 * adapter's included). ANALYZE of the wide columns (record, texts, postings) cost a sync's end
 * about a quarter of a second per 5,000 records and no plan uses their statistics.
 */
const ANALYZED: Record<string, string[]> = {
  documents: ["pmid", "edat", "lr", "is_retracted", "version", "indexed_version", "updated_at"],
  chunks: ["id", "pmid", "chunk_id", "ord"],
  chunk_vectors: ["id", "pmid", "gen", "version"],
  chunk_tombstones: ["gen", "id"],
};

/**
 * Refreshes the planner's statistics of this store's large tables (never a whole database's). With
 * `vacuum` (PGlite: no autovacuum there), a table with more dead row versions than autovacuum's
 * default threshold (50 + 20 % of its live rows) is vacuumed in the same pass, so the space of the
 * rows a sync replaced (every document's first version, once it is marked indexed; a revised
 * record's old chunks) is reused by the next writes instead of growing the files.
 */
async function analyze(db: Kysely<Database>, vacuum: boolean): Promise<void> {
  // The one backend's pending counts reach the statistics once it is idle after this statement.
  if (vacuum) await sql`select pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<{ name: string; dead: boolean }>`select c.relname as name,
      coalesce(s.n_dead_tup > 50 + 0.2 * s.n_live_tup, false) as dead
    from pg_class c left join pg_stat_user_tables s on s.relid = c.oid
    where c.relname = any(${Object.keys(ANALYZED)}::text[]) and c.relkind = 'r'
      and c.relnamespace = to_regnamespace(current_schema())`.execute(db);
  for (const { name, dead } of rows) {
    const command = vacuum && dead ? sql`vacuum (analyze)` : sql`analyze`;
    const columns = sql.join((ANALYZED[name] ?? []).map((c) => sql.ref(c)));
    await sql`${command} ${sql.table(name)} (${columns})`.execute(db);
  }
}

export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  const store = await (opts.databaseUrl ? openPostgres(opts.databaseUrl, opts) : openPglite(opts));
  // A sync that died with its process leaves no job `running` after the next start.
  await markAbandonedJobs(store).catch((err: unknown) => {
    log.warn("could not mark abandoned sync jobs", {
      message: err instanceof Error ? err.message : String(err),
    });
  });
  return store;
}

async function openPostgres(url: string, opts: OpenStoreOptions): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000 });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on("error", (err) => log.warn("postgres idle client error", { message: err.message }));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await storeCall("connecting to the database in DATABASE_URL", () => sql`select 1`.execute(db));
    await migrate(db);
    const hasPgvector = opts.vectorExtension === false ? false : await ensurePgvector(db);
    const read: PreparedRead = async (_name, query) => (await db.executeQuery(query)).rows;
    return makeStore(db, "postgres", hasPgvector, read, async () => {});
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw err;
  }
}

/**
 * pgvector is optional on a server Postgres (the CI server has none): use it when installed or
 * installable, otherwise report false so the caller can pick another vector store.
 */
async function ensurePgvector(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await storeCall("checking for the pgvector extension", () =>
    sql<{
      installed: string | null;
    }>`select installed_version as installed from pg_available_extensions where name = 'vector'`.execute(
      db,
    ),
  );
  const row = rows[0];
  if (!row) return false;
  if (row.installed) return true;
  try {
    await sql`create extension if not exists vector`.execute(db);
    return true;
  } catch (err) {
    log.warn("pgvector is available but could not be created; continuing without it", {
      message: err instanceof Error ? err.message : String(err),
    });
    return false;
  }
}

async function openPglite(opts: OpenStoreOptions): Promise<Store> {
  await mkdir(opts.dataDir, { recursive: true }).catch((err: unknown) => {
    throw new StoreError(
      `Cannot create the embedded store directory ${opts.dataDir} (${(err as NodeJS.ErrnoException).code ?? "error"}). ` +
        "Point PUBMED_MCP_DATA_DIR at a writable directory, or set DATABASE_URL.",
    );
  });
  const lock = await acquireDirLock(opts.dataDir);
  let closeDb: (() => Promise<void>) | undefined;
  try {
    const withVector = opts.vectorExtension !== false;
    // Imported lazily: the WASM build is only needed without DATABASE_URL.
    const { createPgConfig } = await import("@electric-sql/pglite/node-postgres");
    const extensions: Extensions = withVector
      ? { vector: (await import("@electric-sql/pglite-pgvector")).vector }
      : {};
    const { pglite, saveTemplate } = await startPglite({
      dataDir: opts.dataDir,
      extensions,
      withVector,
      templateDir: opts.templateDir,
    });
    // One PGlite instance is one session: a pool of exactly one client that is never ended
    // (ending it would end the shared connection object).
    const pool = new pg.Pool({
      ...encodeBeforeBind(createPgConfig(pipelined(pglite))),
      max: 1,
      idleTimeoutMillis: 0,
    });
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      plugins: [new YieldAfterStatement()],
    });
    closeDb = async () => {
      await db.destroy().catch(() => undefined);
      await pglite.close().catch(() => undefined);
    };
    if (withVector) await sql`create extension if not exists vector`.execute(db);
    await migrate(db);
    await saveTemplate?.();
    return makeStore(db, "pglite", withVector, namedReads(pool), async () => {
      await closeDb?.();
      await lock.release();
    });
  } catch (err) {
    await closeDb?.();
    await lock.release();
    throw toStoreError(err, `opening the embedded store at ${opts.dataDir}`);
  }
}

async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const { error, results } = await migrator.migrateToLatest();
  for (const r of results ?? []) {
    if (r.status === "Success") log.info("applied store migration", { migration: r.migrationName });
  }
  if (error) throw toStoreError(error, "applying the database migrations");
}

function makeStore(
  db: Kysely<Database>,
  kind: Store["kind"],
  hasPgvector: boolean,
  read: PreparedRead,
  onClose: () => Promise<void>,
): Store {
  let closed: Promise<void> | undefined;
  /** The maintenance asked for with maintainLater, in order; never rejects. */
  let later: Promise<void> = Promise.resolve();
  const maintain = (what: Maintenance): Promise<void> =>
    storeCall("maintaining the database", async () => {
      // Before the checkpoint, so the log a vacuum writes is recycled by it.
      if (what.analyze) await analyze(db, kind === "pglite");
      // CHECKPOINT needs privileges an application role may lack; a server checkpoints anyway.
      if (what.checkpoint && kind === "pglite") await sql`checkpoint`.execute(db);
    });
  return {
    db,
    kind,
    hasPgvector,
    ...(kind === "pglite" ? { localWrites: { gen: 0, resets: 0 } } : {}),
    ping: () =>
      storeCall("checking the connection", async () => void (await sql`select 1`.execute(db))),
    read,
    maintain,
    maintainLater: (what) => {
      if (closed) return later;
      later = later
        .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
        .then(() => maintain(what))
        .catch((err: unknown) => {
          log.warn("store maintenance failed", {
            message: err instanceof Error ? err.message : String(err),
          });
        });
      return later;
    },
    idle: () => later,
    close: () => {
      closed ??= (async () => {
        await later;
        if (kind === "postgres") await db.destroy();
        await onClose();
      })();
      return closed;
    },
  };
}
