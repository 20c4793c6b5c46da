/**
 * The common model mistakes in arguments cost no round trip: PMIDs as numbers, counts and years as
 * digit strings, flags as "true"/"false" are normalised by the schemas, through the official SDK
 * client against the fake NCBI (the offline demo's synthetic corpus) and the embedded store. What
 * cannot be normalised says what is wrong: "must not be empty", "is required", not a JSON object.
 * A parameter named in another case or separator style is taken as the parameter; a name the tool
 * does not have is refused with the names it has (the advertised schema closes every object).
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { z } from "zod";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { ValidationError } from "../../src/errors.js";
import { validateArgs } from "../../src/tools/validate.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";

jest.setTimeout(120_000);

const corpus = demoCorpus();
const TERM = "crispr therapy";
const [P1, P2] = corpus.pmidsFor(TERM).map(Number) as [number, number];

type Err = { error: { code: string; message: string } };

let fake: FakeEutils;
let h: Harness;
beforeAll(async () => {
  const synth = synthHandler(corpus);
  fake = await startFakeEutils({ routes: [(req) => synth(req)] });
  h = await startHarness({ fake, env: { EMBEDDINGS_PROVIDER: "hash" } });
  await h.client.listTools(); // the SDK client validates replies against the output schemas
});
afterAll(async () => {
  await h.close();
  await fake.close();
});

describe("numeric PMIDs, end to end", () => {
  it("pubmed_fetch takes numbers, a single number and a comma-separated string", async () => {
    fake.reset();
    for (const pmids of [[P1, P2], `${P1}, ${P2}`]) {
      const out = await callTool(h.client, "pubmed_fetch", { pmids });
      expect(out.isError).toBe(false);
      const json = out.json as { articles: { pmid: string }[] };
      expect(json.articles.map((a) => a.pmid)).toEqual([String(P1), String(P2)]);
    }
    // Both spellings are the same call: the second is answered from the cache.
    expect(fake.requests.map((r) => r.params.id)).toEqual([`${P1},${P2}`]);
    const one = await callTool(h.client, "pubmed_fetch", { pmids: P1 });
    expect((one.json as { articles: { pmid: string }[] }).articles.map((a) => a.pmid)).toEqual([
      String(P1),
    ]);
  });

  it("pubmed_cite and pubmed_related take numbers", async () => {
    const cite = await callTool(h.client, "pubmed_cite", { pmids: [P1] });
    expect(cite.isError).toBe(false);
    expect((cite.json as { citations: { pmid: string }[] }).citations.map((c) => c.pmid)).toEqual([
      String(P1),
    ]);
    const related = await callTool(h.client, "pubmed_related", { pmid: P1, maxResults: "3" });
    expect(related.isError).toBe(false);
    expect(related.json).toMatchObject({ sourcePmid: String(P1) });
    expect((related.json as { related: unknown[] }).related.length).toBeLessThanOrEqual(3);
  });

  it("rag_get takes a number or bare digits for the doc_id of a synced paper", async () => {
    const sync = await callTool(h.client, "pubmed_sync_delta", {
      query_key: "crispr",
      term: TERM,
      overlap_days: "5",
      max_records: "5",
    });
    expect(sync.json).toMatchObject({ pmids_processed: 5 });
    const stored = (await callTool(h.client, "rag_search", { query: "crispr", top_k: "1" }))
      .json as { results: { doc_id: string }[] };
    const docId = stored.results[0]?.doc_id ?? "";
    const pmid = docId.slice("pmid:".length);
    for (const asGiven of [Number(pmid), pmid, `PMID: ${pmid}`]) {
      const out = await callTool(h.client, "rag_get", { doc_id: asGiven });
      expect({ asGiven, reply: out.json }).toMatchObject({ asGiven, reply: { doc_id: docId } });
    }
  });
});

describe("review record ids", () => {
  it("review_decide takes a bare PMID (a number or digits) and any case of the prefix as pmid:<digits>", async () => {
    const created = await callTool(h.client, "review_create", {
      name: "Normalise: crispr",
      question: "Does CRISPR therapy work?",
    });
    const reviewId = (created.json as { review_id: string }).review_id;
    // reviewId, maxRecords: other spellings of review_id and max_records; a count as digits.
    const added = await callTool(h.client, "review_add", {
      reviewId,
      source: "pubmed",
      term: TERM,
      maxRecords: "4",
    });
    expect(added.json).toMatchObject({ added: 4 });
    const screened = await callTool(h.client, "review_screen", { review_id: reviewId, limit: "4" });
    const ids = (screened.json as { records: { id: string }[] }).records.map((r) => r.id);
    expect(ids).toHaveLength(4);
    const digits = ids.map((id) => /^pmid:(\d+)$/.exec(id)?.[1] ?? "");
    const decide = async (given: unknown[]) =>
      (
        await callTool(h.client, "review_decide", {
          review_id: reviewId,
          decisions: given.map((id) => ({ id, decision: "include" })),
        })
      ).json as { recorded: number; unchanged: number };
    expect(
      await decide([Number(digits[0]), digits[1], `PMID: ${digits[2]}`, ` Pmid:${digits[3]} `]),
    ).toMatchObject({ recorded: 4, unchanged: 0 });
    // The same four records in the canonical spelling: nothing changes.
    expect(await decide(ids)).toMatchObject({ recorded: 0, unchanged: 4 });
  });

  it("says what a record id looks like when it is none", async () => {
    const out = await callTool(h.client, "review_decide", {
      review_id: "rv-ab12cd34",
      decisions: [{ id: "31452104a", decision: "include" }],
    });
    expect((out.json as Err).error).toMatchObject({
      code: "VALIDATION",
      message: expect.stringContaining(
        'decisions[0].id must be a record id from review_screen, e.g. "pmid:31452104"',
      ),
    });
  });
});

describe("numbers and flags as strings", () => {
  it('pubmed_search takes "maxResults": "5" and friends', async () => {
    fake.reset();
    const out = await callTool(h.client, "pubmed_search", {
      query: TERM,
      maxResults: "5",
      offset: " 1 ",
      fetchBriefSummaries: "2",
      dateRange: { minDate: 2019, maxDate: "2025" },
    });
    expect(out.isError).toBe(false);
    const json = out.json as { pmids: string[]; offset: number; briefSummaries: unknown[] };
    expect([json.pmids.length, json.offset, json.briefSummaries.length]).toEqual([5, 1, 2]);
    expect(fake.requests[0]?.params).toMatchObject({
      retmax: "5",
      retstart: "1",
      mindate: "2019",
    });
  });

  it('rag_search takes "quality_bias": "false"; pubmed_trend takes years as strings', async () => {
    const plain = await callTool(h.client, "rag_search", {
      query: "crispr",
      top_k: 3,
      quality_bias: false,
    });
    const asText = await callTool(h.client, "rag_search", {
      query: "crispr",
      top_k: "3",
      quality_bias: "FALSE",
    });
    expect(asText.json).toEqual(plain.json);
    const trend = await callTool(h.client, "pubmed_trend", {
      query: TERM,
      startYear: "2020",
      endYear: "2021",
    });
    expect((trend.json as { counts: { year: number }[] }).counts.map((c) => c.year)).toEqual([
      2020, 2021,
    ]);
  });

  it("pubmed_match_citations takes year, volume and page as numbers", async () => {
    fake.reset();
    const out = await callTool(h.client, "pubmed_match_citations", {
      citations: [{ journal: "j test", year: 1991, volume: 88, firstPage: 3248, key: 1 }],
    });
    expect(out.json).toMatchObject({ results: [{ key: "1" }] });
    expect(fake.requests[0]?.params.bdata).toBe("j test|1991|88|3248||k0|");
  });

  it("still advertises one canonical type per parameter", async () => {
    const { tools } = await h.client.listTools();
    const props = (name: string) =>
      (tools.find((t) => t.name === name)?.inputSchema.properties ?? {}) as Record<
        string,
        { type?: string; items?: { type?: string; pattern?: string }; pattern?: string }
      >;
    expect(props("pubmed_related").pmid).toMatchObject({ type: "string", pattern: "^\\d{1,9}$" });
    expect(props("pubmed_fetch").pmids).toMatchObject({ type: "array", items: { type: "string" } });
    expect(props("pubmed_search").maxResults).toMatchObject({ type: "integer" });
    expect(props("rag_search").quality_bias).toMatchObject({ type: "boolean" });
  });
});

describe("what cannot be normalised says what is wrong", () => {
  it.each([
    ["pubmed_search", { query: "" }, "query must not be empty"],
    ["pubmed_search", { query: "   " }, "query must not be empty"],
    ["pubmed_search", {}, "query is required"],
    ["pubmed_spell", { query: "" }, "query must not be empty"],
    ["rag_get", { doc_id: "" }, "doc_id must not be empty"],
    [
      "corpus_checkpoint_set",
      { query_key: "", last_edat: "" },
      "query_key must not be empty; last_edat must not be empty",
    ],
    ["pubmed_related", { pmid: 12.5 }, "pmid Invalid input: expected string, received number"],
    ["pubmed_search", { query: "x", maxResults: "five" }, "maxResults Invalid input"],
    ["pubmed_fetch", { pmids: "12a" }, 'pmids[0] must be digits, e.g. "31452104"'],
  ])("%s %j → %s", async (tool, args, message) => {
    const out = await callTool(h.client, tool, args);
    expect(out.isError).toBe(true);
    expect((out.json as Err).error).toMatchObject({
      code: "VALIDATION",
      message: expect.stringContaining(`Invalid arguments for ${tool}: ${message}`),
    });
  });

  it("refuses arguments that are not a JSON object, naming what was given", () => {
    const tool = { name: "t", parameters: z.object({ q: z.string().optional() }) };
    expect(validateArgs(tool, undefined)).toEqual({});
    for (const [raw, kind] of [
      [null, "null"],
      [["a"], "an array"],
      ["q=1", "a string"],
      [7, "a number"],
    ] as const) {
      let caught: unknown;
      try {
        validateArgs(tool, raw);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ValidationError);
      expect((caught as Error).message).toBe(
        `Invalid arguments for t: arguments must be a JSON object of named parameters, got ${kind}. See the tool's input schema.`,
      );
    }
  });
});

describe("parameter names", () => {
  it("takes a parameter named in another case or separator style, nested ones too", async () => {
    fake.reset();
    const out = await callTool(h.client, "pubmed_search", {
      query: TERM,
      max_results: 4,
      "Fetch-Brief-Summaries": 1,
      date_range: { min_date: "2019", MaxDate: 2025 },
    });
    expect(out.isError).toBe(false);
    const json = out.json as { pmids: string[]; briefSummaries: unknown[] };
    expect([json.pmids.length, json.briefSummaries.length]).toEqual([4, 1]);
    expect(fake.requests[0]?.params).toMatchObject({
      retmax: "4",
      mindate: "2019",
      maxdate: "2025",
    });
    const cited = await callTool(h.client, "pubmed_match_citations", {
      citations: [{ journal: "j test", year: 1991, volume: 89, first_page: 3249, key: 1 }],
    });
    expect(cited.isError).toBe(false);
    expect(fake.requests.at(-1)?.params.bdata).toBe("j test|1991|89|3249||k0|");
  });

  it.each([
    [
      "rag_search",
      { query: "crispr", k: 3 },
      "k is not a parameter (this tool takes query, top_k, quality_bias, include_uuid)",
    ],
    [
      "pubmed_sync_delta",
      { query: TERM },
      "query is not a parameter (this tool takes query_key, term, overlap_days, max_records); " +
        "query_key is required; term is required",
    ],
    [
      "pubmed_search",
      { query: TERM, dateRange: { min: "2019" } },
      "dateRange.min is not a parameter (dateRange takes minDate, maxDate, dateType)",
    ],
    [
      "pubmed_match_citations",
      { citations: [{ journal: "j", year: 1991, key: "a", page: 1 }] },
      "citations[0].page is not a parameter (citations[0] takes journal, year, volume, firstPage, authorName, key)",
    ],
    [
      "rag_search",
      { query: "crispr", topK: 2, top_k: 3 },
      "topK names top_k, which is given as well; keep one of the two",
    ],
  ])("%s %j → %s", async (tool, args, message) => {
    fake.reset();
    const out = await callTool(h.client, tool, args);
    expect(out.isError).toBe(true);
    expect((out.json as Err).error).toMatchObject({
      code: "VALIDATION",
      message: `Invalid arguments for ${tool}: ${message}. See the tool's input schema.`,
    });
    expect(fake.requests).toEqual([]);
  });

  it("leaves objects that take any key as they are, and reads through wrappers", () => {
    const tool = {
      name: "t",
      parameters: z.object({
        top_k: z.preprocess((v) => v, z.int().optional()),
        filter: z.object({ min_year: z.int() }).optional(),
        items: z.array(z.object({ first_page: z.string() })).default([]),
        extra: z.looseObject({ known: z.string() }).optional(),
      }),
    };
    expect(
      validateArgs(tool, {
        TopK: 2,
        filter: { minYear: 2020 },
        items: [{ firstPage: "12" }],
        extra: { known: "a", anything: 1 },
      }),
    ).toEqual({
      top_k: 2,
      filter: { min_year: 2020 },
      items: [{ first_page: "12" }],
      extra: { known: "a", anything: 1 },
    });
    expect(() => validateArgs(tool, { filter: { min_year: 2020, max: 1 } })).toThrow(
      "Invalid arguments for t: filter.max is not a parameter (filter takes min_year). See the tool's input schema.",
    );
  });
});

describe("control characters", () => {
  it.each([
    ["pubmed_sync_delta", { query_key: "k\u0000", term: TERM }, "query_key", "0000"],
    ["corpus_checkpoint_get", { query_key: "a\u0000b" }, "query_key", "0000"],
    ["rag_search", { query: "crispr\u0007" }, "query", "0007"],
    [
      "pubmed_search",
      { query: "crispr", publicationTypes: ["Review\u001b"] },
      "publicationTypes[0]",
      "001B",
    ],
  ])(
    "%s rejects a control character as VALIDATION before NCBI or the store sees it",
    async (tool, args, path, code) => {
      fake.reset();
      const out = await callTool(h.client, tool, args);
      expect(out.isError).toBe(true);
      const { error } = out.json as Err;
      expect(error.code).toBe("VALIDATION");
      expect(error.message).toContain(`${path} contains the control character U+${code}`);
      expect(fake.requests).toEqual([]);
    },
  );

  it("keeps tabs and line breaks, which queries pasted from elsewhere carry", async () => {
    const out = await callTool(h.client, "rag_search", { query: "crispr\ttherapy\r\n" });
    expect(out.isError).toBe(false);
  });
});
