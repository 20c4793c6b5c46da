import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { sql } from "kysely";
import { StoreError } from "../../src/errors.js";
import { log } from "../../src/log.js";
import { openStore, type Store } from "../../src/store/db.js";
import { getDocument, markIndexed, upsertDocuments } from "../../src/store/docs.js";
import { LOCK_FILE } from "../../src/store/file-lock.js";
import { migrations } from "../../src/store/migrations/index.js";
import { WASM_COMPILE_FLAG } from "../../src/store/pglite-template.js";
import { setMeta, getMeta } from "../../src/store/meta.js";
import {
  describeBackend,
  describeEachBackend,
  openTestStore,
  type TestStore,
} from "../helpers/db.js";
import { REPO_DIR } from "../helpers/shared.js";
import { doc } from "./fixtures.js";

const TABLES = [
  "checkpoint_audit",
  "checkpoints",
  "chunks",
  "corpus_meta",
  "documents",
  "exports",
  "query_documents",
  "review_adds",
  "review_decisions",
  "review_hits",
  "review_keys",
  "review_records",
  "reviews",
  "sync_jobs",
  "sync_progress",
];

describeEachBackend("opening the store", (kind) => {
  let t: TestStore;
  let store: Store;
  beforeAll(async () => {
    t = await openTestStore(kind, { fresh: true });
    store = t.store;
  });
  afterAll(() => t.cleanup());

  it("runs the migrations: every table, with the contract's column types", async () => {
    const { rows } = await sql<{ table_name: string; column_name: string; data_type: string }>`
      select table_name, column_name, data_type from information_schema.columns
      where table_schema = 'public'`.execute(store.db);
    const tables = [...new Set(rows.map((r) => r.table_name))].filter(
      (n) => !n.startsWith("pubmed_mcp_migration"),
    );
    expect(tables.sort()).toEqual(TABLES);
    const type = (table: string, column: string) =>
      rows.find((r) => r.table_name === table && r.column_name === column)?.data_type;
    expect(type("documents", "pub_types")).toBe("jsonb");
    // Compressed JSON since 2026_11_26_002_record_bytes: nothing queries inside it.
    expect(type("documents", "record")).toBe("bytea");
    expect(type("documents", "edat")).toBe("timestamp with time zone");
    expect(type("documents", "quality_total")).toBe("smallint");
    expect(type("documents", "indexed_version")).toBe("integer");
    expect(type("chunks", "id")).toBe("uuid");
    expect(type("checkpoint_audit", "id")).toBe("bigint");
    expect(type("sync_progress", "state")).toBe("jsonb");
    expect(type("checkpoints", "last_mdat")).toBe("timestamp with time zone");
    expect(type("checkpoint_audit", "new_mdat")).toBe("timestamp with time zone");
    expect(type("review_records", "authors")).toBe("jsonb");
    expect(type("review_decisions", "decided_at")).toBe("timestamp with time zone");
    expect(type("exports", "body")).toBe("text");
    const applied = await sql<{ name: string }>`select name from pubmed_mcp_migration`.execute(
      store.db,
    );
    // Every migration listed, in order (the list grows; the names are checked where defined).
    expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrations).sort());
    expect(applied.rows[0]?.name).toBe("2026_11_21_001_init");
  });

  it("keeps a record stored as jsonb, then as text, through the moves to compressed bytes", async () => {
    const d = doc("6", { title: 'Ünïcode “quotes” \\ and "escapes"' });
    d.record = { ...d.record, title: d.title };
    await upsertDocuments(store.db, [d]);
    const toText = migrations["2026_11_26_001_record_text"];
    const toBytes = migrations["2026_11_26_002_record_bytes"];
    const type = async () =>
      (
        await sql<{ t: string }>`select pg_typeof(record)::text as t from documents
          where pmid = '6'`.execute(store.db)
      ).rows[0]?.t;
    const firstByte = async () =>
      (
        await sql<{ b: number }>`select get_byte(record, 0) as b from documents
          where pmid = '6'`.execute(store.db)
      ).rows[0]?.b;
    expect(await type()).toBe("bytea");
    expect(await firstByte()).toBe(1); // compressed
    await toBytes?.down?.(store.db);
    await toText?.down?.(store.db);
    expect(await type()).toBe("jsonb");
    await toText?.up(store.db);
    expect(await type()).toBe("text");
    await toBytes?.up(store.db);
    // A row from before: its JSON's bytes as they were, read as they are.
    expect(await firstByte()).toBe("{".charCodeAt(0));
    expect((await getDocument(store.db, "6"))?.record).toEqual(d.record);
    // Written again, it is compressed; both kinds read back the same record.
    await upsertDocuments(store.db, [{ ...d, lr: "2030-01-01T00:00:00.000Z" }]);
    expect(await firstByte()).toBe(1);
    expect((await getDocument(store.db, "6"))?.record).toEqual(d.record);
  });

  it("deletes a document's chunks with the document, by trigger since 2026_11_27_001 (by foreign key before)", async () => {
    const fk = migrations["2026_11_27_001_chunks_fk"];
    const foreignKeys = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from pg_constraint
          where conrelid = 'chunks'::regclass and contype = 'f'`.execute(store.db)
      ).rows[0]?.n;
    const chunkCount = async () =>
      Number(
        (await sql<{ n: string }>`select count(*) as n from chunks`.execute(store.db)).rows[0]?.n,
      );
    const deleteWithChunk = async () => {
      await upsertDocuments(store.db, [doc("5"), doc("8")]);
      await sql`insert into chunks (id, pmid, chunk_id, ord, text, token_count, version)
        values ('00000000-0000-5000-8000-000000000001', '5', 'title', 0, 'x', 1, 1),
          ('00000000-0000-5000-8000-000000000002', '8', 'title', 0, 'y', 1, 1)`.execute(store.db);
      await sql`delete from documents where pmid = '5'`.execute(store.db);
      expect(await chunkCount()).toBe(1); // document 8's
      await sql`delete from documents where pmid = '8'`.execute(store.db);
      expect(await chunkCount()).toBe(0);
    };
    expect(await foreignKeys()).toBe(0);
    await deleteWithChunk();
    await fk?.down?.(store.db);
    expect(await foreignKeys()).toBe(1);
    await deleteWithChunk();
    await fk?.up(store.db);
    expect(await foreignKeys()).toBe(0);
    await deleteWithChunk();
  });

  it("reports pgvector truthfully", async () => {
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from pg_extension where extname = 'vector'`.execute(store.db);
    expect(store.hasPgvector).toBe(Number(rows[0]?.n) === 1);
    if (kind === "pglite") expect(store.hasPgvector).toBe(true);
  });

  it("answers ping while open", async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it("runs read() as a named statement on PGlite, reused with new values; plainly on a server", async () => {
    const query = (k: number) => sql<{ n: number }>`select ${k}::int + 1 as n`.compile(store.db);
    expect(await store.read("test_read", query(1))).toEqual([{ n: 2 }]);
    expect(await store.read("test_read", query(41))).toEqual([{ n: 42 }]);
    const { rows } = await sql<{ name: string }>`
      select name from pg_prepared_statements where name = 'test_read'`.execute(store.db);
    // PGlite is one session: the statement is there. A server's pool prepares nothing (poolers).
    expect(rows.length).toBe(kind === "pglite" ? 1 : 0);
  });

  it("fails a statement whose parameter cannot be encoded, and the session goes on", async () => {
    const unencodable = {
      toPostgres: () => {
        throw new Error("cannot encode this value");
      },
    };
    const echo = (v: unknown) => sql<{ t: string }>`select ${v}::text as t`;
    await expect(echo(unencodable).execute(store.db)).rejects.toThrow("cannot encode this value");
    expect((await echo("after").execute(store.db)).rows).toEqual([{ t: "after" }]);
    // In a transaction: it rolls back (the write before the failure is gone), and the session
    // is not left in an aborted transaction.
    await expect(
      store.db.transaction().execute(async (trx) => {
        await setMeta(trx, "encode_test", "written");
        await echo(unencodable).execute(trx);
      }),
    ).rejects.toThrow("cannot encode this value");
    expect(await getMeta(store.db, "encode_test")).toBeUndefined();
    // read(): the named statement was never prepared, so its name still works.
    const read = (v: unknown) => store.read("test_encode", echo(v).compile(store.db));
    await expect(read(unencodable)).rejects.toThrow("cannot encode this value");
    expect(await read("named")).toEqual([{ t: "named" }]);
    expect(await read("again")).toEqual([{ t: "again" }]);
  });

  it("vacuums rows a sync replaced on PGlite at maintenance; a server's autovacuum does it there", async () => {
    const counts = async () => {
      const { rows } = await sql<{ vacuums: number; analyzes: number }>`select
          vacuum_count::int as vacuums, analyze_count::int as analyzes
        from pg_stat_user_tables where relid = 'documents'::regclass`.execute(store.db);
      return rows[0];
    };
    const pmids = Array.from({ length: 300 }, (_, i) => `90${i}`);
    await upsertDocuments(
      store.db,
      pmids.map((p) => doc(p)),
    );
    // As a sync does once a batch is indexed: a second version of each row, the first one dead.
    expect(
      await markIndexed(
        store.db,
        pmids.map((pmid) => ({ pmid, version: 1 })),
      ),
    ).toBe(300);
    const before = await counts();
    await store.maintain({ analyze: true });
    const after = await counts();
    expect(after?.analyzes).toBe((before?.analyzes ?? 0) + 1);
    expect(after?.vacuums).toBe((before?.vacuums ?? 0) + (kind === "pglite" ? 1 : 0));
    if (kind === "pglite") {
      const { rows } = await sql<{ dead: number }>`select n_dead_tup::int as dead
        from pg_stat_user_tables where relid = 'documents'::regclass`.execute(store.db);
      expect(rows[0]?.dead).toBe(0);
      // Nothing dead since: analysed only.
      await store.maintain({ analyze: true });
      expect((await counts())?.vacuums).toBe(after?.vacuums);
    }
  });
});

describeEachBackend("maintenance after the answer", (kind) => {
  it("maintainLater runs after the caller's turn and resolves when done; close waits for it", async () => {
    const t = await openTestStore(kind, { fresh: true });
    const warn = jest.spyOn(log, "warn");
    const analyses = async () => {
      const { rows } = await sql<{ n: number }>`select analyze_count::int as n
        from pg_stat_user_tables where relid = 'documents'::regclass`.execute(t.store.db);
      return rows[0]?.n ?? NaN;
    };
    try {
      await upsertDocuments(t.store.db, [doc("9100")]);
      const before = await analyses();
      let done = false;
      const later = t.store.maintainLater({ analyze: true, checkpoint: true });
      void later.then(() => (done = true));
      await Promise.resolve();
      expect(done).toBe(false); // not in the caller's turn
      await later;
      expect(await analyses()).toBe(before + 1);
      await t.store.idle();
      let second = false;
      void t.store.maintainLater({ analyze: true }).then(() => (second = true));
      await t.store.close();
      expect(second).toBe(true); // close waited for what was asked before it
      // Asked after close: nothing runs (a closed store would fail), and it still resolves.
      await expect(t.store.maintainLater({ analyze: true })).resolves.toBeUndefined();
      expect(warn.mock.calls.map((c) => c[0])).not.toContain("store maintenance failed");
    } finally {
      warn.mockRestore();
      await t.cleanup();
    }
  });
});

describeBackend("postgres", "reopening a server database", () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore("postgres");
  });
  afterAll(() => t.cleanup());

  it("re-runs no migration and keeps the data; closing twice is harmless", async () => {
    await setMeta(t.store.db, "k", { v: 1 });
    const again = await openStore({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
    expect(again.kind).toBe("postgres");
    expect(await getMeta(again.db, "k")).toEqual({ v: 1 });
    await again.close();
    await again.close();
    await expect(again.ping()).rejects.toBeInstanceOf(Error);
  });
});

/** Runs openStore in a separate node process; returns what it printed. */
async function openInChild(
  dataDir: string,
): Promise<{ ok: boolean; name?: string; code?: string; message?: string }> {
  const script = join(dataDir, "open-child.mts");
  const dbModule = pathToFileURL(join(REPO_DIR, "src", "store", "db.ts")).href;
  await writeFile(
    script,
    `import { openStore } from ${JSON.stringify(dbModule)};
try {
  const s = await openStore({ dataDir: process.argv[2] });
  console.log(JSON.stringify({ ok: true }));
  await s.close();
} catch (e) {
  console.log(JSON.stringify({ ok: false, name: e.name, code: e.code, message: e.message }));
}
`,
  );
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", script, dataDir],
    {
      cwd: REPO_DIR,
      env: { ...process.env, LOG_LEVEL: "error" },
    },
  );
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as { ok: boolean };
}

describeBackend("pglite", "the embedded store's memory", () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore("pglite", { fresh: true });
  });
  afterAll(() => t.cleanup());

  it("opens PGlite with a 16 MB shared buffer pool (WebAssembly memory, never given back)", async () => {
    const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(t.store.db);
    expect(rows).toEqual([{ shared_buffers: "16MB" }]);
  });

  it("bounds V8's WebAssembly compile tasks with a flag this Node's V8 knows", () => {
    // V8 ignores a flag it does not know (a rename would silently drop the bound).
    const [name, value] = WASM_COMPILE_FLAG.split("=");
    expect(value).toBe("1");
    const options = spawnSync(process.execPath, ["--v8-options"], { encoding: "utf8" }).stdout;
    expect(options).toContain(`${name} (`);
  });
});

describeBackend("pglite", "the embedded store's directory lock", () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore("pglite");
  });
  afterAll(() => t.cleanup());

  it("writes a lock file naming this process", async () => {
    const info = JSON.parse(await readFile(join(t.dataDir, LOCK_FILE), "utf8")) as Record<
      string,
      unknown
    >;
    expect(info).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(Number.isNaN(Date.parse(String(info.startedAt)))).toBe(false);
  });

  it("refuses a second process, naming the holder's pid", async () => {
    const res = await openInChild(t.dataDir);
    expect(res).toMatchObject({ ok: false, name: "StoreError", code: "STORE" });
    expect(res.message).toContain(
      `in use by another pubmed-mcp process (pid ${process.pid} on ${hostname()}`,
    );
    expect(res.message).toContain(
      "Stop it, point PUBMED_MCP_DATA_DIR elsewhere, or set DATABASE_URL.",
    );
  }, 60_000);

  it("refuses a second open in this process too", async () => {
    const err = await openStore({ dataDir: t.dataDir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).message).toContain(
      `is already open in this process (pid ${process.pid})`,
    );
  });

  it("releases on close; takes over a stale lock; refuses a holder on another host", async () => {
    await upsertDocuments(t.store.db, [doc("42")]);
    await t.store.close();
    expect(existsSync(join(t.dataDir, LOCK_FILE))).toBe(false);

    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const stale = {
      pid: dead,
      hostname: hostname(),
      startedAt: "2020-01-01T00:00:00Z",
      token: "x",
    };
    await writeFile(join(t.dataDir, LOCK_FILE), JSON.stringify(stale));
    const reopened = await openStore({ dataDir: t.dataDir });
    try {
      expect((await getDocument(reopened.db, "42"))?.pmid).toBe("42");
      const info = JSON.parse(await readFile(join(t.dataDir, LOCK_FILE), "utf8")) as {
        pid: number;
      };
      expect(info.pid).toBe(process.pid);
    } finally {
      await reopened.close();
    }

    const foreign = { pid: 1, hostname: "elsewhere.example", startedAt: "2020-01-01T00:00:00Z" };
    await writeFile(join(t.dataDir, LOCK_FILE), JSON.stringify(foreign));
    await expect(openStore({ dataDir: t.dataDir })).rejects.toThrow(/pid 1 on elsewhere\.example/);
  });
});

describe("an unreachable Postgres", () => {
  it("fails with a StoreError that names neither the URL nor its password", async () => {
    const err = await openStore({
      databaseUrl: "postgres://alice:s3cret@127.0.0.1:1/corpus",
      dataDir: "/nonexistent",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    const msg = (err as StoreError).message;
    expect(msg).toContain("connecting to the database in DATABASE_URL");
    expect(msg).toContain("unreachable");
    expect(msg).not.toMatch(/s3cret|alice|127\.0\.0\.1|corpus/);
  });
});
