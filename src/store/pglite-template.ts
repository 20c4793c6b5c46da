/**
 * A template for fresh embedded stores. PGlite's initdb (a second WASM instance beside the store's
 * own) costs about 3 s of CPU and doubles the open's peak memory; a fresh store instead copies a
 * template: the data directory of a store that was just made by initdb and migrated (about 40 MB,
 * 1,000 files), saved by the first fresh store on the machine. It is kept as a plain directory
 * because copying files is the kernel's work: 0.2–0.4 s of system time, where unpacking the same
 * files from a gzipped tar in JavaScript cost 0.45–0.65 s. The directory is named by a key over
 * everything that shapes an empty data directory (PGlite's version, pgvector's when loaded, every
 * migration's name and code), so a template made by other code is never read. It is made under a
 * temporary name, its manifest (every directory, every file with its size) written last, and
 * renamed into place, so a reader sees a whole template or none; one that does not match its
 * manifest is set aside (the store runs initdb and saves a new one).
 */
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { setFlagsFromString } from "node:v8";
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
  return join(templateDir, `pglite-${templateKey(withVector)}`);
}

/** The template's list of what it holds, written last: without it a directory is no template. */
export const MANIFEST = "template-manifest.json";

/** A directory, or a file with its size in bytes; paths relative to the data directory. */
type Entry = { dir: string } | { file: string; size: number };

/**
 * Copies the template into `pgdata`: true when it did, false when there is none (the common
 * first case) or it cannot be used (unreadable, or not what its manifest says: logged, set aside,
 * and `pgdata` removed again).
 */
async function copyTemplate(path: string, pgdata: string): Promise<boolean> {
  let manifest: string;
  try {
    manifest = await readFile(join(path, MANIFEST), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") warn("cannot read the", path, err);
    // A directory without its manifest was never finished, or was damaged.
    else if (existsSync(path)) await setAside(path, new Error(`${MANIFEST} is missing`));
    return false;
  }
  try {
    const entries = parseManifest(manifest);
    // Synchronous on purpose: the kernel copies the bytes either way, and one call per file costs
    // less CPU than libuv's thread pool (40 MB: about 0.3 s of system time, against 0.4–0.55 s
    // with asynchronous copies). A fresh store opens in the corpus worker, off the MCP thread.
    mkdirSync(pgdata, { recursive: true, mode: 0o700 });
    for (const e of entries) {
      if ("dir" in e) mkdirSync(join(pgdata, e.dir), { mode: 0o700 });
      else {
        const from = join(path, e.file);
        const actual = statSync(from).size;
        if (actual !== e.size) throw new Error(`${e.file} holds ${actual} bytes, not ${e.size}`);
        copyFileSync(from, join(pgdata, e.file));
      }
    }
    return true;
  } catch (err) {
    await rm(pgdata, { recursive: true, force: true });
    // A full disk is no fault of the template's.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOSPC" || code === "EDQUOT") warn("cannot copy the", path, err);
    else await setAside(path, err);
    return false;
  }
}

function parseManifest(text: string): Entry[] {
  const entries = JSON.parse(text) as unknown;
  if (!Array.isArray(entries)) throw new Error(`${MANIFEST} is not a list`);
  const safe = (p: unknown): p is string =>
    typeof p === "string" && p.split("/").every((s) => s !== "" && s !== "." && s !== "..");
  for (const e of entries as Record<string, unknown>[]) {
    const ok =
      ("dir" in e && safe(e.dir)) ||
      ("file" in e && safe(e.file) && Number.isSafeInteger(e.size) && Number(e.size) >= 0);
    if (!ok) throw new Error(`${MANIFEST} holds a bad entry ${JSON.stringify(e)}`);
  }
  const checked = entries as Entry[];
  if (!checked.some((e) => "file" in e && e.file === "PG_VERSION")) {
    throw new Error(`${MANIFEST} lists no PG_VERSION: not a data directory`);
  }
  return checked;
}

/** Moves a damaged template out of the way (so a new one can take its name) and removes it. */
async function setAside(path: string, err: unknown): Promise<void> {
  warn("ignoring the damaged", path, err);
  const aside = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.damaged`;
  await rename(path, aside).catch(() => undefined);
  await rm(aside, { recursive: true, force: true }).catch(() => undefined);
}

/**
 * Saves a freshly made and migrated store as the template. Failing to save it (a read-only cache
 * directory) only costs the next fresh store an initdb, so it is logged, never thrown; losing the
 * race to another process saving the same template is no failure at all.
 */
export async function writeTemplate(pglite: PGlite, path: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    // A checkpoint first, so a store made from the template has no WAL to replay.
    await pglite.exec("checkpoint");
    const tar = new Uint8Array(await (await pglite.dumpDataDir("none")).arrayBuffer());
    await untarDataDir(tar, tmp);
    const entries: Entry[] = [];
    for (const d of await readdir(tmp, { recursive: true, withFileTypes: true })) {
      const rel = relative(tmp, join(d.parentPath, d.name)).split("\\").join("/");
      if (d.isDirectory()) entries.push({ dir: rel });
      else entries.push({ file: rel, size: (await stat(join(tmp, rel))).size });
    }
    // Parents before children (a path sorts before every path it prefixes), whatever order the
    // directory listing came in.
    const key = (e: Entry) => ("dir" in e ? e.dir : e.file);
    entries.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    await writeFile(join(tmp, MANIFEST), JSON.stringify(entries));
    try {
      await rename(tmp, path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw err;
      await rm(tmp, { recursive: true, force: true }); // another process saved it first
      return;
    }
    log.info("saved the embedded store template", { path });
    await removeOldTemplates(dirname(path));
  } catch (err) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    warn("cannot save the", path, err);
  }
}

/** Templates of earlier releases were gzipped tars; nothing reads them any more. */
async function removeOldTemplates(templateDir: string): Promise<void> {
  for (const name of await readdir(templateDir).catch(() => [])) {
    if (/^pglite-[0-9a-f]+\.tar\.gz$/.test(name)) {
      await rm(join(templateDir, name), { force: true }).catch(() => undefined);
    }
  }
}

/** Present while a fresh data directory is being made; found at open, the half-made one is removed. */
const MAKING = ".pgdata-making";

/**
 * Postgres' default, 128 MB, is touched at start: about 115 MB of an open store's ~400 MB. The
 * data files sit in the OS page cache anyway (PGlite reads them through node:fs), so a smaller
 * pool costs copies, not disk reads: a 10,000-record sync (default configuration) ran at 408 and
 * 422 records/s with 32 MB against 401 and 413 with 128 MB, alternated in one session. 16 MB
 * (issue 45, the server's memory) took 20 MB more off an open store (WebAssembly memory touched
 * at start: 27 MB against 47) and off a 5,000-record sync's peak RSS (473–530 MB against
 * 532–556, 4 runs each) at the same CPU (5.5–6.0 s against 5.7–5.8); 400 searches of that corpus
 * took 0.99 s of CPU against 0.94 (medians of 10 runs, each run's spread wider than that). The
 * pool is WebAssembly memory, which never shrinks.
 */
const SHARED_BUFFERS = "16MB";

/**
 * V8 compiles PGlite's WebAssembly (9 MB) at each start, then recompiles its hot functions with
 * TurboFan in the background, by default on as many tasks as it has worker threads. Each task's
 * thread takes the compiler's memory from a malloc arena of its own, which keeps it once freed:
 * PGlite opened, queried and an index built, those arenas held 40–75 MB, 24–26 MB with one task
 * (47 in one run of 6); the process's RSS 194–217 MB against 211–260, its peak 225–248 against
 * 241–277, its CPU 3.06 s against 2.97 (medians of 6). A process-wide V8 setting, set before a
 * store starts: only WebAssembly reads it, and PGlite is the server's only WebAssembly.
 * __tests__/store/db.test.ts checks that V8 still knows the flag (it ignores one it does not).
 */
export const WASM_COMPILE_FLAG = "--wasm-num-compilation-tasks=1";

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
  setFlagsFromString(WASM_COMPILE_FLAG);
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
  if (path && (await copyTemplate(path, pgdata))) {
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
