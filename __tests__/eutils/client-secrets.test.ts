/**
 * NCBI_API_KEY is sent to NCBI and nowhere else (docs/reference.md#configuration): not in returned URLs, not in any
 * log line, not in any error, even when NCBI echoes it back in an error body.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import winston from "winston";
import type { Config } from "../../src/config.js";
import { toEnvelope } from "../../src/errors.js";
import { EutilsClient } from "../../src/ncbi/client.js";
import { log } from "../../src/log.js";
import {
  onUtility,
  startFakeEutils,
  type FakeEutils,
  type FakeReply,
} from "../helpers/fake-eutils.js";
import { ncbiConfig } from "../helpers/ncbi-config.js";

const KEY = "SECRET-KEY-123";
const OK = "<eSearchResult><Count>0</Count><IdList/></eSearchResult>";
const echo = (error: string) => `{"error":"${error}","api-key":"${KEY}","count":"11"}`;

let fake: FakeEutils;
const lines: string[] = [];
const capture = new winston.transports.Stream({
  level: "debug",
  stream: new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  }),
});
let savedLevel = "info";

beforeAll(async () => {
  fake = await startFakeEutils({ routes: [onUtility("esearch", { body: OK })] });
  savedLevel = log.level;
  log.level = "debug";
  for (const t of log.transports) t.silent = true; // keep the test output readable
  log.add(capture);
});
afterEach(() => fake.reset());
afterAll(async () => {
  log.remove(capture);
  for (const t of log.transports) t.silent = false;
  log.level = savedLevel;
  await fake.close();
});

function client(over: Partial<Config["ncbi"]> = {}): EutilsClient {
  const cfg = ncbiConfig(fake.baseUrl, {
    apiKey: KEY,
    email: "dev@example.org",
    maxRetries: 1,
    ...over,
  });
  return new EutilsClient(cfg, { backoffBaseMs: 5 });
}

it("sends tool, email and api_key on GET and POST, and returns URLs without the key", async () => {
  const c = client();
  const get = await c.request("esearch", { db: "pubmed", term: "asthma" });
  const ids = Array.from({ length: 250 }, (_, i) => String(i + 1));
  fake.route(onUtility("efetch", { body: "<PubmedArticleSet></PubmedArticleSet>" }));
  const post = await c.request("efetch", { db: "pubmed", id: ids });
  for (const req of fake.requests) {
    expect(req.params).toMatchObject({ tool: "pubmed-mcp-test", email: "dev@example.org" });
    expect(req.params.api_key).toBe(KEY);
  }
  expect(fake.requests.map((r) => r.method)).toEqual(["GET", "POST"]);
  for (const url of [get.url, post.url, c.publicUrl("esearch", { term: "x" })]) {
    expect(url).toContain("tool=pubmed-mcp-test");
    expect(url).not.toContain(KEY);
    expect(url).not.toContain("api_key");
  }
  expect(c.info()).toMatchObject({ apiKeyInUse: true, tool: "pubmed-mcp-test" });
  expect(JSON.stringify(c.info())).not.toContain(KEY);
});

// Every row has three cells: with two, jest would take the third parameter for a done callback.
const failures: [string, FakeReply, Partial<Config["ncbi"]>][] = [
  ["HTTP 400 echoing the key", { status: 400, body: echo("API key invalid") }, {}],
  ["HTTP 403 echoing the key", { status: 403, body: `forbidden for ${KEY}` }, {}],
  ["HTTP 418 echoing the key", { status: 418, body: `teapot ${KEY}` }, {}],
  ["rate limit echoing the key", { status: 429, body: echo("API rate limit exceeded") }, {}],
  ["rate limit with HTTP 200", { status: 200, body: echo("API rate limit exceeded") }, {}],
  ["HTTP 503", { status: 503, body: `busy ${KEY}` }, {}],
  ["HTML", { body: `<html><body>${KEY}</body></html>` }, {}],
  ["truncated XML", { body: `<eSearchResult><Count>${KEY}` }, {}],
  ["JSON error", { body: echo("Too many UIDs") }, {}],
  [
    "<ERROR> echoing the key",
    { body: `<eSearchResult><ERROR>bad ${KEY}</ERROR></eSearchResult>` },
    {},
  ],
  ["hang-up", { body: "", hangup: true }, {}],
  ["cut mid-body", { body: OK.repeat(20), truncate: true }, {}],
  ["per-request timeout", { body: OK, delayMs: 3000 }, { timeoutMs: 300 }],
];

it.each(failures)("%s: the key is in no error and no log line", async (_name, reply, over) => {
  lines.length = 0;
  fake.failNext(5, reply);
  const c = client(over);
  const json = reply.body.startsWith("{") ? "json" : undefined;
  const err = await c
    .request("esearch", { db: "pubmed", term: "asthma", retmode: json })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Error);
  expect(fake.requests[0]?.params.api_key).toBe(KEY); // the key did go to NCBI
  const seen = [String(err), JSON.stringify(toEnvelope(err)), JSON.stringify(err), ...lines];
  expect(lines.some((l) => l.includes("ncbi request"))).toBe(true);
  for (const text of seen) expect(text).not.toContain(KEY);
});

it("a deadline error holds no key either", async () => {
  lines.length = 0;
  fake.failNext(5, { body: OK, delayMs: 1000 });
  const c = client();
  const err = await c
    .request("esearch", { db: "pubmed", term: "x" }, { signal: AbortSignal.timeout(100) })
    .catch((e: unknown) => e);
  expect(toEnvelope(err).error.code).toBe("UPSTREAM");
  for (const text of [String(err), JSON.stringify(toEnvelope(err)), ...lines]) {
    expect(text).not.toContain(KEY);
  }
});
