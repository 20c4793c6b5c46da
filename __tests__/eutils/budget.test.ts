/**
 * The NCBI budget shared through PostgreSQL, on its own: two budgets on one database stand for two
 * replicas (each has its own pool, as each process would). Real PostgreSQL, a throw-away database.
 */
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import {
  postgresBudget,
  turnInMs,
  type Place,
  type SharedBudget,
} from "../../src/net/shared-budget.js";
import { BudgetSaturatedError, RateLimiter, setDeadline } from "../../src/net/limiter.js";
import { RateLimitError } from "../../src/errors.js";
import { EutilsClient } from "../../src/ncbi/client.js";
import { describeBackend, openTestStore, type TestStore } from "../helpers/db.js";
import { onUtility, startFakeEutils } from "../helpers/fake-eutils.js";
import { ncbiConfig } from "../helpers/ncbi-config.js";

type Verdict = Awaited<ReturnType<SharedBudget["admit"]>>;
const admitted = (v: Verdict) => !("waitMs" in v);
const refusal = (v: Verdict) => {
  if (!("waitMs" in v)) throw new Error("expected a refusal, got an admission");
  return v;
};

it("a call's turn: free places at once, then as the window's starts leave, a window per round", () => {
  // 3 per 1,000 ms; starts in the window leave in 100, 400 and 900 ms.
  expect(turnInMs(0, [100, 400, 900], 3, 1000)).toBe(100);
  expect(turnInMs(2, [100, 400, 900], 3, 1000)).toBe(900);
  expect(turnInMs(3, [100, 400, 900], 3, 1000)).toBe(1100);
  expect(turnInMs(7, [100, 400, 900], 3, 1000)).toBe(2400);
  // One start in the window: two places are free now and leave a window later.
  expect(turnInMs(1, [300], 3, 1000)).toBe(0);
  expect(turnInMs(2, [300], 3, 1000)).toBe(300);
  expect(turnInMs(3, [300], 3, 1000)).toBe(1000);
  // More starts than fit (a replica with a higher ceiling): the first turn waits for the surplus.
  expect(turnInMs(0, [100, 200, 300, 400], 2, 1000)).toBe(300);
});

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
    await c.query("delete from pubmed_mcp_ncbi_queue");
    await c.end();
  }

  /** Stands for a window passing: every start so far leaves it. */
  async function windowPasses(): Promise<void> {
    await sql("delete from pubmed_mcp_ncbi_starts");
  }

  async function sql(text: string): Promise<number> {
    const c = new pg.Client({ connectionString: t.databaseUrl });
    await c.connect();
    try {
      const res = await c.query(text);
      return Number((res.rows[0] as { n?: string } | undefined)?.n ?? res.rowCount ?? 0);
    } finally {
      await c.end();
    }
  }

  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 300 && !(await check()); i++) await sleep(20);
    expect(await check()).toBe(true);
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
    // The five refused are queued in order; a new call comes after them.
    const no = refusal(await a.admit(3, 60_000));
    expect(no).toMatchObject({ ahead: 5, queued: 6 });
    // Its turn is counted on the database's clock from the stamped starts: the 6th call after a
    // full window of 3 goes when the 3rd of the next round leaves, two windows from now.
    expect(no.waitMs).toBeGreaterThan(110_000);
    expect(no.waitMs).toBeLessThanOrEqual(120_000);
  });

  it("admits the replicas' waiting calls first come, first served, whatever replica asks first", async () => {
    await clear();
    const [a, b] = [budget(), budget()];
    expect(admitted(await a.admit(1, 60_000))).toBe(true);
    const pb: Place = {};
    const pa: Place = {};
    expect(refusal(await b.admit(1, 60_000, pb))).toMatchObject({ ahead: 0, queued: 1 });
    expect(refusal(await a.admit(1, 60_000, pa))).toMatchObject({ ahead: 1, queued: 2 });
    await windowPasses();
    // A start is free, but b's call came first: a asking first does not take it.
    expect(refusal(await a.admit(1, 60_000, pa))).toMatchObject({ ahead: 1, queued: 2 });
    expect(admitted(await b.admit(1, 60_000, pb))).toBe(true);
    expect(pb.ticket).toBeUndefined();
    await windowPasses();
    expect(admitted(await a.admit(1, 60_000, pa))).toBe(true);
    expect(await sql("select count(*) as n from pubmed_mcp_ncbi_queue")).toBe(0);
  });

  it("a call numbered on arrival, while it waited for a local slot, goes before later arrivals", async () => {
    await clear();
    const [a, b] = [budget(), budget()];
    expect(admitted(await a.admit(1, 60_000))).toBe(true);
    const early: Place = { ticket: await a.reserve() };
    const late: Place = {};
    // A number alone holds nobody up...
    expect(refusal(await b.admit(1, 60_000, late))).toMatchObject({ ahead: 0, queued: 1 });
    // ...but once its call asks, it comes first.
    expect(refusal(await a.admit(1, 60_000, early))).toMatchObject({ ahead: 0, queued: 2 });
    await windowPasses();
    expect(refusal(await b.admit(1, 60_000, late))).toMatchObject({ ahead: 1 });
    expect(admitted(await a.admit(1, 60_000, early))).toBe(true);
  });

  it("a call that leaves the queue stops holding up the calls behind it", async () => {
    await clear();
    const [a, b] = [budget(), budget()];
    expect(admitted(await a.admit(1, 60_000))).toBe(true);
    const first: Place = {};
    const second: Place = {};
    refusal(await a.admit(1, 60_000, first));
    expect(refusal(await b.admit(1, 60_000, second)).ahead).toBe(1);
    a.leave(first);
    expect(first.ticket).toBeUndefined();
    await eventually(async () => refusal(await b.admit(1, 60_000, second)).ahead === 0);
  });

  it("the place of a replica that died waiting lapses, and the calls behind it go on", async () => {
    await clear();
    const start = await budget().admit(1, 200);
    if ("waitMs" in start) throw new Error("the first start should be admitted");
    start.sent();
    const dying = postgresBudget(t.databaseUrl!);
    refusal(await dying.admit(1, 200, {}));
    await dying.close(); // never asks again nor leaves
    const survivor = budget();
    const place: Place = {};
    expect(refusal(await survivor.admit(1, 200, place)).ahead).toBe(1);
    let verdict: Verdict;
    while ("waitMs" in (verdict = await survivor.admit(1, 200, place))) {
      await sleep(verdict.waitMs);
    }
    expect(admitted(verdict)).toBe(true);
  }, 60_000);

  it("a replica that dies holding admitted, unsent starts costs the others only until they age out", async () => {
    await clear();
    const dying = postgresBudget(t.databaseUrl!);
    for (let i = 0; i < 2; i++) expect(admitted(await dying.admit(2, 300))).toBe(true);
    await dying.close(); // gone without sending or giving back: its rows are pending
    const survivor = budget();
    const place: Place = {};
    const first = refusal(await survivor.admit(2, 300, place));
    // Refused for now, but asked again when the pending starts were expected on the wire and out
    // of the window (admission + window), not after their whole bound (admission + 2 s + window).
    expect(first.waitMs).toBeLessThanOrEqual(300);
    let tries = 0;
    let v: Verdict;
    while ("waitMs" in (v = await survivor.admit(2, 300, place))) {
      tries++;
      await sleep(v.waitMs);
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

  it("a call whose turn comes after its deadline fails at once, naming the queue, and leaves it", async () => {
    await clear();
    // Two replicas: the first takes the window's one start, the second's call would wait a window.
    const first = new RateLimiter({ maxRps: 1, windowMs: 60_000, shared: budget() });
    const limiter = new RateLimiter({ maxRps: 1, windowMs: 60_000, shared: budget() });
    await first.run(async (ticket) => ticket.onWire());
    const signal = setDeadline(new AbortController().signal, performance.now() + 5_000);
    const err = await limiter.run(async () => "sent", signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetSaturatedError);
    expect(err).toMatchObject({ queued: 1 });
    expect((err as BudgetSaturatedError).waitMs).toBeGreaterThan(5_000);
    await eventually(
      async () => (await sql("select count(*) as n from pubmed_mcp_ncbi_queue")) === 0,
    );
  });

  it("a tool call that cannot start before its deadline gets RATE_LIMIT naming the saturated budget", async () => {
    await clear();
    const ok = "<eSearchResult><Count>0</Count><IdList/></eSearchResult>";
    const fake = await startFakeEutils({ routes: [onUtility("esearch", { body: ok })] });
    try {
      // Two replicas at 1 request/s; the second's call, with a 0.5 s deadline, would start in ~1.1 s.
      const cfg = ncbiConfig(fake.baseUrl, { maxRps: 1, deadlineMs: 500 });
      const [a, b] = [budget(), budget()].map(
        (shared) => new EutilsClient(cfg, { budget: shared }),
      );
      await a!.request("esearch", { db: "pubmed", term: "first" });
      const err = await b!
        .request("esearch", { db: "pubmed", term: "second" })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RateLimitError);
      expect((err as Error).message).toMatch(
        /^NCBI's request budget, shared by every server replica on this database \(NCBI_MAX_RPS=1 requests\/s in all\), is saturated: 1 call queued for it, so this one could start only in about [12] s, after its deadline \(NCBI_DEADLINE_MS\); nothing was sent/,
      );
      expect((err as RateLimitError).details).toMatchObject({
        queued: 1,
        retryAfterSeconds: expect.any(Number),
      });
      expect(fake.requests.map((r) => r.params.term)).toEqual(["first"]);
    } finally {
      await fake.close();
    }
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
