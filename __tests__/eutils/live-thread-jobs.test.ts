/**
 * JATS full text and trend charts in the live thread (src/live/live-thread.ts, issue 45): a
 * long article is parsed there, not on the calling thread, into the same document parseJats gives
 * here (byte for byte once serialised), its errors of the same class; a short one is parsed in
 * the call; a chart is drawn there byte for byte as renderTrendSvg draws it here; a call's abort
 * rejects it at once and the thread goes on; a dead thread fails the call, never hangs it.
 */
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { jatsArticle } from "../../src/devtools/synth-jats.js";
import { InvariantError, UpstreamError } from "../../src/errors.js";
import { JATS_IN_THREAD_CHARS, LiveThread } from "../../src/live/live-thread.js";
import { parseJats } from "../../src/jats/parse.js";
import { renderTrendSvg, type YearCount } from "../../src/live/chart.js";

const corpus = createSynthCorpus({
  seed: 45,
  terms: [{ term: "jats", count: 40, edatFrom: "2020-01-01", edatTo: "2024-12-31" }],
});
const record = corpus.records(corpus.pmidsFor("jats")).find((r) => r.pmcid !== null)!;

/** The record's article with its body, figures, tables and references repeated `times` times. */
function longArticle(times: number): string {
  const article = jatsArticle(record);
  const repeat = (part: string) =>
    Array.from({ length: times }, (_, i) => part.replace(/ (id|rid)="/g, ` $1="p${i}-`)).join("");
  return article
    .replace(/<body>([\s\S]*)<\/body>/, (_m, body: string) => `<body>${repeat(body)}</body>`)
    .replace(/(<ref-list><title>References<\/title>)([\s\S]*)(<\/ref-list>)/, (_m, a, refs, b) =>
      [a, repeat(refs as string), b].join(""),
    );
}
const LONG = longArticle(150);
/** Front matter only (PMC's reply when the publisher withholds the XML). */
const SHORT = jatsArticle(record, false);

const GROWTH: YearCount[] = Array.from({ length: 50 }, (_, i) => ({
  year: 1975 + i,
  count: Math.round(40 * Math.exp(i / 9)),
}));

const live = () => new AbortController().signal;
const failureOf = async (run: () => unknown): Promise<unknown> => {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
};

/** Counts the turns of this thread's loop until `stop()`: none while it is blocked. */
function loopTurns(): () => number {
  let turns = 0;
  let on = true;
  const tick = () => {
    turns++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return () => ((on = false), turns);
}

describe("JATS and charts in the live thread", () => {
  let thread: LiveThread;
  beforeEach(() => {
    thread = new LiveThread();
  });
  afterEach(() => thread.close());

  it("parses a long article there, the same document as parseJats here; the loop turns meanwhile", async () => {
    expect(LONG.length).toBeGreaterThan(10 * JATS_IN_THREAD_CHARS);
    const turns = loopTurns();
    const there = await thread.parseJats(LONG, "PMC", live());
    expect(turns()).toBeGreaterThan(0);
    expect(thread.threadId).toBeGreaterThan(0);
    const here = parseJats(LONG, "PMC");
    expect(here.articles[0]?.sections.length).toBeGreaterThan(500);
    expect(there).toEqual(here);
    // Key order too: the budgeted article is serialised as it comes.
    expect(JSON.stringify(there)).toBe(JSON.stringify(here));
  });

  it("parses a short article here, within the call, and starts no thread", async () => {
    expect(SHORT.length).toBeLessThan(JATS_IN_THREAD_CHARS);
    const turns = loopTurns();
    const doc = await thread.parseJats(SHORT, "PMC", live());
    expect(turns()).toBe(0);
    expect(thread.threadId).toBeUndefined();
    expect(doc).toEqual(parseJats(SHORT, "PMC"));
    expect(doc.articles[0]?.notFullText?.reason).toBe("no_body");
  });

  it("fails a malformed long article with the error parseJats throws here, its class kept", async () => {
    const truncated = LONG.slice(0, LONG.length - 5000);
    for (const service of ["PMC", "Europe PMC"]) {
      const here = await failureOf(() => parseJats(truncated, service));
      expect(here).toBeInstanceOf(UpstreamError);
      const there = await failureOf(() => thread.parseJats(truncated, service, live()));
      expect(there).toBeInstanceOf(UpstreamError);
      expect(there).toEqual(here);
    }
    const other = `<PubmedArticleSet>${"<!-- padding -->".repeat(1000)}</PubmedArticleSet>`;
    const there = await failureOf(() => thread.parseJats(other, "Europe PMC", live()));
    expect(there).toBeInstanceOf(UpstreamError);
    expect(there).toEqual(await failureOf(() => parseJats(other, "Europe PMC")));
    expect((there as UpstreamError).details).toEqual({
      service: "Europe PMC",
      root: "PubmedArticleSet",
    });
  });

  it("rejects an aborted call at once with the abort's reason; the thread answers the others", async () => {
    const before = new AbortController();
    before.abort(new Error("gone already"));
    await expect(thread.parseJats(LONG, "PMC", before.signal)).rejects.toThrow("gone already");
    expect(thread.threadId).toBeUndefined(); // nothing was sent

    const first = thread.parseJats(LONG, "PMC", live());
    const abort = new AbortController();
    const second = thread.parseJats(LONG, "Europe PMC", abort.signal);
    const chart = new AbortController();
    const third = thread.renderTrendSvg("q", GROWTH, chart.signal);
    abort.abort(new Error("deadline"));
    chart.abort(new Error("cancelled by the client"));
    await expect(second).rejects.toThrow("deadline");
    await expect(third).rejects.toThrow("cancelled by the client");
    expect(await first).toEqual(parseJats(LONG, "PMC"));
    expect(await thread.renderTrendSvg("q", GROWTH, live())).toBe(
      await renderTrendSvg("q", GROWTH),
    );
  });

  it("draws a chart there, byte for byte as renderTrendSvg draws it here", async () => {
    const there = await thread.renderTrendSvg("CRISPR[tiab] AND gene editing", GROWTH);
    expect(thread.threadId).toBeGreaterThan(0);
    expect(there).toBe(await renderTrendSvg("CRISPR[tiab] AND gene editing", GROWTH));
    const single = [{ year: 2020, count: 7 }];
    expect(await thread.renderTrendSvg("rare", single)).toBe(await renderTrendSvg("rare", single));
  });

  it("fails the call it had when it dies, says so, and answers the next in a new thread", async () => {
    const parsing = thread.parseJats(LONG, "PMC", live());
    const drawing = thread.renderTrendSvg("q", GROWTH);
    const dead = thread.threadId;
    await thread.crashForTests();
    const err = await failureOf(() => parsing);
    expect(err).toBeInstanceOf(InvariantError);
    expect((err as Error).message).toMatch(
      /^The thread that reads full text stopped \(exit code \d+\) before answering; retry the call\.$/,
    );
    await expect(drawing).rejects.toThrow(/^The thread that draws charts stopped/);
    expect(await thread.parseJats(LONG, "PMC", live())).toEqual(parseJats(LONG, "PMC"));
    expect(thread.threadId).not.toBe(dead);
  });
});
