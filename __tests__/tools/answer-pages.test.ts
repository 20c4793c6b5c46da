/**
 * Answers within their ceiling (issue 45; docs/configuration.md, "Answer size"): with
 * MCP_MAX_ANSWER_BYTES at its minimum, a tool asked for more than fits pages — the records that
 * fit, in order, and `more` with the arguments of the call for the rest — and following `more`
 * gives every record once; a tool that cannot page refuses with VALIDATION saying what to ask for
 * instead. Through the SDK client, which checks each reply against the advertised outputSchema.
 * Before the ceiling, the same calls answered 60–500 kB.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { DEFAULT_MAX_ANSWER_BYTES, loadConfig } from "../../src/config.js";
import { ValidationError } from "../../src/errors.js";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { startSynthServer, type SynthServer } from "../../src/devtools/synth-server.js";
import { arrayPages, fitAnswer, sameArguments } from "../../src/tools/answer.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";

jest.setTimeout(180_000);

const CEILING = 16_384;
const corpus = demoCorpus();
const ALL = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i));
const PMIDS = ALL.slice(0, 60).map((r) => r.pmid);
const IN_PMC = ALL.filter((r) => r.pmcid !== null).map((r) => r.pmid);

let fake: FakeEutils;
let literature: SynthServer;
let h: Harness;

beforeAll(async () => {
  const synth = synthHandler(corpus);
  fake = await startFakeEutils({ routes: [(req) => synth(req)] });
  literature = await startSynthServer(corpus);
  h = await startHarness({
    fake,
    env: {
      ...literature.env,
      UNPAYWALL_EMAIL: "demo@example.org",
      MCP_MAX_ANSWER_BYTES: String(CEILING),
    },
  });
  await h.client.listTools(); // the SDK client then validates every structuredContent
});
afterAll(async () => {
  await h.close();
  await fake.close();
  await literature.close();
});

type Reply = Record<string, unknown> & { more?: { omitted: number; arguments: object } };

/** Calls `tool` and follows `more` to the end: every page, each checked against the ceiling. */
async function allPages(tool: string, args: object): Promise<Reply[]> {
  const pages: Reply[] = [];
  for (let next: object | undefined = args; next;) {
    const out = await callTool(h.client, tool, next);
    expect({ isError: out.isError, json: out.isError ? out.json : "ok" }).toEqual({
      isError: false,
      json: "ok",
    });
    const text = out.content[0]?.text ?? "";
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(CEILING);
    const reply = out.json as Reply;
    pages.push(reply);
    next = reply.more?.arguments;
    expect(pages.length).toBeLessThan(100);
  }
  return pages;
}

const pmidsIn = (text: string) => [...text.matchAll(/<PMID[^>]*>(\d+)<\/PMID>/g)].map((m) => m[1]);

describe("paged answers", () => {
  it("pubmed_fetch gives every record once, in order, over pages within the ceiling", async () => {
    const pages = await allPages("pubmed_fetch", { pmids: PMIDS });
    expect(pages.length).toBeGreaterThan(2);
    const got = pages.flatMap((p) => (p.articles as { pmid: string }[]).map((a) => a.pmid));
    expect(got).toEqual(PMIDS);
    expect(pages[0]!.more).toEqual({
      omitted: PMIDS.length - (pages[0]!.articles as unknown[]).length,
      arguments: expect.objectContaining({
        pmids: expect.any(Array),
        detailLevel: "abstract_plus",
      }),
    });
    expect(pages.at(-1)!.more).toBeUndefined();
  });

  it("pubmed_fetch cuts NCBI's raw XML between records: each page is a whole PubmedArticleSet", async () => {
    const pages = await allPages("pubmed_fetch", { pmids: PMIDS, detailLevel: "full_xml" });
    expect(pages.length).toBeGreaterThan(2);
    for (const page of pages) {
      const text = page.text as string;
      expect(text).toMatch(/^<\?xml[\s\S]*<PubmedArticleSet>[\s\S]*<\/PubmedArticleSet>\s*$/);
      const opened = text.match(/<PubmedArticle>/g)?.length;
      expect(text.match(/<\/PubmedArticle>/g)?.length).toBe(opened);
    }
    const firstPmids = pages.flatMap((p) =>
      [...(p.text as string).matchAll(/<PubmedArticle>[\s\S]*?<\/PubmedArticle>/g)].map(
        ([record]) => pmidsIn(record)[0],
      ),
    );
    expect(firstPmids).toEqual(PMIDS);
  });

  it("pubmed_fetch cuts MEDLINE text between records", async () => {
    const pages = await allPages("pubmed_fetch", { pmids: PMIDS, detailLevel: "medline_text" });
    expect(pages.length).toBeGreaterThan(1);
    const got = pages.flatMap((p) =>
      [...(p.text as string).matchAll(/^PMID- *(\d+)/gm)].map((m) => m[1]),
    );
    expect(got).toEqual(PMIDS);
  });

  it("pubmed_cite pages by record; pmcids asked for come back as the rest's pmids", async () => {
    const styles = ["ris", "bibtex", "apa", "mla", "vancouver", "csl_json"];
    const records = ALL.filter((r) => r.pmcid !== null).slice(0, 50);
    const pmcids = records.map((r) => r.pmcid!);
    const pages = await allPages("pubmed_cite", { pmcids, styles });
    expect(pages.length).toBeGreaterThan(2);
    const rest = pages[0]!.more!.arguments as Record<string, unknown>;
    expect(rest.pmcids).toBeUndefined();
    expect(rest.pmids).toEqual(records.slice(-(rest.pmids as string[]).length).map((r) => r.pmid));
    const got = pages.flatMap((p) => (p.citations as { pmid: string }[]).map((c) => c.pmid));
    expect(got).toEqual(records.map((r) => r.pmid));
    for (const p of pages) {
      for (const c of p.citations as { formats: object }[])
        expect(Object.keys(c.formats).sort()).toEqual([...styles].sort());
    }
  });

  it("pubmed_fulltext pages by article, asking for the rest by the same kind of id", async () => {
    const ids = IN_PMC.slice(0, 10);
    const pages = await allPages("pubmed_fulltext", { pmids: ids, maxCharacters: 4000 });
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flatMap((p) => (p.results as { id: string }[]).map((r) => r.id))).toEqual(ids);
  });

  it("a tool that cannot page refuses an answer past the ceiling, saying what to ask for", async () => {
    // 10,000 two-byte characters, echoed twice (original and corrected): some 40 kB.
    const out = await callTool(h.client, "pubmed_spell", { query: "é".repeat(10_000) });
    expect(out.isError).toBe(true);
    expect(out.json).toEqual({
      error: {
        code: "VALIDATION",
        message: expect.stringMatching(
          new RegExp(`would be \\d+ bytes, over pubmed_spell's ceiling of ${CEILING} bytes`),
        ),
        details: null,
      },
    });
  });

  it("europepmc_search asks Europe PMC for a page that fits and says so", async () => {
    const out = await callTool(h.client, "europepmc_search", {
      query: "long covid",
      resultType: "core",
      pageSize: 100,
      abstractChars: 5000,
    });
    expect(out.isError).toBe(false);
    expect(Buffer.byteLength(out.content[0]?.text ?? "")).toBeLessThanOrEqual(CEILING);
    const reply = out.json as { results: unknown[]; warnings?: string[] };
    expect(reply.results.length).toBeLessThan(100);
    expect(reply.warnings).toContainEqual(
      expect.stringMatching(/pageSize 100 lowered to \d+: .*MCP_MAX_ANSWER_BYTES/),
    );
  });
});

describe("fitAnswer", () => {
  const paged = {
    name: "t",
    pages: arrayPages("items", (args, omitted) =>
      sameArguments(args, { ids: omitted.map((item) => (item as string).slice(0, 7)) }),
    ),
    narrower: "Ask for fewer ids.",
  };
  const items = Array.from({ length: 50 }, (_, i) => `item-${i}-${"x".repeat(90)}`);

  it("leaves an answer within the ceiling as it is", () => {
    const result = { items: items.slice(0, 3), note: "n" };
    expect(fitAnswer(paged, { ids: [] }, result, 1000)).toEqual({
      value: result,
      text: JSON.stringify(result),
    });
  });

  it("keeps the records that fit, counting the other content blocks too", () => {
    const result = { items, note: "n" };
    const alone = fitAnswer(paged, { ids: items, k: 1 }, result, 2000);
    const beside = fitAnswer(paged, { ids: items, k: 1 }, result, 2000, 1000);
    expect(Buffer.byteLength(alone.text)).toBeLessThanOrEqual(2000);
    expect(Buffer.byteLength(beside.text)).toBeLessThanOrEqual(1000);
    const kept = (alone.value.items as string[]).length;
    expect(kept).toBeGreaterThan((beside.value.items as string[]).length);
    expect(alone.value.more).toEqual({
      omitted: items.length - kept,
      arguments: { ids: items.slice(kept).map((item) => item.slice(0, 7)), k: 1 },
    });
    expect(alone.value.note).toBe("n");
  });

  it("refuses with VALIDATION when no record fits or the tool cannot page", () => {
    const big = { items: ["y".repeat(5000)] };
    expect(() => fitAnswer(paged, {}, big, 1000)).toThrow(ValidationError);
    expect(() => fitAnswer(paged, {}, big, 1000)).toThrow(
      /would be 50\d\d bytes, over t's ceiling of 1000 bytes .*Ask for fewer ids\./,
    );
    expect(() => fitAnswer({ name: "u" }, {}, { items }, 1000)).toThrow(/Ask for less/);
  });

  it("MCP_MAX_ANSWER_BYTES defaults to 256 KiB and is bounded", () => {
    expect(loadConfig({}).maxAnswerBytes).toBe(DEFAULT_MAX_ANSWER_BYTES);
    expect(DEFAULT_MAX_ANSWER_BYTES).toBe(262_144);
    expect(loadConfig({ MCP_MAX_ANSWER_BYTES: "65536" }).maxAnswerBytes).toBe(65_536);
    expect(() => loadConfig({ MCP_MAX_ANSWER_BYTES: "100" })).toThrow(/MCP_MAX_ANSWER_BYTES/);
  });
});
