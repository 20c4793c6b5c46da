/**
 * The NCBI budget shared through PostgreSQL, on its own: two budgets on one database stand for two
 * replicas (each has its own pool, as each process would). Real PostgreSQL, a throw-away database.
 */
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { postgresBudget, type SharedBudget } from "../../src/net/shared-budget.js";
import { RateLimiter } from "../../src/net/limiter.js";
import { describeBackend, openTestStore, type TestStore } from "../helpers/db.js";

const admitted = (v: Awaited<ReturnType<SharedBudget["admit"]>>) => !("waitMs" in v);

describeBackend("postgres", "shared NCBI budget", () => {
  let t: TestStore;
  const budgets: SharedBudget[] = [];
  const budget = () => {
    const b = postgresBudget(t.databaseUrl!);
    budgets.push(b);
    return b;
  };
  beforeAll(async () => {
    t = await openTestStore("postgres");
  }, 60_000);
  afterAll(async () => {
    await Promise.all(budgets.map((b) => b.close().catch(() => undefined)));
    await t?.cleanup();
  });

  async function clear(): Promise<void> {
    await budget().admit(1, 1); // creates the tables on a fresh database
    const c = new pg.Client({ connectionString: t.databaseUrl });
    await c.connect();
    await c.query("delete from pubmed_mcp_ncbi_starts");
    await c.end();
  }

  it("admits maxRps starts per window across replicas, then says how long to wait", async () => {
    await clear();
    const [a, b] = [budget(), budget()];
    // Two replicas asking at once, 4 each, for a ceiling of 3 per (long) window.
    const verdicts = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).admit(3, 60_000)),
    );
    const yes = verdicts.filter(admitted);
    expect(yes).toHaveLength(3);
    for (const v of yes) if (!("waitMs" in v)) v.sent();
    await sleep(200); // the stamps are written off the request's path
    const no = await a.admit(3, 60_000);
    expect(no).toEqual({ waitMs: expect.any(Number) });
    // Waits are counted on the database's clock from the stamped starts: about a window.
    expect((no as { waitMs: number }).waitMs).toBeGreaterThan(50_000);
  });

  it("a replica that dies holding admitted, unsent starts costs the others only until they age out", async () => {
    await clear();
    const dying = postgresBudget(t.databaseUrl!);
    for (let i = 0; i < 2; i++) expect(admitted(await dying.admit(2, 300))).toBe(true);
    await dying.close(); // gone without sending or giving back: its rows are pending
    const survivor = budget();
    const first = await survivor.admit(2, 300);
    // Refused for now, but asked to look again soon rather than sleep out the whole bound.
    expect(first).toEqual({ waitMs: expect.any(Number) });
    expect((first as { waitMs: number }).waitMs).toBeLessThanOrEqual(20);
    let tries = 0;
    for (;;) {
      const v = await survivor.admit(2, 300);
      if (admitted(v)) break;
      tries++;
      await sleep((v as { waitMs: number }).waitMs);
    }
    expect(tries).toBeGreaterThan(0);
  }, 60_000);

  it("a start given back (never sent) frees its place at once", async () => {
    await clear();
    const a = budget();
    const first = await a.admit(1, 60_000);
    expect(admitted(first)).toBe(true);
    if (!("waitMs" in first)) first.cancel();
    await sleep(200);
    expect(admitted(await a.admit(1, 60_000))).toBe(true);
  });

  it("holds the limiter's callers on two 'replicas' to one ceiling", async () => {
    await clear();
    const limiters = [
      new RateLimiter({ maxRps: 2, windowMs: 400, shared: budget() }),
      new RateLimiter({ maxRps: 2, windowMs: 400, shared: budget() }),
    ];
    const onWire: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        limiters[i % 2]!.run(async (ticket) => {
          ticket.onWire();
          onWire.push(performance.now());
        }),
      ),
    );
    onWire.sort((x, y) => x - y);
    // Any three consecutive starts (over both limiters) span at least one window.
    for (let i = 0; i + 2 < onWire.length; i++) {
      expect(onWire[i + 2]! - onWire[i]!).toBeGreaterThanOrEqual(395);
    }
  }, 60_000);
});

it("fails open when the database cannot be reached: the local limit still applies", async () => {
  const b = postgresBudget("postgres://postgres@127.0.0.1:1/nowhere");
  try {
    expect(admitted(await b.admit(3, 1100))).toBe(true);
  } finally {
    await b.close();
  }
});
