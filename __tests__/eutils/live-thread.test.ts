/**
 * The live thread (src/live/live-thread.ts): citations formatted there exactly as on the calling
 * thread, a call's abort honoured whether it waits or is being formatted, a bounded queue, long
 * EFetch replies parsed there with the same articles and errors, a dead thread's work failed or
 * done here (never left waiting), and an idle thread that never keeps the process alive.
 */
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { articleSetXml } from "../../src/devtools/synth-xml.js";
import { CITATION_STYLES, formatCitations } from "../../src/live/citations.js";
import {
  LiveThread,
  MAX_WAITING_CITATIONS,
  PARSE_IN_THREAD_CHARS,
} from "../../src/live/live-thread.js";
import { parseEFetch } from "../../src/ncbi/parse/efetch.js";
import { RateLimitError, UpstreamError } from "../../src/errors.js";
import { REPO_DIR } from "../helpers/paths.js";
import { CHAPTER, EIGHT, GROUP, ONE, THREE, TWO_SPECIAL } from "./cite-fixtures.js";

const STYLES = [...CITATION_STYLES];
const SIX = [ONE, TWO_SPECIAL, THREE, EIGHT, GROUP, CHAPTER];
/** 48 records: long enough that a call is still being formatted when the test acts on it. */
const MANY = Array.from({ length: 8 }, () => SIX).flat();

const corpus = createSynthCorpus({
  seed: 21,
  terms: [{ term: "live", count: 200, edatFrom: "2020-01-01", edatTo: "2024-12-31" }],
});
const LONG_REPLY = articleSetXml(corpus.records(corpus.pmidsFor("live")));

const live = () => new AbortController().signal;
const until = async (ok: () => boolean) => {
  while (!ok()) await new Promise((r) => setTimeout(r, 2));
};

describe("the live thread", () => {
  let thread: LiveThread;
  beforeEach(() => {
    thread = new LiveThread();
  });
  afterEach(() => thread.close());

  it("formats citations in a thread of its own, exactly as formatCitations does here", async () => {
    const out = await thread.formatCitations(SIX, STYLES, live());
    expect(thread.threadId).toBeGreaterThan(0);
    expect(out).toEqual(SIX.map((a) => formatCitations(a, STYLES)));
    // Key order too: the answer is serialised as it comes.
    expect(out.map((f) => Object.keys(f))).toEqual(SIX.map(() => STYLES));
  });

  it("drops a call aborted while it waits, at once; the call being formatted goes on", async () => {
    const first = thread.formatCitations(MANY, STYLES, live());
    const abort = new AbortController();
    const second = thread.formatCitations(SIX, ["apa"], abort.signal);
    expect(thread.waitingCitations).toBe(1);
    abort.abort(new Error("deadline"));
    await expect(second).rejects.toThrow("deadline");
    expect(thread.waitingCitations).toBe(0);
    expect(thread.citing).toBe(true);
    expect(await first).toEqual(MANY.map((a) => formatCitations(a, STYLES)));
  });

  it("rejects a call aborted while formatted at once; the thread stops it and takes the next", async () => {
    const abort = new AbortController();
    const first = thread.formatCitations(MANY, STYLES, abort.signal);
    const next = thread.formatCitations([ONE], ["ris"], live());
    await until(() => thread.citing);
    abort.abort(new Error("cancelled by the client"));
    await expect(first).rejects.toThrow("cancelled by the client");
    expect(await next).toEqual([formatCitations(ONE, ["ris"])]);
  });

  it(`refuses a call beyond ${MAX_WAITING_CITATIONS} waiting with RATE_LIMIT`, async () => {
    const abort = new AbortController();
    const calls = Array.from({ length: MAX_WAITING_CITATIONS + 1 }, () =>
      thread.formatCitations([ONE], ["ris"], abort.signal).catch((e: unknown) => e),
    );
    expect(thread.waitingCitations).toBe(MAX_WAITING_CITATIONS);
    const refused = await thread.formatCitations([ONE], ["ris"], abort.signal).catch((e) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as Error).message).toBe(
      `${MAX_WAITING_CITATIONS} citation calls are already waiting to be formatted; retry in a few seconds.`,
    );
    abort.abort(new Error("done"));
    expect((await Promise.all(calls)).every((e) => e instanceof Error)).toBe(true);
    expect(thread.waitingCitations).toBe(0);
  });

  it("fails the call it was formatting when it dies, says so, and formats the next in a new one", async () => {
    const first = thread.formatCitations(MANY, STYLES, live());
    const waiting = thread.formatCitations([ONE], ["apa"], live());
    await until(() => thread.citing);
    const dead = thread.threadId;
    await thread.crashForTests();
    await expect(first).rejects.toThrow(
      /^The thread that formats citations stopped \(exit code \d+\) before answering; retry the call\.$/,
    );
    expect(await waiting).toEqual([formatCitations(ONE, ["apa"])]);
    expect(thread.threadId).not.toBe(dead);
  });

  it("fails the call being formatted and every waiting one when closed, none left unsettled", async () => {
    const first = thread.formatCitations(MANY, STYLES, live()).catch((e: unknown) => e);
    const waiting = [
      thread.formatCitations([ONE], ["apa"], live()).catch((e: unknown) => e),
      thread.formatCitations([THREE], ["ris"], live()).catch((e: unknown) => e),
    ];
    await until(() => thread.citing);
    expect(thread.waitingCitations).toBe(2);
    await thread.close();
    const messages = (await Promise.all([first, ...waiting])).map((e) => (e as Error).message);
    expect(messages).toEqual([
      "The thread that formats citations was closed before answering; retry the call.",
      "The thread that formats citations was closed before answering; retry the call.",
      "The thread that formats citations was closed before answering; retry the call.",
    ]);
    expect(thread.waitingCitations).toBe(0);
  });

  it("parses a long EFetch reply there as parseEFetch does here; a short one here", async () => {
    expect(LONG_REPLY.length).toBeGreaterThan(PARSE_IN_THREAD_CHARS);
    expect(await thread.parseEFetch(LONG_REPLY)).toEqual(parseEFetch(LONG_REPLY));
    expect(thread.threadId).toBeGreaterThan(0);

    const other = new LiveThread();
    const short = articleSetXml(corpus.records(corpus.pmidsFor("live").slice(0, 2)));
    expect(await other.parseEFetch(short)).toEqual(parseEFetch(short));
    expect(other.threadId).toBeUndefined(); // no thread was started for it
  });

  it("fails a malformed long reply with the error parseEFetch throws, its class kept", async () => {
    const truncated = LONG_REPLY.slice(0, LONG_REPLY.length - 5000);
    const here = (() => {
      try {
        parseEFetch(truncated);
      } catch (err) {
        return err;
      }
    })();
    expect(here).toBeInstanceOf(UpstreamError);
    const there = await thread.parseEFetch(truncated).catch((e: unknown) => e);
    expect(there).toBeInstanceOf(UpstreamError);
    expect(there).toEqual(here);
  });

  it("parses here a reply the thread had when it died", async () => {
    const parsed = thread.parseEFetch(LONG_REPLY);
    await thread.crashForTests();
    expect(await parsed).toEqual(parseEFetch(LONG_REPLY));
  });
});

describe("an idle live thread", () => {
  it("lets the process exit", async () => {
    // A process that formats one citation and has nothing else to do: it ends by itself.
    const script = `
      import { liveThread } from ${JSON.stringify(`${REPO_DIR}/src/live/live-thread.ts`)};
      import { ONE } from ${JSON.stringify(`${REPO_DIR}/__tests__/eutils/cite-fixtures.ts`)};
      const [out] = await liveThread().formatCitations([ONE], ["apa"], new AbortController().signal);
      process.stdout.write(out.apa.slice(0, 9));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "--eval", script],
      { cwd: REPO_DIR, timeout: 60_000 },
    );
    expect(stdout).toBe("Smith, J.");
  }, 90_000);
});
