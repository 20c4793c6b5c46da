/**
 * Test stores on both backends. PGlite runs in a fresh temporary directory; Postgres gets a
 * throw-away database on the server at TEST_DATABASE_URL (default: local trust-auth postgres).
 * When that server is unreachable the postgres suites are skipped with a printed note.
 */
import { describe } from "@jest/globals";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { openStore, type Store } from "../../src/store/db.js";
import { STORE_TABLES } from "../../src/store/schema.js";
import { REPO_DIR } from "./shared.js";

export const BACKENDS = ["pglite", "postgres"] as const;
export type Backend = (typeof BACKENDS)[number];

export const ADMIN_URL =
  process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const postgresProblem = await probe();

/** `describe` for one backend; an unreachable Postgres is skipped with a printed note. */
export function describeBackend(kind: Backend, name: string, fn: () => void): void {
  const title = `${name} [${kind}]`;
  if (kind === "postgres" && postgresProblem) {
    process.stderr.write(
      `note: skipping "${title}": cannot reach ${redact(ADMIN_URL)} (${postgresProblem})\n`,
    );
    describe.skip(title, fn);
  } else {
    describe(title, fn);
  }
}

/** `describe.each(BACKENDS)` with the same skipping rule. */
export function describeEachBackend(name: string, fn: (kind: Backend) => void): void {
  for (const kind of BACKENDS) describeBackend(kind, name, () => fn(kind));
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//…@");
}

export interface TestStore {
  store: Store;
  /** The PGlite data directory (a scratch directory for postgres). */
  dataDir: string;
  /** For postgres: the URL of the throw-away database. */
  databaseUrl: string | undefined;
  cleanup(): Promise<void>;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * A migrated, closed PGlite data directory, built once per migration set and PGlite version and
 * copied for each suite: initdb costs seconds, a copy a fraction of one. Workers race to build
 * it; the atomic rename of a complete directory decides, losers use the winner's.
 */
async function pgliteTemplate(): Promise<string> {
  const migrations = join(REPO_DIR, "src", "store", "migrations");
  const hash = createHash("sha256");
  for (const f of (await readdir(migrations)).sort()) {
    hash.update(f).update(await readFile(join(migrations, f)));
  }
  hash.update(
    await readFile(join(REPO_DIR, "node_modules", "@electric-sql", "pglite", "package.json")),
  );
  const dir = join(tmpdir(), `pmcp-pglite-template-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(join(dir, "ready"))) return dir;
  const build = await mkdtemp(join(tmpdir(), "pmcp-pglite-build-"));
  const store = await openStore({ dataDir: build });
  await store.close();
  await writeFile(join(build, "ready"), "");
  await rename(build, dir).catch(() => rm(build, { recursive: true, force: true }));
  return dir;
}

/**
 * A store on a throw-away database. `fresh` skips the PGlite template so the open runs initdb
 * and every migration, as on a first start.
 */
export async function openTestStore(
  kind: Backend,
  opts: { fresh?: boolean } = {},
): Promise<TestStore> {
  const dataDir = await mkdtemp(join(tmpdir(), "pmcp-store-"));
  if (kind === "pglite") {
    if (!opts.fresh) {
      await cp(join(await pgliteTemplate(), "pgdata"), join(dataDir, "pgdata"), {
        recursive: true,
      });
    }
    const store = await openStore({ dataDir });
    return {
      store,
      dataDir,
      databaseUrl: undefined,
      async cleanup() {
        await store.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `pmcp_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const store = await openStore({ databaseUrl, dataDir });
  return {
    store,
    dataDir,
    databaseUrl,
    async cleanup() {
      await store.close();
      await adminQuery(`drop database if exists ${name} with (force)`);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Empties every table this layer owns, between tests sharing one store. */
export async function resetStore(store: Store): Promise<void> {
  await sql`truncate ${sql.join(STORE_TABLES.map((t) => sql.table(t)))} restart identity cascade`.execute(
    store.db,
  );
}

/**
 * Environment for a whole server on one backend: a fresh PGlite data directory (from the
 * template), or a throw-away Postgres database. `cleanup` drops it.
 */
export async function backendEnv(
  kind: Backend,
): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  const t = await openTestStore(kind);
  await t.store.close();
  return {
    env: {
      PUBMED_MCP_DATA_DIR: t.dataDir,
      ...(t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : {}),
    },
    cleanup: () => t.cleanup(),
  };
}
