/**
 * The seven live tools through a real MCP client, against the fake E-utilities server serving
 * real recorded NCBI replies from ../shared (and project-written replies where none exist).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  fixtureReply,
  onUtility,
  startFakeEutils,
  type FakeEutils,
} from "../helpers/fake-eutils.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";
import { EUTILS_FIXTURES, describeShared, eutilsFixture } from "../helpers/shared.js";

const SECRET = "SECRET-KEY-123";

/** An EFetch reply holding the recorded metapub records of the requested PMIDs (unknown ids omitted, as NCBI does). */
function efetchFromMetapub(ids: string[]): string {
  const articles = ids
    .filter((id) => existsSync(join(EUTILS_FIXTURES, "metapub", "pmid_xml", `${id}.xml`)))
    .map((id) => {
      const xml = eutilsFixture(`metapub/pmid_xml/${id}.xml`);
      return /<PubmedArticle>[\s\S]*<\/PubmedArticle>/.exec(xml)?.[0] ?? "";
    });
  return `<?xml version="1.0" ?>\n<PubmedArticleSet>${articles.join("\n")}</PubmedArticleSet>`;
}

/** Project-written ESummary v2.0 for any ids, titled after the id so tests can tell them apart. */
function esummaryFor(ids: string[]): string {
  const docs = ids.map(
    (id) =>
      `<DocumentSummary uid="${id}"><PubDate>2020 Jan</PubDate><Source>J Test</Source>` +
      `<Authors><Author><Name>Doe J</Name></Author></Authors><Title>Title of ${id}</Title></DocumentSummary>`,
  );
  return `<eSummaryResult><DocumentSummarySet status="OK">${docs.join("")}</DocumentSummarySet></eSummaryResult>`;
}

describeShared("live PubMed tools", () => {
  let fake: FakeEutils;
  let h: Harness;

  beforeAll(async () => {
    fake = await startFakeEutils({
      routes: [
        onUtility("esearch", fixtureReply("Eutils-JSON/samples/esearch.pubmed.xml")),
        onUtility("esummary", (req) => ({ body: esummaryFor(req.params.id?.split(",") ?? []) })),
        onUtility("efetch", (req) =>
          req.params.retmode === "text"
            ? { body: eutilsFixture("biopython/Medline/pubmed_result1.txt") }
            : { body: efetchFromMetapub(req.params.id?.split(",") ?? []) },
        ),
        onUtility("elink", fixtureReply("metapub/sample_related_pmids_result.xml")),
        onUtility("espell", fixtureReply("biopython/Entrez/espell.xml")),
      ],
    });
    h = await startHarness({ fake, env: { NCBI_API_KEY: SECRET, NCBI_EMAIL: "dev@example.org" } });
  });
  afterAll(async () => {
    await h.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  describe("pubmed_search", () => {
    it("returns counts, PMIDs and the translation from ESearch, with NCBI identification", async () => {
      const out = await callTool(h.client, "pubmed_search", {
        query: "cancer",
        maxResults: 100,
        dateRange: { minDate: "2012/10/01", dateType: "edat" },
      });
      expect(out.isError).toBe(false);
      const json = out.json as Record<string, unknown>;
      expect(json).toMatchObject({ effectiveQuery: "cancer", totalFound: 15169, offset: 0 });
      expect((json.pmids as string[]).slice(0, 3)).toEqual(["23175848", "23175808", "23175797"]);
      expect(json.pmids).toHaveLength(100);
      expect(json.briefSummaries).toEqual([]);
      expect(out.structuredContent).toEqual(json);
      const [req] = fake.requests;
      expect(req?.params).toMatchObject({
        db: "pubmed",
        term: "cancer",
        retmax: "100",
        datetype: "edat",
        mindate: "2012/10/01",
        maxdate: "3000",
        tool: "pubmed-mcp",
        email: "dev@example.org",
        api_key: SECRET,
      });
      expect(json.eSearchUrl).toMatch(/esearch\.fcgi\?.*term=cancer/);
      expect(JSON.stringify(json)).not.toContain(SECRET);
    });

    it("adds publication-type filters and fetches brief summaries of the first hits", async () => {
      const out = await callTool(h.client, "pubmed_search", {
        query: "cancer",
        publicationTypes: ["Randomized Controlled Trial", "Meta-Analysis"],
        fetchBriefSummaries: 2,
        sort: "pub_date",
      });
      const json = out.json as { effectiveQuery: string; briefSummaries: unknown[] };
      expect(json.effectiveQuery).toBe(
        '(cancer) AND ("Randomized Controlled Trial"[Publication Type] OR "Meta-Analysis"[Publication Type])',
      );
      expect(json.briefSummaries).toEqual([
        {
          pmid: "23175848",
          title: "Title of 23175848",
          authors: ["Doe J"],
          source: "J Test",
          pubDate: "2020-01", // ESummary's "2020 Jan", as ISO-8601
          doi: null,
        },
        {
          pmid: "23175808",
          title: "Title of 23175808",
          authors: ["Doe J"],
          source: "J Test",
          pubDate: "2020-01", // ESummary's "2020 Jan", as ISO-8601
          doi: null,
        },
      ]);
      expect(fake.requests.map((r) => r.utility)).toEqual(["esearch", "esummary"]);
      expect(fake.requests[0]?.params.sort).toBe("pub_date");
      expect(fake.requests[1]?.params).toMatchObject({ id: "23175848,23175808", version: "2.0" });
    });

    it.each([
      [{ query: "" }, "query"],
      [{ query: "x", maxResults: 0 }, "maxResults"],
      [{ query: "x", offset: 9990, maxResults: 20 }, "offset + maxResults must be at most 10,000"],
      [{ query: "x", dateRange: { minDate: "2020-01-01" } }, "dateRange.minDate must be YYYY"],
      [
        { query: "x", dateRange: { minDate: "2021", maxDate: "2020" } },
        "minDate must not be after maxDate",
      ],
      [{ query: "x", sort: "newest" }, "sort"],
    ])("rejects %j with a VALIDATION result naming the problem", async (args, fragment) => {
      const out = await callTool(h.client, "pubmed_search", args);
      expect(out.isError).toBe(true);
      const err = (out.json as { error: { code: string; message: string } }).error;
      expect(err.code).toBe("VALIDATION");
      expect(err.message).toContain(fragment);
      expect(fake.requests).toHaveLength(0);
    });

    it("treats empty optional strings as absent", async () => {
      const out = await callTool(h.client, "pubmed_search", {
        query: "cancer",
        dateRange: { minDate: "", maxDate: "", dateType: "pdat" },
      });
      expect(out.isError).toBe(false);
      expect(fake.requests[0]?.params.mindate).toBeUndefined();
    });
  });

  describe("pubmed_fetch", () => {
    it("parses records and lists PMIDs with no record", async () => {
      const out = await callTool(h.client, "pubmed_fetch", { pmids: ["38700094", "99999999"] });
      expect(out.isError).toBe(false);
      const json = out.json as {
        articles: Record<string, unknown>[];
        notFoundPmids: string[];
        eFetchDetails: { urls: string[]; requestMethod: string };
      };
      expect(json.notFoundPmids).toEqual(["99999999"]);
      expect(json.articles).toHaveLength(1);
      expect(json.articles[0]).toMatchObject({
        pmid: "38700094",
        title: "Antiarrhythmic drugs in the era of atrial fibrillation ablation.",
        doi: "10.1093/europace/euae122",
        journalInfo: expect.objectContaining({ volume: "26", issue: "6" }),
      });
      // Grants were not asked for and the record has no abstract: neither key is there at all.
      expect(Object.keys(json.articles[0] ?? {})).toEqual(
        expect.not.arrayContaining(["grantList", "abstractText", "abstractSections"]),
      );
      expect(
        (json.articles[0]?.authors as { lastName: string }[]).map((a) => a.lastName).slice(0, 2),
      ).toEqual(["Boriani", "Mei"]);
      expect(json.eFetchDetails.requestMethod).toBe("GET");
      expect(json.eFetchDetails.urls[0]).not.toContain(SECRET);
      expect(fake.requests[0]?.params).toMatchObject({
        db: "pubmed",
        id: "38700094,99999999",
        retmode: "xml",
      });
    });

    it("leaves out empty fields, gives an unstructured abstract once and dates in ISO-8601", async () => {
      // 25364329: unstructured abstract, no MeSH, no ORCIDs; 31588070: a structured abstract.
      const out = await callTool(h.client, "pubmed_fetch", {
        pmids: ["25364329", "31588070"],
        includeGrantInfo: true,
      });
      const json = out.json as { articles: Record<string, unknown>[] };
      const [plain, structured] = json.articles;
      const empties: string[] = [];
      const walk = (v: unknown, path: string) => {
        if (v === null || v === "" || (Array.isArray(v) && v.length === 0)) empties.push(path);
        else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
        else if (typeof v === "object" && v) {
          if (Object.keys(v).length === 0) empties.push(path);
          for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
        }
      };
      walk(json, "$");
      expect(empties).toEqual([]);
      expect(plain).toMatchObject({
        pmid: "25364329",
        abstractText: expect.stringMatching(/^Study Design Case report/),
        journalInfo: expect.objectContaining({ publicationDate: { year: "2014", month: "10" } }),
        articleDates: {
          edat: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
          pubmed: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
          lr: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
        },
      });
      expect(plain).not.toHaveProperty("abstractSections");
      expect(plain).not.toHaveProperty("meshTerms");
      expect((plain?.authors as object[])[0]).toEqual({
        lastName: "Santiago-Dieppa",
        firstName: "David R",
        initials: "DR",
        affiliations: [
          "Department of Neurosurgery, The Johns Hopkins University School of Medicine, Baltimore, Maryland, United States.",
        ],
      });
      expect(structured).toMatchObject({
        pmid: "31588070",
        articleDates: { edat: "2019-10-08T06:00:00Z", lr: "2024-03-28" },
      });
      expect((structured?.abstractSections as { label: string }[]).map((s) => s.label)).toEqual([
        "PURPOSE",
        "METHODS",
        "RESULTS",
        "CONCLUSIONS",
      ]);
    });

    it("answers a repeat from the cached parse: no NCBI request, the same result", async () => {
      const args = { pmids: ["32051057", "24349601", "99999998"], includeMeshTerms: true };
      const first = await callTool(h.client, "pubmed_fetch", args);
      const second = await callTool(h.client, "pubmed_fetch", args);
      const citation = await callTool(h.client, "pubmed_fetch", {
        ...args,
        detailLevel: "citation_data",
      });
      const xml = await callTool(h.client, "pubmed_fetch", { ...args, detailLevel: "full_xml" });
      expect(fake.requests).toHaveLength(1);
      expect(first.isError).toBe(false);
      expect(second.json).toEqual(first.json);
      expect(first.json).toMatchObject({ notFoundPmids: ["99999998"] });
      const articles = (first.json as { articles: Record<string, unknown>[] }).articles;
      expect(articles.map((a) => a.pmid)).toEqual(["32051057", "24349601"]);
      expect(articles.some((a) => "meshTerms" in a)).toBe(true);
      // The other detail levels read the same entry as they did before: the parse or the body.
      const cited = (citation.json as { articles: Record<string, unknown>[] }).articles;
      expect(cited.map((a) => a.pmid)).toEqual(["32051057", "24349601"]);
      expect(cited.every((a) => !("abstractText" in a) && !("meshTerms" in a))).toBe(true);
      expect((xml.json as { text: string }).text).toBe(efetchFromMetapub(args.pmids));
    });

    it("returns NCBI's raw text for medline_text", async () => {
      const out = await callTool(h.client, "pubmed_fetch", {
        pmids: ["12091962"],
        detailLevel: "medline_text",
      });
      expect(out.json).toMatchObject({
        detailLevel: "medline_text",
        text: eutilsFixture("biopython/Medline/pubmed_result1.txt"),
      });
      expect(fake.requests[0]?.params).toMatchObject({ rettype: "medline", retmode: "text" });
    });

    it.each([
      [{ pmids: ["12a"] }, 'pmids[0] must be digits, e.g. "31452104"'],
      [{ pmids: [] }, "pmids must list at least one PMID"],
      [{ pmids: Array.from({ length: 201 }, (_, i) => String(i + 1)) }, "at most 200"],
      [{}, "give either pmids or both webEnv and queryKey"],
    ])("rejects %j", async (args, fragment) => {
      const out = await callTool(h.client, "pubmed_fetch", args);
      expect(out.isError).toBe(true);
      expect((out.json as { error: { code: string; message: string } }).error).toMatchObject({
        code: "VALIDATION",
        message: expect.stringContaining(fragment),
      });
    });
  });

  describe("pubmed_related", () => {
    it("follows ELink neighbours, leaving out the article itself", async () => {
      const out = await callTool(h.client, "pubmed_related", { pmid: "14873513", maxResults: 3 });
      const json = out.json as {
        sourcePmid: string;
        totalFound: number;
        related: { pmid: string; title: string; score: number | null }[];
      };
      expect(json.sourcePmid).toBe("14873513");
      expect(json.related.map((r) => r.pmid)).toEqual(["16450204", "18567069", "16086807"]);
      expect(json.related[0]).toMatchObject({ title: "Title of 16450204", score: null });
      expect(json.related.map((r) => r.pmid)).not.toContain("14873513");
      expect(fake.requests[0]?.params).toMatchObject({
        dbfrom: "pubmed",
        linkname: "pubmed_pubmed",
        cmd: "neighbor_score",
      });
    });
  });

  describe("pubmed_cite", () => {
    it("formats the fetched record in each requested style", async () => {
      const out = await callTool(h.client, "pubmed_cite", {
        pmids: ["38700094", "99999999"],
        styles: ["ris", "apa", "csl_json"],
      });
      const json = out.json as {
        citations: { pmid: string; formats: Record<string, string> }[];
        notFoundPmids: string[];
      };
      expect(json.notFoundPmids).toEqual(["99999999"]);
      expect(json.citations.map((c) => c.pmid)).toEqual(["38700094"]);
      const formats = json.citations[0]?.formats ?? {};
      expect(Object.keys(formats).sort()).toEqual(["apa", "csl_json", "ris"]);
      expect(formats.ris).toMatch(/^TY {2}- JOUR/);
      expect(formats.ris).toContain("DO  - 10.1093/europace/euae122");
      expect(formats.apa).toContain(
        "Antiarrhythmic drugs in the era of atrial fibrillation ablation",
      );
      expect(JSON.parse(formats.csl_json ?? "{}")).toMatchObject({
        DOI: "10.1093/europace/euae122",
        volume: "26",
        issue: "6",
      });
    });
  });

  describe("pubmed_spell", () => {
    it("returns ESpell's correction", async () => {
      const out = await callTool(h.client, "pubmed_spell", { query: "biopythooon" });
      expect(out.json).toEqual({
        original: "biopythooon",
        corrected: "biopython",
        hasSuggestion: true,
      });
    });
  });

  describe("pubmed_match_citations", () => {
    it("maps ECitMatch answers to matched / not_found / ambiguous per key", async () => {
      fake.route(
        onUtility("ecitmatch", (req) => ({
          contentType: "text/plain",
          body: (req.params.bdata ?? "")
            .split("\r")
            .filter(Boolean)
            .map((line) => {
              const key = line.split("|")[5];
              const answer =
                key === "k0" ? "1937004" : key === "k1" ? "NOT_FOUND" : "AMBIGUOUS 1 citations";
              return `${line}${answer}`;
            })
            .join("\n"),
        })),
      );
      const base = {
        journal: "proc natl acad sci u s a",
        year: "1991",
        volume: "88",
        firstPage: "3248",
        authorName: "mann bj",
      };
      const out = await callTool(h.client, "pubmed_match_citations", {
        citations: [
          { ...base, key: "a" },
          { ...base, key: "b|x" },
          { ...base, key: " c " },
        ],
      });
      expect(out.json).toEqual({
        results: [
          { key: "a", pmid: "1937004", status: "matched" },
          { key: "b|x", pmid: null, status: "not_found" },
          { key: "c", pmid: null, status: "ambiguous" },
        ],
      });
      expect(fake.requests[0]?.params.bdata).toBe(
        "proc natl acad sci u s a|1991|88|3248|mann bj|k0|\rproc natl acad sci u s a|1991|88|3248|mann bj|k1|\rproc natl acad sci u s a|1991|88|3248|mann bj|k2|",
      );
    });
    it("reaches NCBI at the documented ecitmatch.cgi (the fake answers 404 anywhere else)", async () => {
      fake.route(
        onUtility("ecitmatch", { contentType: "text/plain", body: "j|1991|88|1|a|k0|1937004\n" }),
      );
      const out = await callTool(h.client, "pubmed_match_citations", {
        citations: [
          { journal: "j", year: "1991", volume: "88", firstPage: "1", authorName: "a", key: "x" },
        ],
      });
      expect(out.json).toEqual({ results: [{ key: "x", pmid: "1937004", status: "matched" }] });
      expect(fake.requests.map((r) => r.utility)).toEqual(["ecitmatch"]);
    });

    it("answers UPSTREAM, not an empty OK, when NCBI replies 200 with an empty body", async () => {
      // Another citation than the test before, so the reply cannot come from the response cache.
      fake.route(onUtility("ecitmatch", { contentType: "text/plain", body: "" }));
      const out = await callTool(h.client, "pubmed_match_citations", {
        citations: [{ journal: "j", year: "1991", volume: "89", firstPage: "1", authorName: "a" }],
      });
      expect(out.isError).toBe(true);
      expect(out.json).toMatchObject({ error: { code: "UPSTREAM" } });
      expect(JSON.stringify(out.json)).toMatch(/empty reply/);
    });
  });

  describe("pubmed_trend", () => {
    it("counts per year through ESearch and returns text then an SVG image", async () => {
      fake.route(
        onUtility("esearch", (req) => ({
          body: `<eSearchResult><Count>${Number(req.params.mindate) - 2000}</Count><RetMax>0</RetMax><RetStart>0</RetStart><IdList/></eSearchResult>`,
        })),
      );
      const out = await callTool(h.client, "pubmed_trend", {
        query: "long covid",
        startYear: 2019,
        endYear: 2022,
      });
      expect(out.isError).toBe(false);
      expect(out.content.map((c) => [c.type, c.mimeType])).toEqual([
        ["text", undefined],
        ["image", "image/svg+xml"],
      ]);
      expect(out.json).toEqual({
        query: "long covid",
        counts: [
          { year: 2019, count: 19 },
          { year: 2020, count: 20 },
          { year: 2021, count: 21 },
          { year: 2022, count: 22 },
        ],
      });
      const svg = Buffer.from(out.content[1]?.data ?? "", "base64").toString("utf8");
      expect(svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(svg).toContain("Publications");
      expect(
        fake.requests.every(
          (r) => r.params.rettype === "count" && r.params.mindate === r.params.maxdate,
        ),
      ).toBe(true);
    });

    it("rejects spans over 50 years", async () => {
      const out = await callTool(h.client, "pubmed_trend", {
        query: "x",
        startYear: 1900,
        endYear: 2000,
      });
      expect((out.json as { error: { code: string; message: string } }).error).toMatchObject({
        code: "VALIDATION",
        message: expect.stringContaining("at most 50 years"),
      });
    });
  });

  describe("NCBI failures become typed tool errors", () => {
    it("maps exhausted 5xx retries to UPSTREAM", async () => {
      fake.failNext(10, { status: 503, body: "busy" });
      const out = await callTool(h.client, "pubmed_spell", { query: "asthma" });
      expect(out.isError).toBe(true);
      expect((out.json as { error: { code: string } }).error.code).toBe("UPSTREAM");
      expect(fake.requests).toHaveLength(3); // NCBI_MAX_RETRIES=2 in the harness
    });

    it("maps an <ERROR> reply to ENTREZ without retrying", async () => {
      fake.failNext(1, fixtureReply("Eutils-JSON/samples/esearch.baderror.xml"));
      const out = await callTool(h.client, "pubmed_search", { query: "cat" });
      const err = (out.json as { error: { code: string; message: string } }).error;
      expect(err.code).toBe("ENTREZ");
      expect(err.message).toContain("Invalid db name");
      expect(fake.requests).toHaveLength(1);
    });

    it("maps the rate-limit body to RATE_LIMIT when retries run out, never leaking the key", async () => {
      fake.failNext(10, {
        status: 429,
        body: '{"error":"API rate limit exceeded","count":"11"}',
        headers: { "Retry-After": "0" },
      });
      const out = await callTool(h.client, "pubmed_spell", { query: "asthma" });
      expect((out.json as { error: { code: string } }).error.code).toBe("RATE_LIMIT");
      expect(JSON.stringify(out.json)).not.toContain(SECRET);
    });
  });
});
