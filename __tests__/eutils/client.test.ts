/**
 * The E-utilities client against the fake NCBI over real loopback HTTP: rate ceiling, retries,
 * deadline and cancel, error mapping, GET→POST. Secrets and the cache have their own files.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import dc from "node:diagnostics_channel";
import type { Config } from "../../src/config.js";
import { EntrezError, RateLimitError, UpstreamError } from "../../src/errors.js";
import { EutilsClient } from "../../src/ncbi/client.js";
import { sleep } from "../../src/sleep.js";
import { log } from "../../src/log.js";
import {
  fixtureReply,
  onUtility,
  rateLimitReply,
  startFakeEutils,
  type FakeEutils,
} from "../helpers/fake-eutils.js";
import { ncbiConfig } from "../helpers/ncbi-config.js";
import { describeShared } from "../helpers/shared.js";

const OK = "<eSearchResult><Count>1</Count><IdList><Id>31452104</Id></IdList></eSearchResult>";

let fake: FakeEutils;

const ncbi = (over: Partial<Config["ncbi"]> = {}) => ncbiConfig(fake.baseUrl, over);

function client(over: Partial<Config["ncbi"]> = {}): EutilsClient {
  return new EutilsClient(ncbi(over), { backoffBaseMs: 10 });
}

const search = (c: EutilsClient, term = "asthma", signal?: AbortSignal) =>
  c.request("esearch", { db: "pubmed", term }, { signal });

const savedLevel = log.level;
beforeAll(async () => {
  fake = await startFakeEutils({ routes: [onUtility("esearch", { body: OK })] });
  log.level = "error"; // the rate-limit warnings these tests provoke on purpose
});
beforeEach(() => fake.reset());
afterAll(async () => {
  log.level = savedLevel;
  await fake.close();
});

/** When undici wrote each request's headers to a socket: the moment it went on the wire. */
function watchWire(): { times: number[]; stop: () => void } {
  const times: number[] = [];
  const seen = () => times.push(Date.now());
  dc.subscribe("undici:client:sendHeaders", seen);
  return { times, stop: () => dc.unsubscribe("undici:client:sendHeaders", seen) };
}

/** Waits until the fake sees the client hang up on request `i`; a client that waits times out the test. */
async function hungUpOn(i: number): Promise<boolean> {
  while (!fake.requests[i]?.abandoned) await sleep(5);
  return fake.requests[i]?.abandoned ?? false;
}

function maxInWindow(times: number[], ms: number): number {
  return Math.max(0, ...times.map((t) => times.filter((u) => u >= t && u < t + ms).length));
}

describe("rate ceiling", () => {
  it.each([
    [3, 9],
    [10, 20],
  ])("maxRps %i: bursts of %i never exceed it in any sliding second", async (maxRps, n) => {
    const c = client({ maxRps });
    const burst = () => Promise.all(Array.from({ length: n }, (_, i) => search(c, `t${i}`)));
    // Cold: fresh connections delay the first requests unevenly; what counts is the wire.
    const wire = watchWire();
    const replies = await burst();
    wire.stop();
    expect(replies.every((r) => r.body === OK)).toBe(true);
    expect(wire.times).toHaveLength(n);
    expect(maxInWindow(wire.times, 1000)).toBe(maxRps);
    // Warm, on pooled connections: judged on the wire too. The fake stamps arrivals on this same
    // event loop, so on a loaded machine a late tick bunches them (once 11 in a second at 10/s,
    // bench/JOURNAL.md §8); the ceiling at a server in its own process is rate-ceiling.test.ts's.
    fake.reset();
    const warm = watchWire();
    await burst();
    warm.stop();
    expect(fake.requests).toHaveLength(n);
    expect(warm.times).toHaveLength(n);
    expect(maxInWindow(warm.times, 1000)).toBe(maxRps);
    expect(c.info()).toMatchObject({ requestsStarted: 2 * n, queueSize: 0, pending: 0, maxRps });
  });
});

describe("retries", () => {
  it("pauses every request after a 429 for its Retry-After, then succeeds", async () => {
    const c = client();
    fake.failNext(1, rateLimitReply(429, 1));
    const first = search(c, "a");
    while (fake.requests.length === 0) await sleep(5);
    await sleep(100); // the 429 has landed: the cool-down is shared
    const [a, b] = await Promise.all([first, search(c, "b")]);
    expect([a.body, b.body]).toEqual([OK, OK]);
    const [refused, ...later] = fake.requests;
    expect(later).toHaveLength(2);
    for (const r of later) expect(r.at - (refused?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it("retries the JSON rate-limit body NCBI sends with HTTP 200", async () => {
    fake.failNext(1, rateLimitReply(200));
    await expect(search(client())).resolves.toMatchObject({ body: OK });
    expect(fake.requests).toHaveLength(2);
  });

  it("retries 500 and 503, then succeeds", async () => {
    fake.failNext(1, { status: 500, body: "oops" });
    fake.failNext(1, { status: 503, body: "busy" });
    await expect(search(client())).resolves.toMatchObject({ body: OK, fromCache: false });
    expect(fake.requests).toHaveLength(3);
  });

  it("retries a hang-up before any reply and a reply cut mid-body", async () => {
    fake.failNext(1, { body: "", hangup: true });
    fake.failNext(1, { body: OK.repeat(50), truncate: true });
    await expect(search(client())).resolves.toMatchObject({ body: OK });
    expect(fake.requests).toHaveLength(3);
  });

  it("retries after the per-request timeout", async () => {
    // The slow reply would come after ten minutes (fake.close() cuts it short).
    fake.failNext(1, { body: OK, delayMs: 600_000 });
    await expect(search(client({ timeoutMs: 200 }))).resolves.toMatchObject({ body: OK });
    // Did not wait for the slow reply: the client hung up on it, and the retry answered.
    expect(fake.requests).toHaveLength(2);
    expect(await hungUpOn(0)).toBe(true);
    expect(fake.requests[1]?.abandoned).toBe(false);
  });

  it("gives up with UpstreamError naming the status once retries run out", async () => {
    fake.failNext(10, { status: 503, body: "busy" });
    const err = await search(client({ maxRetries: 2 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(/failed 3 times; the last reply was HTTP 503\. .*again/);
    expect(fake.requests).toHaveLength(3);
  });

  it("gives up with RateLimitError when NCBI keeps saying slow down", async () => {
    fake.failNext(10, rateLimitReply(429));
    const err = await search(client({ maxRetries: 2 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toMatch(/rate-limit refusal \(HTTP 429\).*NCBI_API_KEY/);
    expect(fake.requests).toHaveLength(3);
  });

  it("gives up on repeated dropped connections with a message saying so", async () => {
    fake.failNext(10, { body: "", hangup: true });
    const err = await search(client({ maxRetries: 1 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(/failed connection.*NCBI_EUTILS_BASE_URL/);
  });
});

describeShared("bodies that are not what was asked for", () => {
  it("retries an HTML page, then reports it", async () => {
    fake.route(onUtility("efetch", fixtureReply("biopython/Entrez/pubmed3.html")));
    const c = client({ maxRetries: 2 });
    const err = await c.request("efetch", { db: "pubmed", id: "19304878" }).catch((e) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(/HTML page instead of XML/);
    expect(fake.requests).toHaveLength(3);
  });

  it("retries a truncated XML reply, then reports it", async () => {
    fake.route(onUtility("einfo", fixtureReply("biopython/Entrez/einfo4.xml")));
    const err = await client({ maxRetries: 1 })
      .request("einfo", {})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(/truncated reply \(no closing <\/eInfoResult>\)/);
    expect(fake.requests).toHaveLength(2);
  });

  it("turns a top-level <ERROR> into EntrezError with NCBI's text, without retrying", async () => {
    fake.route(onUtility("epost", fixtureReply("biopython/Entrez/epost2.xml")));
    const err = await client()
      .request("epost", { db: "nothing", id: "1" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EntrezError);
    expect((err as Error).message).toBe("NCBI epost reported: Invalid db name specified: nothing");
    expect(fake.requests).toHaveLength(1);
  });
});

describe("client errors are not retried", () => {
  it("HTTP 400 is an EntrezError quoting NCBI and pointing at the query", async () => {
    fake.failNext(1, { status: 400, body: '{"error":"Invalid query: unbalanced quotes"}' });
    const err = await search(client(), '"asthma').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EntrezError);
    expect((err as Error).message).toMatch(/HTTP 400: Invalid query: unbalanced quotes\). Check/);
    expect(fake.requests).toHaveLength(1);
  });

  it("an unknown endpoint (404) is an UpstreamError naming NCBI_EUTILS_BASE_URL", async () => {
    const err = await client()
      .request("espell", { db: "pubmed", term: "asthmaa" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(/HTTP 404\). Check NCBI_EUTILS_BASE_URL/);
    expect(fake.requests).toHaveLength(1);
  });
});

describe("deadline and cancel", () => {
  /** Lets the first reply land, then fires the deadline the way a tool's AbortSignal.timeout does. */
  async function deadlineAfterFirstReply(c: EutilsClient, deadline: AbortController) {
    while (c.info().lastContact === null) await sleep(5);
    await sleep(100); // the reply is classified and the client is now backing off or cooling down
    deadline.abort(new DOMException("deadline", "TimeoutError"));
  }

  it("a passed deadline ends the retries promptly with UpstreamError", async () => {
    fake.failNext(100, { status: 503, body: "busy" });
    // A backoff of half an hour: the call can only end inside the test's timeout if the deadline
    // cuts the sleep short.
    const c = new EutilsClient(ncbi({ maxRetries: 10 }), {
      backoffBaseMs: 3_600_000,
      random: () => 0.5,
    });
    const deadline = new AbortController();
    const call = search(c, "x", deadline.signal).catch((e: unknown) => e);
    await deadlineAfterFirstReply(c, deadline);
    const err = await call;
    expect(fake.requests).toHaveLength(1);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toBe(
      "NCBI did not answer within 20 s (NCBI_DEADLINE_MS) (last reply: HTTP 503); try again later or narrow the request.",
    );
  });

  it("a deadline that passes while the call waits its turn here is a RateLimitError: nothing sent", async () => {
    // One start a second: the first call takes it and holds NCBI for a while; the second waits.
    fake.failNext(1, { body: OK, delayMs: 60_000 });
    const c = client({ maxRps: 1 });
    const holder = new AbortController();
    const first = search(c, "first", holder.signal).catch((e: unknown) => e);
    while (fake.requests.length === 0) await sleep(5);
    const deadline = new AbortController();
    const second = search(c, "second", deadline.signal).catch((e: unknown) => e);
    await sleep(50);
    deadline.abort(new DOMException("deadline", "TimeoutError"));
    const err = await second;
    holder.abort();
    await first;
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toBe(
      "NCBI was not asked: this call waited 20 s (NCBI_DEADLINE_MS) for its turn under the rate limit (1 per second) behind 1 other call; nothing was sent. Try again shortly, or make fewer calls at once.",
    );
    expect(fake.requests.map((r) => r.params.term)).toEqual(["first"]);
  });

  it("a deadline during a rate-limit pause is a RateLimitError", async () => {
    fake.failNext(1, rateLimitReply(429, 30));
    const c = client();
    const deadline = new AbortController();
    const call = search(c, "x", deadline.signal).catch((e: unknown) => e);
    await deadlineAfterFirstReply(c, deadline);
    const err = await call;
    // Ended by the deadline, not by the cool-down's probe (which would have sent a second request).
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toMatch(/NCBI_DEADLINE_MS\) \(last reply: a rate-limit refusal/);
    expect(fake.requests).toHaveLength(1);
  });

  it("a deadline aborts the request in flight", async () => {
    fake.failNext(1, { body: OK, delayMs: 600_000 }); // fake.close() cuts the wait short
    const err = await search(client(), "x", AbortSignal.timeout(200)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(fake.requests).toHaveLength(1);
    expect(await hungUpOn(0)).toBe(true); // the client hung up; no reply was waited for
  });

  it("a caller's abort while queued leaves the queue and frees it for others", async () => {
    const c = client({ maxRps: 1 });
    // The first holds the only slot for 3 s: far longer than the checks below, however loaded.
    fake.failNext(1, { body: OK, delayMs: 3000 });
    const first = search(c, "first");
    const controller = new AbortController();
    const queued = search(c, "queued", controller.signal);
    const third = search(c, "third");
    while (c.info().pending === 0) await sleep(5);
    expect(c.info().queueSize).toBe(2);
    controller.abort();
    await expect(queued).rejects.toMatchObject({ name: "AbortError" });
    expect(c.info().queueSize).toBe(1);
    await expect(Promise.all([first, third])).resolves.toHaveLength(2);
    expect(fake.requests.map((r) => r.params.term)).toEqual(["first", "third"]);
  });
});

describe("request shape", () => {
  it("switches to a form POST for more than 200 ids and sends them all", async () => {
    fake.route(onUtility("efetch", { body: "<PubmedArticleSet></PubmedArticleSet>" }));
    const ids = Array.from({ length: 300 }, (_, i) => String(30_000_000 + i));
    const res = await client().request("efetch", { db: "pubmed", id: ids, retmode: "xml" });
    expect(res.method).toBe("POST");
    const [req] = fake.requests;
    expect(req?.method).toBe("POST");
    expect(req?.params.id?.split(",")).toEqual(ids);
    expect(req?.params.tool).toBe("pubmed-mcp-test");
  });

  it("stays on GET for 200 ids and a short URL, and POSTs a long query", async () => {
    const c = client();
    const ids = Array.from({ length: 200 }, (_, i) => String(i + 1));
    fake.route(onUtility("esummary", { body: "<eSummaryResult></eSummaryResult>" }));
    expect((await c.request("esummary", { db: "pubmed", id: ids })).method).toBe("GET");
    expect((await search(c, "cancer OR ".repeat(250))).method).toBe("POST");
    expect(fake.requests.map((r) => r.method)).toEqual(["GET", "POST"]);
  });

  it("records when NCBI last answered", async () => {
    const c = client();
    expect(c.info().lastContact).toBeNull();
    const before = Date.now();
    await search(c);
    const at = Date.parse(c.info().lastContact ?? "");
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });
});

describe("requestBytes: a reply's bytes for another thread, checked as request checks a reply", () => {
  const efetch = (c: EutilsClient) =>
    c.requestBytes("efetch", { db: "pubmed", id: "1", retmode: "xml" });
  // Long enough to be checked by its head and tail only (over 64 KB), with multi-byte text.
  const set = (n: number) =>
    `<?xml version="1.0"?>\n<PubmedArticleSet>${"<PubmedArticle>β-lactam “x”</PubmedArticle>".repeat(n)}</PubmedArticleSet>\n`;

  it("gives the bytes NCBI sent, in shared memory of their own, and caches nothing", async () => {
    const body = set(3000);
    fake.route(onUtility("efetch", { body }));
    const c = client();
    const res = await efetch(c);
    expect(Buffer.from(res.bytes).equals(Buffer.from(body, "utf8"))).toBe(true);
    expect(res.bytes.byteOffset).toBe(0);
    expect(res.bytes.buffer.byteLength).toBe(res.bytes.byteLength);
    // Shared, so posting them to the corpus worker and on to the prepare thread copies nothing.
    expect(res.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    await efetch(c);
    expect(fake.requests).toHaveLength(2);
  });

  it("retries a long reply cut before its root's end, then reports it", async () => {
    fake.route(onUtility("efetch", { body: set(3000).slice(0, -30) }));
    const err = await efetch(client({ maxRetries: 1 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(/truncated reply \(no closing <\/PubmedArticleSet>\)/);
    expect(fake.requests).toHaveLength(2);
  });

  it("retries a long HTML page, then reports it", async () => {
    fake.route(
      onUtility("efetch", { body: `<!DOCTYPE html><html>${"<p>x</p>".repeat(20_000)}</html>` }),
    );
    const err = await efetch(client({ maxRetries: 1 })).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/HTML page instead of XML/);
    expect(fake.requests).toHaveLength(2);
  });

  it("a short <ERROR> document is NCBI's refusal, as request reads it", async () => {
    const body = "<eFetchResult><ERROR>Cannot retrieve history data.</ERROR></eFetchResult>";
    fake.route(onUtility("efetch", { body }));
    const err = await efetch(client()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EntrezError);
    expect((err as Error).message).toMatch(/Cannot retrieve history data/);
  });

  it("retries the JSON rate-limit body sent with HTTP 200", async () => {
    fake.route(onUtility("efetch", { body: set(10) }));
    fake.failNext(1, rateLimitReply(200));
    const res = await efetch(client());
    expect(new TextDecoder().decode(res.bytes)).toBe(set(10));
    expect(fake.requests).toHaveLength(2);
  });
});
