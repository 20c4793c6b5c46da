import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { StoreError } from "../../src/errors.js";
import { openStore, type Store } from "../../src/store/db.js";
import { withQueryKeyLock } from "../../src/store/locks.js";
import {
  describeBackend,
  describeEachBackend,
  openTestStore,
  type TestStore,
} from "../helpers/db.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A critical section that logs its entry and exit, yielding in between. */
function section(events: string[], name: string, ms = 60) {
  return async () => {
    events.push(`${name}:start`);
    await sleep(ms);
    events.push(`${name}:end`);
    return name;
  };
}

/** A critical section that holds the lock until `release()`: no guess at how long anything takes. */
function held(events: string[], name: string) {
  let release = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const run = async () => {
    events.push(`${name}:start`);
    await gate;
    events.push(`${name}:end`);
    return name;
  };
  return { run, release: () => release() };
}

async function until(pred: () => boolean): Promise<void> {
  while (!pred()) await sleep(5);
}

describeEachBackend("query-key lock", (kind) => {
  let t: TestStore;
  let store: Store;
  beforeAll(async () => {
    t = await openTestStore(kind);
    store = t.store;
  });
  afterAll(() => t.cleanup());

  it("serialises holders of one key in arrival order", async () => {
    const events: string[] = [];
    const results = await Promise.all([
      withQueryKeyLock(store, "k", section(events, "a")),
      withQueryKeyLock(store, "k", section(events, "b")),
      withQueryKeyLock(store, "k", section(events, "c")),
    ]);
    expect(results).toEqual(["a", "b", "c"]);
    expect(events).toEqual(["a:start", "a:end", "b:start", "b:end", "c:start", "c:end"]);
  });

  it("lets different keys run concurrently", async () => {
    const events: string[] = [];
    await Promise.all([
      withQueryKeyLock(store, "k1", section(events, "a")),
      withQueryKeyLock(store, "k2", section(events, "b")),
    ]);
    expect(events.slice(0, 2).sort()).toEqual(["a:start", "b:start"]);
  });

  it("releases the key when the holder throws", async () => {
    await expect(
      withQueryKeyLock(store, "k", async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await withQueryKeyLock(store, "k", async () => "next", { timeoutMs: 0 })).toBe("next");
  });

  it("gives up after the timeout with a StoreError, without blocking later callers", async () => {
    const events: string[] = [];
    const holder = withQueryKeyLock(store, "k", section(events, "a", 300));
    const err = await withQueryKeyLock(store, "k", section(events, "b"), { timeoutMs: 50 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).message).toMatch(/^Another sync of "k" is running/);
    // Queued after the timed-out caller: must still run, once the holder is done.
    const later = withQueryKeyLock(store, "k", section(events, "c"));
    await Promise.all([holder, later]);
    expect(events).toEqual(["a:start", "a:end", "c:start", "c:end"]);
  });
});

// Two Store handles on one database stand in for two replicas: they share nothing but the
// advisory lock. PGlite cannot be opened twice; its file lock is tested in db.test.ts.
describeBackend("postgres", "query-key lock across processes", () => {
  let t: TestStore;
  let other: Store;
  beforeAll(async () => {
    t = await openTestStore("postgres");
    other = await openStore({ databaseUrl: t.databaseUrl, dataDir: t.dataDir });
  });
  afterAll(async () => {
    await other.close();
    await t.cleanup();
  });

  it("serialises one key held through two separate connection pools", async () => {
    const events: string[] = [];
    const a = held(events, "a");
    const first = withQueryKeyLock(t.store, "shared", a.run);
    await until(() => events.includes("a:start"));
    const second = withQueryKeyLock(other, "shared", section(events, "b"), { timeoutMs: 60_000 });
    await sleep(300); // a chance for the second pool to (wrongly) get in while a holds the key
    expect(events).toEqual(["a:start"]);
    a.release();
    await Promise.all([first, second]);
    expect(events).toEqual(["a:start", "a:end", "b:start", "b:end"]);
  });

  it("times out against a holder in the other pool, and different keys do not block", async () => {
    const events: string[] = [];
    const a = held(events, "a");
    const holder = withQueryKeyLock(t.store, "shared", a.run);
    await until(() => events.includes("a:start"));
    await expect(
      withQueryKeyLock(other, "shared", async () => "never", { timeoutMs: 150 }),
    ).rejects.toThrow(/Another sync of "shared" is running/);
    expect(await withQueryKeyLock(other, "unrelated", async () => "free", { timeoutMs: 0 })).toBe(
      "free",
    );
    a.release();
    await holder;
    expect(await withQueryKeyLock(other, "shared", async () => "after", { timeoutMs: 0 })).toBe(
      "after",
    );
  });
});
