/**
 * Integrity notices on the live tools' records, read from PubMed and Europe PMC, through the
 * official MCP client: pubmed_fetch (EFetch CommentsCorrections with their RefSource dates,
 * publication types, a notice and the record it is about in one answer), pubmed_search (ESummary
 * v2.0 PubType and References) and europepmc_search (pubTypeList, commentCorrectionList). Crossref
 * is not configured here (__tests__/trust/crossref.test.ts covers it). The records are recorded
 * replies with notice links inserted (./notice-records.ts says what).
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { parseESummary } from "../../src/ncbi/parse/esummary.js";
import { noticesFromArticle } from "../../src/ncbi/notices.js";
import { onUtility, recordedEfetchRoute, startFakeEutils } from "../helpers/fake-eutils.js";
import type { FakeEutils } from "../helpers/fake-eutils.js";
import { startFakeLiterature, type FakeLiterature } from "../helpers/fake-literature.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";
import { describeShared, HAS_LITERATURE } from "../helpers/shared.js";
import { efetchRecord, esearchReply, esummaryReply, europePmcReply } from "./notice-records.js";

jest.setTimeout(120_000);

interface Article {
  pmid: string;
  isRetracted: boolean;
  notices?: unknown[];
}

describeShared("notices on live PubMed and Europe PMC records", () => {
  let fake: FakeEutils;
  let lit: FakeLiterature;
  let h: Harness;

  beforeAll(async () => {
    const records = new Map([
      // RetractionIn (a day-precise RefSource), ErratumIn, ExpressionOfConcernIn (a RefSource
      // with the notice's DOI) and the "Retracted Publication" type the retraction also sets.
      [
        "27797938",
        efetchRecord("27797938", "10.1136/gutjnl-2016-312510", {
          links: [
            { refType: "RetractionIn", refSource: "Gut. 2019 Mar 5;68(3):560", pmid: "31000001" },
            { refType: "ErratumIn", refSource: "Gut. 2018 Jan;67(1):200", pmid: "31000002" },
            {
              refType: "ExpressionOfConcernIn",
              refSource: "Gut. 2018 Nov;67(11):2000. doi: 10.1136/gutjnl-2018-eoc.",
              pmid: "31000003",
            },
          ],
          types: ["Retracted Publication"],
        }),
      ],
      // "Retracted Publication" alone: no link names the notice.
      [
        "27797939",
        efetchRecord("27797939", "10.1136/gutjnl-2016-000002", {
          types: ["Retracted Publication"],
        }),
      ],
      // A retraction notice (Gut 2017 Jun) and the record it retracts, which does not link back.
      [
        "31000010",
        efetchRecord("31000010", "10.1136/gutjnl-2017-notice", {
          links: [{ refType: "RetractionOf", refSource: "Gut. 2016;65:1", pmid: "27797940" }],
          types: ["Retraction of Publication"],
        }),
      ],
      ["27797940", efetchRecord("27797940", "10.1136/gutjnl-2016-000003")],
    ]);
    fake = await startFakeEutils({
      routes: [
        recordedEfetchRoute(records),
        onUtility("esearch", { body: esearchReply(["5683731", "22144687"]) }),
        onUtility("esummary", {
          body: esummaryReply({
            // Retracted, corrected, under concern; its retraction notice is the next summary.
            "5683731": {
              flags: ["Retracted Publication"],
              refs: [
                {
                  refType: "Retraction in",
                  refSource: "Nucleic Acids Res. 2012 Jan 5;40:D1",
                  pmid: "22144687",
                },
                {
                  refType: "Erratum in",
                  refSource: "Paraplegia. 1968 Nov;6(3):170",
                  pmid: "5700002",
                },
                { refType: "Expression of concern in", refSource: "Paraplegia. 1968 Oct;6(2):1" },
                { refType: "Comment in", refSource: "Paraplegia. 1969;7:1", pmid: "5700004" },
              ],
            },
            "22144687": {
              flags: ["Retraction of Publication"],
              refs: [
                {
                  refType: "Retraction of",
                  refSource: "Paraplegia. 1968 Aug;6(2):103-5",
                  pmid: "5683731",
                },
              ],
            },
          }),
        }),
      ],
    });
    lit = await startFakeLiterature({
      routes: [
        (req) =>
          req.service === "europepmc" && req.path === "search"
            ? {
                contentType: "application/json",
                body: europePmcReply(
                  ["Journal Article", "Retracted Publication"],
                  [
                    {
                      type: "Retraction in",
                      id: "39900001",
                      source: "MED",
                      reference:
                        "Lancet. 2025 Feb 1;405(10476):370. doi: 10.1016/S0140-6736(25)00001-1.",
                    },
                    {
                      type: "Erratum in",
                      id: "PPR900001",
                      source: "PPR",
                      reference: "Lancet. 2025 Jan;405:10",
                    },
                    {
                      type: "Comment in",
                      id: "39900003",
                      source: "MED",
                      reference: "Lancet. 2025;405:1",
                    },
                  ],
                ),
              }
            : undefined,
      ],
    });
    h = await startHarness({ fake, env: lit.env });
  });
  afterAll(async () => {
    await h?.close();
    await fake?.close();
    await lit?.close();
  });

  it("pubmed_fetch: RetractionIn with its RefSource date, ErratumIn, ExpressionOfConcernIn; the type alone", async () => {
    const out = await callTool(h.client, "pubmed_fetch", { pmids: ["27797938", "27797939"] });
    expect(out.json).not.toHaveProperty("error");
    const [first, second] = (out.json as { articles: Article[] }).articles;
    expect(first?.isRetracted).toBe(true);
    expect(first?.notices).toEqual([
      { type: "retraction", notice_pmid: "31000001", date: "2019-03-05" },
      { type: "correction", notice_pmid: "31000002", date: "2018-01" },
      {
        type: "expression_of_concern",
        notice_pmid: "31000003",
        notice_doi: "10.1136/gutjnl-2018-eoc",
        date: "2018-11",
      },
    ]);
    expect(second?.notices).toEqual([{ type: "retraction" }]);
    expect(out.json).not.toHaveProperty("warnings");
  });

  it("pubmed_fetch: a notice and the record it is about in one answer", async () => {
    const out = await callTool(h.client, "pubmed_fetch", { pmids: ["31000010", "27797940"] });
    const articles = (out.json as { articles: Article[] }).articles;
    const target = articles.find((a) => a.pmid === "27797940");
    expect(target?.notices).toEqual([
      {
        type: "retraction",
        notice_pmid: "31000010",
        notice_doi: "10.1136/gutjnl-2017-notice",
        date: "2017-06",
      },
    ]);
    // The notice itself is no retracted record: absent means none known.
    expect(articles.find((a) => a.pmid === "31000010")).not.toHaveProperty("notices");
  });

  it("pubmed_fetch: the record alone has no notice (its notice is not in the answer)", async () => {
    const out = await callTool(h.client, "pubmed_fetch", { pmids: ["27797940"] });
    expect((out.json as { articles: Article[] }).articles[0]).not.toHaveProperty("notices");
  });

  it("pubmed_search: brief summaries carry notices from ESummary's PubType and References", async () => {
    const out = await callTool(h.client, "pubmed_search", {
      query: "smoking",
      fetchBriefSummaries: 2,
    });
    expect(out.json).not.toHaveProperty("error");
    const json = out.json as { briefSummaries: Record<string, unknown>[]; warnings: string[] };
    expect(json.briefSummaries[0]).toEqual({
      pmid: "5683731",
      title: "An assistive device for smoking.",
      authors: ["Goldberg MJ", "Davis LJ"],
      source: "Paraplegia",
      pubDate: "1968-08",
      doi: "10.1038/sc.1968.18",
      notices: [
        // Its own "Retraction in" and the notice among the summaries pointing back: one event.
        {
          type: "retraction",
          notice_pmid: "22144687",
          notice_doi: "10.1093/nar/gkr1202",
          date: "2012-01-05",
        },
        { type: "correction", notice_pmid: "5700002", date: "1968-11" },
        { type: "expression_of_concern", date: "1968-10" },
      ],
    });
    // The notice summary is none of these; internal fields never reach the answer.
    expect(json.briefSummaries[1]).not.toHaveProperty("notices");
    expect(json.briefSummaries[1]).not.toHaveProperty("references");
    expect(json.briefSummaries[1]).not.toHaveProperty("publicationTypes");
    expect(json.warnings).toEqual([]);
  });

  (HAS_LITERATURE ? it : it.skip)(
    "europepmc_search: notices from pubTypeList and commentCorrectionList, flags kept",
    async () => {
      const out = await callTool(h.client, "europepmc_search", {
        query: "cancer",
        resultType: "core",
      });
      expect(out.json).not.toHaveProperty("error");
      const json = out.json as { results: Record<string, unknown>[] };
      expect(json.results[0]).toMatchObject({ id: "39709209", retracted: true });
      expect(json.results[0]?.notices).toEqual([
        {
          type: "retraction",
          notice_pmid: "39900001",
          notice_doi: "10.1016/S0140-6736(25)00001-1",
          date: "2025-02-01",
        },
        // A notice outside PubMed: no PMID to give.
        { type: "correction", date: "2025-01" },
      ]);
      expect(json).not.toHaveProperty("warnings");
    },
  );
});

describe("ESummary v1 (DocSum) References and PubTypeList", () => {
  // Project-authored, after the v1 shape of biopython/Entrez/esummary1.xml (Item Name=… lists).
  it("are read into the same notices", () => {
    const xml = `<eSummaryResult><DocSum><Id>456</Id>
      <Item Name="PubTypeList" Type="List"><Item Name="PubType" Type="String">Journal Article</Item>
        <Item Name="PubType" Type="String">Retracted Publication</Item></Item>
      <Item Name="References" Type="List"><Item Name="Reference" Type="Structure">
        <Item Name="RefSource" Type="String">Science. 2006 Jan 20;311(5759):335</Item>
        <Item Name="RefType" Type="String">Retraction in</Item>
        <Item Name="PMID" Type="Integer">16424319</Item></Item></Item></DocSum></eSummaryResult>`;
    const [summary] = parseESummary(xml).summaries;
    expect(summary?.publicationTypes).toEqual(["Journal Article", "Retracted Publication"]);
    expect(
      noticesFromArticle({
        publicationTypes: summary?.publicationTypes ?? [],
        commentsCorrections: summary?.references ?? [],
      }),
    ).toEqual([{ type: "retraction", notice_pmid: "16424319", date: "2006-01-20" }]);
  });
});
