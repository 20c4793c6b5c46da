/**
 * Throw-away databases for the benchmarks: PGlite data directories copied from a template built
 * once per run (initdb and migrations cost seconds; a copy a fraction of one), and PostgreSQL
 * databases named pmcp_bench_<random> on the local server, dropped WITH (FORCE) afterwards.
 * Everything made here is registered for `cleanupAll`, which the runner calls on exit or signal.
 */
import { randomBytes } from "node:crypto";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openStore } from "../../src/store/db.js";

export const ADMIN_URL =
  process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const cleanups = new Set<() => Promise<void>>();

function track(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  const once = () => {
    cleanups.delete(once);
    done ??= fn().catch(() => undefined);
    return done;
  };
  cleanups.add(once);
  return once;
}

/** Registers `fn` to run once, at the latest in `cleanupAll` (exit, Ctrl-C); returns it. */
export function registerCleanup(fn: () => Promise<void>): () => Promise<void> {
  return track(fn);
}

export async function cleanupAll(): Promise<void> {
  await Promise.all([...cleanups].map((c) => c()));
}

let template: Promise<string> | undefined;

async function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-bench-template-"));
    track(() => rm(dir, { recursive: true, force: true }));
    const store = await openStore({ dataDir: dir });
    await store.close();
    return dir;
  })();
  return template;
}

export interface ScratchDir {
  dataDir: string;
  cleanup(): Promise<void>;
}

/** A migrated PGlite data directory (with pgvector) of its own. */
export async function pgliteDir(): Promise<ScratchDir> {
  const source = await pgliteTemplate();
  const dataDir = await mkdtemp(join(tmpdir(), "pmcp-bench-"));
  const cleanup = track(() => rm(dataDir, { recursive: true, force: true }));
  await cp(join(source, "pgdata"), join(dataDir, "pgdata"), { recursive: true });
  return { dataDir, cleanup };
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The server's version string, or why it cannot be reached. */
export async function probePostgres(): Promise<{ version: string } | { problem: string }> {
  try {
    const { rows } = await admin((c) => c.query<{ v: string }>("select version() as v"));
    return { version: (rows[0]?.v ?? "PostgreSQL").split(" on ")[0] ?? "PostgreSQL" };
  } catch (err) {
    return { problem: err instanceof Error ? err.message : String(err) };
  }
}

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function postgresDatabase(): Promise<ScratchDatabase> {
  const name = `pmcp_bench_${randomBytes(6).toString("hex")}`;
  await admin((c) => c.query(`create database ${name}`));
  const drop = track(() =>
    admin(async (c) => void (await c.query(`drop database if exists ${name} with (force)`))),
  );
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop };
}
