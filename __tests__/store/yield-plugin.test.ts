/**
 * PGlite runs statements on the calling thread and settles them as microtasks; the store yields
 * to the macrotask queue after each one (src/store/yield-plugin.ts), so in the corpus worker the
 * MCP thread's messages (a rag_search, a cancel) are handled between a batch's statements rather
 * than after the whole batch. A MessagePort message is the macrotask the worker waits on.
 */
import { afterEach, expect, it } from "@jest/globals";
import { sql } from "kysely";
import { MessageChannel } from "node:worker_threads";
import { describeEachBackend, openTestStore, type TestStore } from "../helpers/db.js";

const STATEMENTS = 40;

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
    const channel = new MessageChannel();
    let done = 0;
    let handledAfter: number | undefined;
    channel.port2.once("message", () => (handledAfter = done));
    channel.port1.postMessage("search");
    for (; done < STATEMENTS; done++) {
      await sql`select ${done}::int as n`.execute(db);
    }
    channel.port1.close();
    expect(handledAfter).toBeDefined();
    expect(handledAfter).toBeLessThan(STATEMENTS / 2);
  });
});
