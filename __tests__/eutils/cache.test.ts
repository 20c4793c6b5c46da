/**
 * The response cache: through the client against the fake NCBI (hits never reach the server),
 * and the LRU/TTL rules on their own.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { Config } from "../../src/config.js";
import { ResponseCache, cacheKey } from "../../src/net/cache.js";
import { cacheTtlMs } from "../../src/ncbi/ttl.js";
import { EutilsClient } from "../../src/ncbi/client.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { ncbiConfig } from "../helpers/ncbi-config.js";

const HOUR = 3_600_000;
let fake: FakeEutils;
let clock = 1_700_000_000_000;

beforeAll(async () => {
  fake = await startFakeEutils({
    routes: [
      (req) => ({
        body: `<${req.utility}Result><Seen>${fake.requests.length}</Seen></${req.utility}Result>`,
      }),
    ],
  });
});
beforeEach(() => fake.reset());
afterAll(async () => {
  await fake.close();
});

function client(over: Partial<Config["ncbi"]> = {}): EutilsClient {
  const cfg = ncbiConfig(fake.baseUrl, {
    apiKey: "k",
    maxRetries: 0,
    cacheTtlSeconds: undefined,
    ...over,
  });
  return new EutilsClient(cfg, { now: () => clock, backoffBaseMs: 5 });
}

describe("through the client", () => {
  it("answers a repeat (parameters in any order) from the cache without a request", async () => {
    const c = client();
    const a = await c.request("esearch", { db: "pubmed", term: "asthma" });
    const b = await c.request("esearch", { term: "asthma", db: "pubmed" });
    expect(a.fromCache).toBe(false);
    expect(b).toEqual({ ...a, fromCache: true });
    expect(fake.requests).toHaveLength(1);
    expect(c.info()).toMatchObject({
      requestsStarted: 1,
      cache: { hits: 1, misses: 1, entries: 1 },
    });
  });

  it("expires esearch after 1 h and einfo after 24 h", async () => {
    const c = client();
    await c.request("esearch", { db: "pubmed", term: "copd" });
    await c.request("einfo", { db: "pubmed" });
    clock += HOUR + 1;
    expect((await c.request("esearch", { db: "pubmed", term: "copd" })).fromCache).toBe(false);
    expect((await c.request("einfo", { db: "pubmed" })).fromCache).toBe(true);
    clock += 24 * HOUR;
    expect((await c.request("einfo", { db: "pubmed" })).fromCache).toBe(false);
    expect(fake.requests.map((r) => r.utility)).toEqual(["esearch", "einfo", "esearch", "einfo"]);
  });

  it("noCache goes to NCBI and refreshes the entry", async () => {
    const c = client();
    await c.request("efetch", { db: "pubmed", id: "1" });
    const fresh = await c.request("efetch", { db: "pubmed", id: "1" }, { noCache: true });
    const again = await c.request("efetch", { db: "pubmed", id: "1" });
    expect(fresh.fromCache).toBe(false);
    expect(again).toEqual({ ...fresh, fromCache: true });
    expect(fake.requests).toHaveLength(2);
  });

  it("never caches history calls or EPost", async () => {
    const c = client();
    for (let i = 0; i < 2; i++) {
      await c.request("esearch", { db: "pubmed", term: "x", usehistory: "y" });
      await c.request("efetch", { db: "pubmed", WebEnv: "MCID_1", query_key: 1 });
      await c.request("epost", { db: "pubmed", id: "1" });
    }
    expect(fake.requests).toHaveLength(6);
    expect(c.info().cache.entries).toBe(0);
  });

  it("cacheTtlSeconds overrides every TTL, and 0 turns the cache off", async () => {
    const short = client({ cacheTtlSeconds: 10 });
    await short.request("einfo", {});
    clock += 11_000;
    expect((await short.request("einfo", {})).fromCache).toBe(false);
    const off = client({ cacheTtlSeconds: 0 });
    await off.request("einfo", {});
    expect((await off.request("einfo", {})).fromCache).toBe(false);
    expect(fake.requests).toHaveLength(4);
  });

  it("evicts the least recently used entry when the byte budget is spent", async () => {
    const c = client({ cacheMaxBytes: 250 });
    await c.request("espell", { term: "a" });
    await c.request("espell", { term: "b" });
    await c.request("espell", { term: "c" }); // pushes out "a"
    expect(c.info().cache.entries).toBe(2);
    expect((await c.request("espell", { term: "c" })).fromCache).toBe(true);
    expect((await c.request("espell", { term: "a" })).fromCache).toBe(false);
  });
});

describe("parsed replies (requestParsed)", () => {
  /** A parser that counts its calls; its value is a fresh object each time. */
  function counting(name = "seen") {
    const parser = {
      name,
      calls: 0,
      parse(body: string) {
        parser.calls += 1;
        return { seen: /<Seen>(\d+)<\/Seen>/.exec(body)?.[1] };
      },
    };
    return parser;
  }

  it("parses a body once: a repeat shares the kept value and asks NCBI nothing", async () => {
    const c = client();
    const parser = counting();
    const a = await c.requestParsed("efetch", { db: "pubmed", id: "7" }, parser);
    const b = await c.requestParsed("efetch", { id: "7", db: "pubmed" }, parser);
    expect(a).toMatchObject({ value: { seen: "1" }, fromCache: false, method: "GET" });
    expect(b).toEqual({ ...a, fromCache: true });
    expect(b.value).toBe(a.value);
    expect(parser.calls).toBe(1);
    expect(fake.requests).toHaveLength(1);
    // The raw body stays cached for callers that want it (full_xml).
    expect((await c.request("efetch", { db: "pubmed", id: "7" })).fromCache).toBe(true);
  });

  it("keeps one value per parser name, and none for a body that fails to parse", async () => {
    const c = client();
    const other = counting("other");
    await c.requestParsed("efetch", { db: "pubmed", id: "8" }, counting());
    await c.requestParsed("efetch", { db: "pubmed", id: "8" }, other);
    expect(other.calls).toBe(1);
    let failures = 0;
    const failing = {
      name: "failing",
      parse(): never {
        failures += 1;
        throw new Error("not a PubmedArticleSet");
      },
    };
    for (let i = 0; i < 2; i++) {
      await expect(c.requestParsed("efetch", { db: "pubmed", id: "8" }, failing)).rejects.toThrow(
        "not a PubmedArticleSet",
      );
    }
    expect(failures).toBe(2);
    expect(fake.requests).toHaveLength(1);
  });

  it("drops the parse with its body: after the TTL both come again", async () => {
    const c = client();
    const parser = counting();
    await c.requestParsed("efetch", { db: "pubmed", id: "9" }, parser);
    clock += 24 * HOUR + 1;
    const again = await c.requestParsed("efetch", { db: "pubmed", id: "9" }, parser);
    expect(again).toMatchObject({ value: { seen: "2" }, fromCache: false });
    expect(parser.calls).toBe(2);
  });

  it("parses every time when the reply is not cacheable", async () => {
    const c = client({ cacheTtlSeconds: 0 });
    const parser = counting();
    await c.requestParsed("efetch", { db: "pubmed", id: "10" }, parser);
    await c.requestParsed("efetch", { db: "pubmed", id: "10" }, parser);
    expect(parser.calls).toBe(2);
    expect(fake.requests).toHaveLength(2);
  });
});

describe("ResponseCache", () => {
  it("keeps recently read entries over older unread ones", () => {
    const cache = new ResponseCache<string>(30, () => 0);
    cache.set("a", "A", 1000, 10);
    cache.set("b", "B", 1000, 10);
    cache.set("c", "C", 1000, 10);
    expect(cache.get("a")).toBe("A");
    cache.set("d", "D", 1000, 10);
    expect(cache.get("b")).toBeUndefined();
    expect(["a", "c", "d"].map((k) => cache.get(k))).toEqual(["A", "C", "D"]);
    expect(cache.stats()).toEqual({ hits: 4, misses: 1, entries: 3, bytes: 30 });
  });

  it("refuses entries larger than the whole budget and counts replaced bytes once", () => {
    const cache = new ResponseCache<string>(30, () => 0);
    cache.set("big", "X", 1000, 31);
    cache.set("a", "A", 1000, 10);
    cache.set("a", "A2", 1000, 12);
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 12 });
    expect(cache.get("big")).toBeUndefined();
  });
});

describe("ResponseCache derived values", () => {
  it("counts a derived value's bytes with its entry and evicts them together", () => {
    const cache = new ResponseCache<string>(50, () => 0);
    cache.set("a", "A", 1000, 10);
    cache.setDerived("a", "parsed", { a: 1 }, 15);
    cache.setDerived("a", "parsed", { a: 2 }, 15); // replaced, counted once
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 25 });
    expect(cache.derived("a", "parsed")).toEqual({ a: 2 });
    expect(cache.derived("a", "other")).toBeUndefined();
    cache.set("b", "B", 1000, 20);
    cache.setDerived("b", "parsed", "big", 10); // 55 > 50: "a" and its parse go
    expect(cache.get("a")).toBeUndefined();
    expect(cache.derived("a", "parsed")).toBeUndefined();
    expect(cache.stats()).toMatchObject({ entries: 1, bytes: 30 });
  });

  it("keeps nothing for a missing or expired entry", () => {
    let now = 0;
    const cache = new ResponseCache<string>(100, () => now);
    cache.setDerived("none", "parsed", 1, 5);
    cache.set("a", "A", 10, 10);
    now = 10;
    cache.setDerived("a", "parsed", 1, 5);
    expect(cache.derived("a", "parsed")).toBeUndefined();
    expect(cache.stats().bytes).toBe(10);
  });
});

describe("cache policy", () => {
  it("ignores caller identity and parameter order in keys", () => {
    const a = cacheKey("esearch", [
      ["term", "x"],
      ["db", "pubmed"],
      ["tool", "t1"],
    ]);
    const b = cacheKey("esearch", [
      ["db", "pubmed"],
      ["term", "x"],
      ["api_key", "k"],
      ["email", "e@x.org"],
    ]);
    expect(a).toBe(b);
    expect(a).toBe("esearch?db=pubmed&term=x");
  });

  it("gives per-utility TTLs", () => {
    expect(cacheTtlMs("einfo", {}, undefined)).toBe(24 * HOUR);
    expect(cacheTtlMs("elink", { id: "1" }, undefined)).toBe(24 * HOUR);
    expect(cacheTtlMs("ecitmatch", { bdata: "x" }, undefined)).toBe(HOUR);
    expect(cacheTtlMs("epost", { id: "1" }, 60)).toBe(0);
    expect(cacheTtlMs("esearch", { usehistory: "y" }, undefined)).toBe(0);
    expect(cacheTtlMs("esummary", { query_key: "1", WebEnv: "w" }, 60)).toBe(0);
    expect(cacheTtlMs("esearch", { term: "x" }, 60)).toBe(60_000);
  });
});
