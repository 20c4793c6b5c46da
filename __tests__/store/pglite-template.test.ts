/**
 * Fresh embedded stores made from the template (src/store/pglite-template.ts), through openStore
 * and real PGlite: the same database as initdb makes, keyed, replaced when damaged, safe to race.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  truncate,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { addLogListener, type LogEntry } from "../../src/log.js";
import { openStore, type Store } from "../../src/store/db.js";
import { getDocument, upsertDocuments } from "../../src/store/docs.js";
import { MANIFEST, templatePath } from "../../src/store/pglite-template.js";
import { doc } from "./fixtures.js";

let root: string;
let entries: LogEntry[] = [];
let stopListening: () => void;
const open: Store[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pmcp-template-test-"));
  stopListening = addLogListener({ level: "info", onEntry: (e) => entries.push(e) });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  entries = [];
});
afterAll(async () => {
  stopListening();
  await rm(root, { recursive: true, force: true });
});

let n = 0;
async function fresh(templateDir: string | undefined, vectorExtension = false): Promise<Store> {
  const store = await openStore({
    dataDir: join(root, `store-${++n}`),
    templateDir,
    vectorExtension,
  });
  open.push(store);
  return store;
}

/** Whether each store opened since the last test was made from the template, in order. */
const fromTemplate = () =>
  entries
    .filter((e) => e.message === "created the embedded store")
    .map((e) => e.fields.fromTemplate);

async function manifestOf(
  templateDir: string,
): Promise<({ dir: string } | { file: string; size: number })[]> {
  return JSON.parse(await readFile(join(templatePath(templateDir, false), MANIFEST), "utf8"));
}

async function schema(store: Store): Promise<unknown> {
  const columns = await sql<object>`select table_name, column_name, data_type, is_nullable,
      column_default from information_schema.columns where table_schema = 'public'
      order by table_name, column_name`.execute(store.db);
  const indexes = await sql<object>`select indexname, indexdef from pg_indexes
      where schemaname = 'public' order by indexname`.execute(store.db);
  const migrations = await sql<object>`select name from pubmed_mcp_migration order by name`.execute(
    store.db,
  );
  const extensions = await sql<object>`select extname from pg_extension order by extname`.execute(
    store.db,
  );
  return {
    columns: columns.rows,
    indexes: indexes.rows,
    migrations: migrations.rows,
    extensions: extensions.rows,
  };
}

describe("fresh embedded stores from the template", () => {
  it("makes the same database as initdb, which then works", async () => {
    const dir = join(root, "same");
    const byInitdb = await fresh(dir);
    expect(existsSync(templatePath(dir, false))).toBe(true);
    const byTemplate = await fresh(dir);
    expect(fromTemplate()).toEqual([false, true]);

    const expected = await schema(byInitdb);
    expect((expected as { migrations: unknown[] }).migrations.length).toBeGreaterThan(0);
    expect(await schema(byTemplate)).toEqual(expected);
    await upsertDocuments(byTemplate.db, [doc("42")]);
    expect((await getDocument(byTemplate.db, "42"))?.title).toBe("Title 42");
    expect(await getDocument(byInitdb.db, "42")).toBeNull();
  });

  it("never uses a template made under another key", async () => {
    const dir = join(root, "keys");
    await fresh(dir, false); // saves the key without the vector extension
    const withVector = await fresh(dir, true);
    expect(fromTemplate()).toEqual([false, false]);
    const { rows } = await sql<{ extname: string }>`select extname from pg_extension`.execute(
      withVector.db,
    );
    expect(rows.map((r) => r.extname)).toContain("vector");
    expect((await readdir(dir)).sort()).toEqual(
      [templatePath(dir, false), templatePath(dir, true)]
        .map((p) => p.slice(dir.length + 1))
        .sort(),
    );
  });

  it("keeps the template as the files themselves, listed with their sizes", async () => {
    const dir = join(root, "listed");
    // A gzipped template of an earlier release: nothing reads it, the new save removes it.
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "pglite-0123456789abcdef01234567.tar.gz"), "old");
    await fresh(dir);
    expect(await readdir(dir)).toEqual([templatePath(dir, false).slice(dir.length + 1)]);
    const manifest = await manifestOf(dir);
    const files = manifest.filter((e) => "file" in e) as { file: string; size: number }[];
    expect(files.map((f) => f.file)).toContain("PG_VERSION");
    expect(manifest.map((e) => ("dir" in e ? e.dir : ""))).toContain("base");
    for (const f of files.slice(0, 50)) {
      expect((await stat(join(templatePath(dir, false), f.file))).size).toBe(f.size);
    }
    expect(files.reduce((sum, f) => sum + f.size, 0)).toBeGreaterThan(1 << 20);
  });

  describe("falls back to initdb and replaces a damaged template", () => {
    let good: string;
    beforeAll(async () => {
      good = join(root, "good");
      const store = await openStore({
        dataDir: join(root, "good-store"),
        templateDir: good,
        vectorExtension: false,
      });
      await store.close();
      entries = [];
    });

    it.each<[string, (template: string) => Promise<void>]>([
      ["no manifest: a save that never finished", (t) => rm(join(t, MANIFEST))],
      ["a manifest that is not JSON", (t) => writeFile(join(t, MANIFEST), "{ not json")],
      ["a file shorter than listed", (t) => truncate(join(t, "global", "pg_control"), 10)],
      ["a listed file missing", (t) => rm(join(t, "PG_VERSION"))],
    ])("%s", async (_, damage) => {
      const dir = join(root, `damaged-${++n}`);
      await cp(good, dir, { recursive: true });
      await damage(templatePath(dir, false));
      const store = await fresh(dir);
      expect(fromTemplate()).toEqual([false]);
      expect(entries.some((e) => e.level === "warn" && /damaged/.test(e.message))).toBe(true);
      await upsertDocuments(store.db, [doc("7")]);
      expect((await getDocument(store.db, "7"))?.pmid).toBe("7");

      // Replaced by a whole one, nothing set aside left behind, and used by the next store.
      expect(await readdir(dir)).toEqual([templatePath(dir, false).slice(dir.length + 1)]);
      const paths = async (d: string) =>
        (await manifestOf(d)).map((e) => ("dir" in e ? e.dir : e.file));
      expect(await paths(dir)).toEqual(await paths(good));
      await fresh(dir);
      expect(fromTemplate()).toEqual([false, true]);
    });
  });

  it("opens two fresh stores at once, racing to save the template", async () => {
    const dir = join(root, "race");
    const [a, b] = await Promise.all([fresh(dir), fresh(dir)]);
    await upsertDocuments(a!.db, [doc("1")]);
    await upsertDocuments(b!.db, [doc("2")]);
    expect((await getDocument(a!.db, "1"))?.pmid).toBe("1");
    expect((await getDocument(b!.db, "2"))?.pmid).toBe("2");
    // One whole template, no temporary file left behind.
    expect(await readdir(dir)).toEqual([templatePath(dir, false).slice(dir.length + 1)]);
    const [c, d] = await Promise.all([fresh(dir), fresh(dir)]);
    expect(fromTemplate().slice(2)).toEqual([true, true]);
    expect(await schema(c!)).toEqual(await schema(d!));
  });

  it("remakes a data directory whose making was interrupted", async () => {
    const dir = join(root, "interrupted");
    await fresh(dir);
    const dataDir = join(root, "half-made");
    // What a process killed while unpacking leaves: the marker and part of the files.
    await mkdir(join(dataDir, "pgdata"), { recursive: true });
    await writeFile(join(dataDir, "pgdata", "PG_VERSION"), "17\n");
    await writeFile(join(dataDir, "pgdata", "half-written"), "");
    await writeFile(join(dataDir, ".pgdata-making"), "");
    const store = await openStore({ dataDir, templateDir: dir, vectorExtension: false });
    open.push(store);
    expect(fromTemplate()).toEqual([false, true]);
    expect(existsSync(join(dataDir, ".pgdata-making"))).toBe(false);
    expect(existsSync(join(dataDir, "pgdata", "half-written"))).toBe(false);
    await upsertDocuments(store.db, [doc("9")]);
    expect((await getDocument(store.db, "9"))?.pmid).toBe("9");
  });
});
