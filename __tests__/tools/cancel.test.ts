/**
 * A call the client cancels (notifications/cancelled, sent by the SDK client when its AbortSignal
 * fires) is routine: it is logged at debug level, never as an "unexpected error". A call whose
 * deadline (NCBI_DEADLINE_MS) passes answers UPSTREAM, also without an error log. The winston
 * logger's entries are captured by a transport of this test.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { setTimeout as sleep } from "node:timers/promises";
import { Writable } from "node:stream";
import winston from "winston";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { log } from "../../src/log.js";
import { onUtility, startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";

type Entry = { level: string; message: string };
const entries: Entry[] = [];
const capture = new winston.transports.Stream({
  level: "debug",
  stream: new Writable({
    objectMode: true,
    write: (info: Entry, _encoding, done) => {
      entries.push({ level: info.level, message: info.message });
      done();
    },
  }),
});

/** Waits (generously: the machine is loaded) until `pred` holds. */
async function until(pred: () => boolean, what: string, ms = 90_000): Promise<void> {
  for (const end = Date.now() + ms; !pred(); await sleep(20)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

const SLOW = 60_000; // NCBI "answers" after a minute; fake.close() cuts the wait short

let fake: FakeEutils;
beforeAll(async () => {
  const synth = synthHandler(demoCorpus());
  fake = await startFakeEutils({
    routes: [onUtility("espell", { body: "", delayMs: SLOW }), (req) => synth(req)],
  });
});
afterAll(async () => {
  await fake.close();
});

let h: Harness;
let quietConsole: winston.transport[] = [];
async function start(env: Record<string, string> = {}): Promise<void> {
  h = await startHarness({ fake, env });
  entries.length = 0;
  log.add(capture);
  log.level = "debug";
  quietConsole = log.transports.filter((t) => t !== capture && !t.silent);
  for (const t of quietConsole) t.silent = true;
}
beforeEach(() => fake.reset());
afterEach(async () => {
  for (const t of quietConsole) t.silent = false;
  log.remove(capture);
  log.level = "error";
  await h.close();
});

const errors = () => entries.filter((e) => e.level === "error");
const CANCELLED = "tool call cancelled by the client";
/** The server is done with a cancelled call once it logged either outcome. */
const settled = () => entries.some((e) => e.message === CANCELLED || e.level === "error");

describe("cancellation", () => {
  it("logs a cancelled live call at debug level, never as an error", async () => {
    await start();
    const stop = new AbortController();
    const call = h.client.callTool(
      { name: "pubmed_spell", arguments: { query: "asthmaa" } },
      undefined,
      {
        signal: stop.signal,
      },
    );
    await until(() => fake.requests.length === 1, "the call to reach NCBI");
    stop.abort("the user pressed stop");
    await expect(call).rejects.toThrow();
    await until(settled, "the server to finish the cancelled call");
    expect(errors()).toEqual([]);
    expect(entries.find((e) => e.message === CANCELLED)?.level).toBe("debug");
  });

  it("stops a live call whose client goes away, as a cancel", async () => {
    await start();
    const call = h.client.callTool({ name: "pubmed_spell", arguments: { query: "asthmaa" } });
    await until(() => fake.requests.length === 1, "the call to reach NCBI");
    // Closing the transport ends the session: no notifications/cancelled is ever sent.
    await h.client.close();
    await expect(call).rejects.toThrow();
    // Without the session's signal the call would wait out NCBI's minute or the 20 s deadline
    // and log nothing before this test's generous wait gives up.
    await until(settled, "the server to stop the call", 15_000);
    expect(errors()).toEqual([]);
    expect(entries.find((e) => e.message === CANCELLED)?.level).toBe("debug");
  });

  it("logs a cancelled sync at debug level, never as an error", async () => {
    await start({ EMBEDDINGS_PROVIDER: "hash" });
    fake.route(onUtility("efetch", { body: "", delayMs: SLOW }));
    const stop = new AbortController();
    const call = h.client.callTool(
      { name: "pubmed_sync_delta", arguments: { query_key: "c", term: "long covid" } },
      undefined,
      { signal: stop.signal, timeout: 120_000 },
    );
    await until(
      () => fake.requests.some((r) => r.utility === "efetch"),
      "the sync to fetch",
      90_000,
    );
    stop.abort();
    await expect(call).rejects.toThrow();
    await until(settled, "the server to finish the cancelled sync");
    expect(errors()).toEqual([]);
    expect(entries.some((e) => e.message === CANCELLED)).toBe(true);
    const checkpoint = await callTool(h.client, "corpus_checkpoint_get", { query_key: "c" });
    expect(checkpoint.json).toEqual({
      query_key: "c",
      last_edat: null,
      last_mdat: null,
      last_sync: expect.objectContaining({ status: "failed", pmids_processed: 0 }),
    });
  }, 150_000);
});

describe("deadline", () => {
  it("answers UPSTREAM naming NCBI_DEADLINE_MS, without an error log", async () => {
    await start({ NCBI_DEADLINE_MS: "1500" });
    const out = await callTool(h.client, "pubmed_spell", { query: "asthmaa" });
    expect(out.isError).toBe(true);
    expect((out.json as { error: { code: string; message: string } }).error).toMatchObject({
      code: "UPSTREAM",
      message: expect.stringContaining("NCBI_DEADLINE_MS"),
    });
    expect(errors()).toEqual([]);
  });
});
