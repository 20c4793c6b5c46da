/**
 * PGlite runs statements on the calling thread and settles them as microtasks; the store yields
 * to the macrotask queue after each one (src/store/yield-plugin.ts), so in the corpus worker the
 * MCP thread's messages (a rag_search, a cancel) are handled between a batch's statements rather
 * than after the whole batch; Store.read, which Kysely's plugins never see, yields by itself. A
 * MessagePort message is the macrotask the worker waits on.
 */
import { afterEach, expect, it } from "@jest/globals";
import { sql } from "kysely";
import { MessageChannel } from "node:worker_threads";
import { describeEachBackend, openTestStore, type TestStore } from "../helpers/db.js";

const STATEMENTS = 40;

/**
 * Runs `statement(i)` STATEMENTS times in a chain while a message waits on a MessagePort; returns
 * how many statements had finished when the message was handled (undefined: not before the end).
 */
async function handledAfter(statement: (i: number) => Promise<void>): Promise<number | undefined> {
  const channel = new MessageChannel();
  let done = 0;
  let handled: number | undefined;
  channel.port2.once("message", () => (handled = done));
  channel.port1.postMessage("search");
  for (; done < STATEMENTS; done++) await statement(done);
  channel.port1.close();
  return handled;
}

describeEachBackend("statements and the thread's other work", (kind) => {
  let t: TestStore | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  it("a message that arrives during a chain of statements is handled before the chain ends", async () => {
    t = await openTestStore(kind);
    const { db } = t.store;
    await sql`select 1`.execute(db); // connected and warm
    const after = await handledAfter(async (i) => {
      await sql`select ${i}::int as n`.execute(db);
    });
    expect(after).toBeDefined();
    expect(after).toBeLessThan(STATEMENTS / 2);
  });

  // Store.read goes past Kysely's plugins (a named statement on PGlite): it yields by itself.
  // Without, a loop of searches on one thread starved its timers and sockets (the bench hung).
  it("the same holds for a chain of store.read calls, search's payload read", async () => {
    t = await openTestStore(kind);
    const { store } = t;
    const query = (k: number) => sql<{ n: number }>`select ${k}::int as n`.compile(store.db);
    await store.read("test_yield", query(0)); // prepared and warm
    const after = await handledAfter(async (i) => {
      expect(await store.read("test_yield", query(i))).toEqual([{ n: i }]);
    });
    expect(after).toBeDefined();
    expect(after).toBeLessThan(STATEMENTS / 2);
  });
});
