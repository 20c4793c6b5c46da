/**
 * europepmc_search and pubmed_annotations through the official MCP SDK client against local fakes
 * (reading-harness.ts), on the recorded Europe PMC searches and PubTator3 exports of
 * ../shared/fixtures/literature. Project-written replies, said where used: a Europe PMC last page
 * and a preprint/retraction page (after the Europe PMC REST documentation), small PubTator exports.
 */
import { describe, expect, it, jest } from "@jest/globals";
import { describeLiterature, literatureFixture } from "../helpers/shared.js";
import { envelope, useReadingHarness, type Json } from "./reading-harness.js";

jest.setTimeout(120_000);

const t = useReadingHarness();
const call = t.call;

describeLiterature("europepmc_search on recorded replies", () => {
  it("reads a lite page: hits with ids, flags and the next cursor", async () => {
    const out = await call("europepmc_search", { query: "cancer", pageSize: 25 });
    expect(out.json.hitCount).toBe(5059039);
    expect(out.json.nextCursorMark).toBe("AoIIP4ZawSg1MzEyODI1MA==");
    const results = out.json.results as Json[];
    expect(results).toHaveLength(25);
    expect(results.every((r) => r.source === "MED" && typeof r.id === "string")).toBe(true);
    expect(results.some((r) => r.abstract !== undefined)).toBe(false);
    expect(t.lit.requests[0]?.params).toMatchObject({
      query: "cancer",
      resultType: "lite",
      pageSize: "25",
      cursorMark: "*",
      format: "json",
    });
  });

  it("bounds core abstracts to abstractChars, cut at a word", async () => {
    const out = await call("europepmc_search", {
      query: "cancer",
      resultType: "core",
      abstractChars: 200,
    });
    const abstracts = (out.json.results as Json[]).map((r) => r.abstract as string | undefined);
    const present = abstracts.filter((a): a is string => a !== undefined);
    expect(present.length).toBeGreaterThan(10);
    for (const a of present) expect(a.length).toBeLessThanOrEqual(201);
    expect(present.some((a) => a.endsWith("…"))).toBe(true);
    expect(present.join(" ")).not.toMatch(/<\/?(?:h4|i|sub|p)>/);
  });

  it("pages with cursorMark to the last page (project-written last page, after the docs)", async () => {
    const cursor = "AoIIP4ZawSg1MzEyODI1MA==";
    t.lit.route((req) =>
      req.path === "search" && req.params.cursorMark === cursor
        ? {
            body: JSON.stringify({
              hitCount: 26,
              nextCursorMark: cursor,
              request: { queryString: "cancer", cursorMark: encodeURIComponent(cursor) },
              resultList: { result: [{ id: "26", source: "MED", pmid: "26", title: "Last." }] },
            }),
          }
        : undefined,
    );
    const out = await call("europepmc_search", { query: "cancer", cursorMark: cursor });
    expect(out.json).toEqual({
      hitCount: 26,
      results: [{ source: "MED", id: "26", pmid: "26", title: "Last." }],
    });
    expect(t.lit.requests[0]?.params.cursorMark).toBe(cursor);
  });
});

describe("europepmc_search sources, sort and flags (project-written replies, after the docs)", () => {
  it("restricts to preprints, sorts, and flags preprints and retracted papers", async () => {
    t.lit.route((req) =>
      req.path === "search"
        ? {
            body: JSON.stringify({
              hitCount: 2,
              request: { cursorMark: "*" },
              nextCursorMark: "AoE=",
              resultList: {
                result: [
                  {
                    id: "PPR700001",
                    source: "PPR",
                    title: "A <i>preprint</i>.",
                    pubType: "preprint",
                  },
                  {
                    id: "31000001",
                    source: "MED",
                    pmid: "31000001",
                    title: "Withdrawn work.",
                    pubType: "retracted publication; journal article",
                  },
                ],
              },
            }),
          }
        : undefined,
    );
    const out = await call("europepmc_search", {
      query: "long covid",
      sources: ["PPR", "MED"],
      sort: "cited",
    });
    expect(out.json.results).toEqual([
      { source: "PPR", id: "PPR700001", title: "A preprint.", preprint: true },
      {
        source: "MED",
        id: "31000001",
        pmid: "31000001",
        title: "Withdrawn work.",
        retracted: true,
        notices: [{ type: "retraction" }],
      },
    ]);
    expect(out.json.nextCursorMark).toBe("AoE=");
    expect(t.lit.requests[0]?.params).toMatchObject({
      query: "(long covid) AND (SRC:PPR OR SRC:MED)",
      sort: "CITED desc",
      pageSize: "10",
    });
  });

  it("refuses an unknown source and a page over 100 with VALIDATION, asking nothing", async () => {
    const out = await call("europepmc_search", { query: "x", sources: ["ARXIV"], pageSize: 500 });
    expect(out.isError).toBe(true);
    expect(envelope(out.json).code).toBe("VALIDATION");
    expect(envelope(out.json).message).toMatch(/sources\[0\].*pageSize/s);
    expect(t.lit.requests).toHaveLength(0);
  });

  it("reports an empty body as UPSTREAM naming Europe PMC, after retrying", async () => {
    t.lit.failNext(3, { body: "" }, "europepmc");
    const out = await call("europepmc_search", { query: "empty reply" });
    expect(out.isError).toBe(true);
    expect(envelope(out.json)).toMatchObject({
      code: "UPSTREAM",
      message: expect.stringMatching(/^Europe PMC search failed 3 times/),
    });
    expect(t.lit.requests).toHaveLength(3);
  });
});

describeLiterature("pubmed_annotations on recorded PubTator3 exports", () => {
  const EXPORT_22663011 = "biomcp/testdata/sources/pubtator/export_22663011.json";

  it("groups entities per article with normalised ids, counts and offsets", async () => {
    const out = await call("pubmed_annotations", { pmids: ["22663011", "20516115"] });
    expect(out.isError).toBe(false);
    const [braf, brca] = out.json.articles as Json[];
    expect(braf).toMatchObject({
      pmid: "22663011",
      counts: { Gene: 3, Disease: 7, Chemical: 3, Species: 1, Variant: 2 },
    });
    const entities = braf!.entities as Json[];
    expect(entities).toHaveLength(16);
    expect(entities[0]).toEqual({
      type: "Gene",
      id: "NCBIGene:673",
      name: "BRAF",
      mentions: ["BRAF", "B-RAF"],
      count: 6,
      offsets: [
        [41, 4],
        [132, 5],
        [139, 4],
        [208, 4],
        [525, 4],
        [1957, 4],
      ],
    });
    expect(entities.find((e) => e.name === "Melanoma")).toMatchObject({ id: "MESH:D008545" });
    expect([...new Set(entities.map((e) => e.type))]).toEqual([
      "Gene",
      "Disease",
      "Chemical",
      "Species",
      "Variant",
    ]);
    expect(brca).toMatchObject({ pmid: "20516115", counts: { Gene: 1, Disease: 2, Species: 1 } });
    expect(out.json.notFoundPmids).toBeUndefined();
    expect(t.lit.requests.map((r) => [r.service, r.path, r.params.pmids])).toEqual([
      ["pubtator", "publications/export/biocjson", "22663011,20516115"],
    ]);
  });

  it("filters by type, caps entities, lists PMIDs PubTator lacks, and says when full text is missing", async () => {
    t.lit.route((req) =>
      req.service === "pubtator" && req.params.pmids === "22663011,1"
        ? { body: literatureFixture(EXPORT_22663011) }
        : undefined,
    );
    const out = await call("pubmed_annotations", {
      pmids: "22663011, 1",
      types: ["Gene", "Variant"],
      maxEntities: 3,
      fullText: true,
    });
    const [article] = out.json.articles as Json[];
    expect((article!.entities as Json[]).map((e) => [e.type, e.name])).toEqual([
      ["Gene", "BRAF"],
      ["Gene", "MAP2K7"],
      ["Variant", expect.any(String)],
    ]);
    expect(article!.counts).toEqual({ Gene: 3, Variant: 2 });
    expect(article!.omittedEntities).toBe(2);
    expect(out.json.notFoundPmids).toEqual(["1"]);
    expect(out.json.warnings).toEqual([
      "No full text at PubTator for 22663011: title and abstract only.",
    ]);
    expect(t.lit.requests[0]?.params).toMatchObject({ pmids: "22663011,1", full: "true" });
  });
});

describe("pubmed_annotations limits and failures", () => {
  it("refuses bad PMIDs and more than 100 with VALIDATION, asking nothing", async () => {
    const bad = await call("pubmed_annotations", { pmids: ["22663011", "PMC123"] });
    expect(envelope(bad.json)).toMatchObject({
      code: "VALIDATION",
      message: expect.stringContaining("pmids[1] must be digits"),
    });
    const many = Array.from({ length: 101 }, (_, i) => String(1000 + i));
    const tooMany = await call("pubmed_annotations", { pmids: many });
    expect(envelope(tooMany.json)).toMatchObject({
      code: "VALIDATION",
      message: expect.stringContaining("at most 100 PMIDs"),
    });
    const badType = await call("pubmed_annotations", { pmids: ["1"], types: ["Protein"] });
    expect(envelope(badType.json).code).toBe("VALIDATION");
    expect(t.lit.requests).toHaveLength(0);
  });

  it("turns PubTator's 429s into RATE_LIMIT naming PubTator", async () => {
    t.lit.failNext(3, { status: 429, body: "", headers: { "Retry-After": "0" } }, "pubtator");
    const out = await call("pubmed_annotations", { pmids: ["123456"] });
    expect(out.isError).toBe(true);
    expect(envelope(out.json)).toMatchObject({
      code: "RATE_LIMIT",
      message: expect.stringMatching(/^PubTator export failed 3 times/),
    });
  });

  it("reads an empty export as nothing found", async () => {
    t.lit.route((req) => (req.service === "pubtator" ? { body: "" } : undefined));
    const out = await call("pubmed_annotations", { pmids: ["7654321"] });
    expect(out.json).toEqual({ articles: [], notFoundPmids: ["7654321"] });
  });

  it("lists an article PubTator found nothing in with an empty entities list", async () => {
    const doc = {
      pmid: 7654322,
      passages: [{ infons: { type: "title" }, offset: 0, text: "Nothing here.", annotations: [] }],
    };
    t.lit.route((req) =>
      req.service === "pubtator" ? { body: JSON.stringify({ PubTator3: [doc] }) } : undefined,
    );
    const out = await call("pubmed_annotations", { pmids: ["7654322"] });
    expect(out.json).toEqual({
      articles: [{ pmid: "7654322", title: "Nothing here.", counts: {}, entities: [] }],
    });
  });

  it("keeps to 3 PubTator requests in any second across concurrent calls", async () => {
    t.lit.route((req) => (req.service === "pubtator" ? { body: '{"PubTator3":[]}' } : undefined));
    // Distinct PMIDs, so the response cache answers none of them.
    const pmids = ["2000001", "2000002", "2000003", "2000004", "2000005", "2000006", "2000007"];
    const outs = await Promise.all(pmids.map((p) => call("pubmed_annotations", { pmids: [p] })));
    expect(outs.map((o) => o.json.notFoundPmids)).toEqual(pmids.map((p) => [p]));
    const pubtator = t.lit.requests.filter((r) => r.service === "pubtator");
    expect(pubtator.map((r) => r.params.pmids).sort()).toEqual(pmids);
    // Arrival times carry a little network jitter; the limiter's own window is 1000 ms.
    expect(t.lit.maxInAnyWindow("pubtator", 800)).toBeLessThanOrEqual(3);
  });
});
