/**
 * A template for fresh embedded stores. PGlite's initdb (a second WASM instance beside the store's
 * own) costs about 3 s of CPU and doubles the open's peak memory; a fresh store instead unpacks a
 * template: the data directory of a store that was just made by initdb and migrated, dumped as a
 * gzipped tar (4.5 MB) by the first fresh store on the machine. The file is named by a key over
 * everything that shapes an empty data directory (PGlite's version, pgvector's when loaded, every
 * migration's name and code), so a template made by other code is never read. It is written to a
 * temporary file and renamed into place, so a reader sees a whole template or none; a damaged one
 * is ignored (the store runs initdb and replaces it).
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import type { Extensions, PGlite } from "@electric-sql/pglite";
import { log } from "../log.js";
import { migrations } from "./migrations/index.js";
import { untarDataDir } from "./pglite-untar.js";

const nodeRequire = createRequire(import.meta.url);

function packageVersion(name: string): string {
  const main = nodeRequire.resolve(name);
  // Both packages keep their entry points in dist/, under the package root.
  const pkg = JSON.parse(readFileSync(join(dirname(main), "..", "package.json"), "utf8")) as {
    name?: string;
    version?: string;
  };
  if (pkg.name !== name || !pkg.version) throw new Error(`cannot read the version of ${name}`);
  return pkg.version;
}

/** The key of the template a store with (or without) the vector extension can start from. */
export function templateKey(withVector: boolean): string {
  const hash = createHash("sha256");
  hash.update(`pglite ${packageVersion("@electric-sql/pglite")}\n`);
  if (withVector) hash.update(`pgvector ${packageVersion("@electric-sql/pglite-pgvector")}\n`);
  for (const name of Object.keys(migrations).sort()) {
    // The code, not only the name: a migration edited in place must not reuse an old template.
    hash.update(`${name}\n${String(migrations[name]?.up)}\n`);
  }
  return hash.digest("hex").slice(0, 24);
}

export function templatePath(templateDir: string, withVector: boolean): string {
  return join(templateDir, `pglite-${templateKey(withVector)}.tar.gz`);
}

/**
 * Unpacks the template into `pgdata`: true when it did, false when there is none (the common
 * first case) or it cannot be used (unreadable, damaged: logged, and `pgdata` removed again).
 * gzip's CRC and the tar's header checksums tell a damaged file.
 */
async function unpackTemplate(path: string, pgdata: string): Promise<boolean> {
  let gz: Buffer;
  try {
    gz = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") warn("cannot read the", path, err);
    return false;
  }
  try {
    await untarDataDir(gunzipSync(gz), pgdata);
    return true;
  } catch (err) {
    warn("ignoring the damaged", path, err);
    await rm(pgdata, { recursive: true, force: true });
    return false;
  }
}

/**
 * Dumps a freshly made and migrated store as the template. Failing to write it (a read-only cache
 * directory) only costs the next fresh store an initdb, so it is logged, never thrown.
 */
export async function writeTemplate(pglite: PGlite, path: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    // A checkpoint first, so a store made from the template has no WAL to replay.
    await pglite.exec("checkpoint");
    const tar = new Uint8Array(await (await pglite.dumpDataDir("none")).arrayBuffer());
    await mkdir(dirname(path), { recursive: true });
    await writeFile(tmp, gzipSync(tar));
    await rename(tmp, path);
    log.info("saved the embedded store template", { path });
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    warn("cannot save the", path, err);
  }
}

/** Present while a fresh data directory is being made; found at open, the half-made one is removed. */
const MAKING = ".pgdata-making";

/**
 * Postgres' default, 128 MB, is touched at start: about 115 MB of an open store's ~400 MB. The
 * data files sit in the OS page cache anyway (PGlite reads them through node:fs), so a smaller
 * pool costs copies, not disk reads: a 10,000-record sync (default configuration) ran at 408 and
 * 422 records/s with 32 MB against 401 and 413 with 128 MB, alternated in one session.
 */
const SHARED_BUFFERS = "32MB";

/**
 * Starts PGlite on `dataDir`/pgdata, making it from the template in `templateDir` (when given and
 * usable) or by initdb when it does not exist yet. `saveTemplate` is set when initdb ran and a
 * template should be saved: the caller runs it once the migrations are applied, before any other
 * write.
 */
export async function startPglite(opts: {
  dataDir: string;
  extensions: Extensions;
  withVector: boolean;
  templateDir: string | undefined;
}): Promise<{ pglite: PGlite; saveTemplate?: () => Promise<void> }> {
  const { PGlite } = await import("@electric-sql/pglite");
  const pgdata = join(opts.dataDir, "pgdata");
  const start = () =>
    PGlite.create({
      dataDir: pgdata,
      extensions: opts.extensions,
      startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${SHARED_BUFFERS}`],
    });
  const making = join(opts.dataDir, MAKING);
  // Neither initdb nor unpacking is atomic: a process that died during either leaves a directory
  // Postgres could take for a whole one. Without PG_VERSION it is no database either.
  if (!existsSync(making) && existsSync(join(pgdata, "PG_VERSION")))
    return { pglite: await start() };
  await writeFile(making, "");
  await rm(pgdata, { recursive: true, force: true });
  const path = opts.templateDir ? keyedPath(opts.templateDir, opts.withVector) : undefined;
  let pglite: PGlite | undefined;
  if (path && (await unpackTemplate(path, pgdata))) {
    pglite = await start().catch(async (err: unknown) => {
      warn("cannot start from the", path, err);
      await rm(pgdata, { recursive: true, force: true });
      return undefined;
    });
  }
  const fromTemplate = pglite !== undefined;
  pglite ??= await start(); // no data directory: PGlite runs initdb
  await rm(making, { force: true });
  log.info("created the embedded store", { dataDir: opts.dataDir, fromTemplate });
  if (fromTemplate || !path) return { pglite };
  const made = pglite;
  return { pglite, saveTemplate: () => writeTemplate(made, path) };
}

/** A template the key cannot be computed for (an unusual install) is no template. */
function keyedPath(templateDir: string, withVector: boolean): string | undefined {
  try {
    return templatePath(templateDir, withVector);
  } catch (err) {
    warn("no key for the", templateDir, err);
    return undefined;
  }
}

function warn(what: string, path: string, err: unknown): void {
  log.warn(`${what} embedded store template (a fresh store runs initdb without it)`, {
    path,
    message: err instanceof Error ? err.message : String(err),
  });
}
