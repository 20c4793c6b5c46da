/**
 * A sync's EFetch replies prepared in a thread of their own (src/corpus/prepare-thread.ts): the
 * same batch as on the calling thread, a reply the thread cannot prepare fails with the error the
 * calling thread would raise (its class kept), and a thread that died is replaced — no batch is
 * lost and nothing waits forever.
 */
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { prepareBatch } from "../../src/corpus/prepare.js";
import { PrepareThread } from "../../src/corpus/prepare-thread.js";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { articleSetXml } from "../../src/devtools/synth-xml.js";
import { EntrezError, UpstreamError } from "../../src/errors.js";

const NOW = new Date("2026-11-26T00:00:00Z");
const corpus = createSynthCorpus({
  seed: 7,
  terms: [{ term: "prepare", count: 40, edatFrom: "2020-01-01", edatTo: "2024-12-31" }],
});
const records = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i));
const reply = (from: number, to: number) => articleSetXml(records.slice(from, to));

describe("the sync's prepare thread", () => {
  let thread: PrepareThread;
  beforeEach(() => {
    thread = new PrepareThread();
  });
  afterEach(() => thread.close());

  it("prepares a reply exactly as the calling thread does", async () => {
    const body = reply(0, 40);
    const batch = await thread.prepare(body, NOW);
    expect(batch.docs).toHaveLength(40);
    expect(batch.chunks.size).toBe(40);
    expect(batch).toEqual(prepareBatch(body, NOW));
    expect(thread.answered).toBe(1); // the thread's answer, not the fallback's
  });

  it("prepares a reply given as bytes, shared with the thread, as the decoded text", async () => {
    const text = reply(0, 40);
    expect(text).toMatch(/[\u0080-\uffff]/); // characters of more than one byte are in it
    const bytes = new TextEncoder().encode(text);
    const copy = bytes.slice();
    const batch = await thread.prepare(bytes, NOW);
    expect(batch).toEqual(prepareBatch(text, NOW));
    expect(thread.answered).toBe(1);
    expect(bytes).toEqual(copy); // the caller's bytes are untouched, still its own
    expect(bytes.buffer).toBeInstanceOf(ArrayBuffer);
  });

  it("prepares bytes already in shared memory (a sync's replies) as their decoded text", async () => {
    const text = reply(0, 25);
    const encoded = new TextEncoder().encode(text);
    const shared = new Uint8Array(new SharedArrayBuffer(encoded.byteLength));
    shared.set(encoded);
    expect(await thread.prepare(shared, NOW)).toEqual(prepareBatch(text, NOW));
    expect(thread.answered).toBe(1);
    expect(shared).toEqual(encoded); // read, never written
  });

  it("a batch of bytes pending when the thread dies is prepared here, from the same bytes", async () => {
    thread.warm();
    const text = reply(0, 30);
    const pending = thread.prepare(new TextEncoder().encode(text), NOW);
    await thread.crashForTests();
    expect(await pending).toEqual(prepareBatch(text, NOW));
  });

  it("answers a reply that comes while it warms up on made-up records", async () => {
    thread.warm();
    // The thread is started and busy with its warm-up steps (src/corpus/warm-up.ts) by now.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const body = reply(0, 20);
    const batch = await thread.prepare(body, NOW);
    expect(batch).toEqual(prepareBatch(body, NOW));
    expect(batch.docs.map((d) => d.pmid)).toEqual(records.slice(0, 20).map((r) => r.pmid));
    expect(thread.answered).toBe(1);
  });

  it("keeps several replies apart and in their own order", async () => {
    thread.warm();
    const bodies = [reply(0, 10), reply(10, 25), reply(25, 40)];
    const batches = await Promise.all(bodies.map((b) => thread.prepare(b, NOW)));
    expect(batches.map((b) => b.docs.map((d) => d.pmid))).toEqual(
      bodies.map((b) => prepareBatch(b, NOW).docs.map((d) => d.pmid)),
    );
  });

  it("fails a malformed reply with the calling thread's error and class", async () => {
    const broken = reply(0, 2).slice(0, -30);
    const here = (() => {
      try {
        prepareBatch(broken, NOW);
      } catch (err) {
        return err as Error;
      }
      throw new Error("the broken reply parsed");
    })();
    expect(here).toBeInstanceOf(UpstreamError);
    const there: unknown = await thread.prepare(broken, NOW).catch((err: unknown) => err);
    expect(there).toBeInstanceOf(UpstreamError);
    expect((there as Error).message).toBe(here.message);
    // NCBI's own error document keeps its class too.
    const entrez = "<eFetchResult><ERROR>Empty result - nothing todo</ERROR></eFetchResult>";
    await expect(thread.prepare(entrez, NOW)).rejects.toBeInstanceOf(EntrezError);
    // The thread still works after the failures.
    expect((await thread.prepare(reply(0, 3), NOW)).docs).toHaveLength(3);
  });

  it("replaces a thread that died: the next batch is prepared by a new one", async () => {
    await thread.prepare(reply(0, 5), NOW);
    await thread.crashForTests();
    const body = reply(5, 20);
    expect(await thread.prepare(body, NOW)).toEqual(prepareBatch(body, NOW));
    expect(thread.answered).toBe(2);
  });

  it("ends its thread once idle, never with a batch in it, and starts one for the next batch", async () => {
    const idle = new PrepareThread(0);
    try {
      idle.warm(); // an idle thread from now on
      const first = reply(0, 10);
      // Sent before the idle timer fires: the thread stays for it and answers it.
      expect(await idle.prepare(first, NOW)).toEqual(prepareBatch(first, NOW));
      expect(idle.answered).toBe(1);
      while (idle.running) await new Promise((resolve) => setTimeout(resolve, 10));
      const next = reply(10, 20);
      expect(await idle.prepare(next, NOW)).toEqual(prepareBatch(next, NOW));
      expect(idle.answered).toBe(2); // a new thread's answer, not the fallback's
    } finally {
      await idle.close();
    }
    // By default the thread outlives the gaps between a sync's batches.
    await thread.prepare(reply(0, 2), NOW);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(thread.running).toBe(true);
  });

  it("prepares on the calling thread once closed", async () => {
    await thread.close();
    const body = reply(0, 4);
    expect(await thread.prepare(body, NOW)).toEqual(prepareBatch(body, NOW));
    expect(thread.answered).toBe(0);
  });
});
