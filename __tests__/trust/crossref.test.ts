/**
 * Crossref's integrity notices (src/crossref/crossref.ts) through the official MCP client, against a
 * local stand-in Crossref (../helpers/fake-crossref.ts: replies written after Crossref's
 * documented shapes, no recorded ones exist): notices added and merged with PubMed's, Crossref
 * failing (5xx, hang-ups, malformed replies, slower than the call's deadline) costing only its
 * notices, nothing sent when it is not configured, and the operator's mailto never in an answer.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { ConfigError, loadConfig } from "../../src/config.js";
import { getCrossref } from "../../src/state.js";
import { crossrefNotices } from "../../src/trust/notices.js";
import {
  onUtility,
  recordedEfetchRoute,
  startFakeEutils,
  type FakeEutils,
} from "../helpers/fake-eutils.js";
import { crossrefDate, startFakeCrossref, type FakeCrossref } from "../helpers/fake-crossref.js";
import { callTool, startHarness, type Harness, type ToolOutcome } from "../helpers/mcp.js";
import { describeShared } from "../helpers/shared.js";
import { efetchRecord, esearchReply, esummaryReply } from "./notice-records.js";

jest.setTimeout(120_000);

const MAILTO = "ops-crossref@example.org";
const PAPER = "10.1136/gutjnl-2016-312510";
const FLAGGED = "10.1136/gutjnl-2016-000002";

/** The notices Crossref holds about PAPER and FLAGGED, as deposited works. */
const WORKS = [
  // The retraction PubMed also links (by PMID only): the same event. The DOI it updates is
  // written in capitals, as some deposits are.
  {
    DOI: "10.1136/gutjnl-2019-retraction",
    type: "journal-article",
    "update-to": [
      {
        DOI: PAPER.toUpperCase(),
        type: "retraction",
        label: "Retraction",
        updated: crossrefDate(2019, 3, 5),
      },
    ],
  },
  // PubMed's ErratumIn of 2018 Jan: the same event, to the month.
  {
    DOI: "10.1136/gutjnl-2018-erratum",
    "update-to": [
      { DOI: PAPER, type: "erratum", label: "Erratum", updated: crossrefDate(2018, 1, 15) },
    ],
  },
  // No integrity notice.
  {
    DOI: "10.1136/gutjnl-2016-312510.v2",
    "update-to": [
      { DOI: PAPER, type: "new_version", label: "New version", updated: crossrefDate(2017, 1, 1) },
    ],
  },
  // The works themselves, with `updated-by` (Retraction Watch's withdrawal, the publisher's
  // retraction again).
  {
    DOI: PAPER,
    "updated-by": [
      {
        DOI: "10.1136/gutjnl-2019-retraction",
        type: "retraction",
        source: "publisher",
        updated: crossrefDate(2019, 3, 5),
      },
    ],
  },
  {
    DOI: FLAGGED,
    "updated-by": [
      {
        DOI: "10.1136/gutjnl-2020-withdrawal",
        type: "withdrawal",
        label: "Withdrawal",
        source: "retraction-watch",
        updated: crossrefDate(2020, 2, 1),
      },
    ],
  },
];

/** PubMed's notices of the two records (__tests__/trust/notices-tools.test.ts reads them alone). */
const PUBMED_ONLY = [
  { type: "retraction", notice_pmid: "31000001", date: "2019-03-05" },
  { type: "correction", notice_pmid: "31000002", date: "2018-01" },
];

function records(): Map<string, string> {
  return new Map([
    [
      "27797938",
      efetchRecord("27797938", PAPER, {
        links: [
          { refType: "RetractionIn", refSource: "Gut. 2019 Mar 5;68(3):560", pmid: "31000001" },
          { refType: "ErratumIn", refSource: "Gut. 2018 Jan;67(1):200", pmid: "31000002" },
        ],
        types: ["Retracted Publication"],
      }),
    ],
    ["27797939", efetchRecord("27797939", FLAGGED, { types: ["Retracted Publication"] })],
  ]);
}

interface Fetched {
  articles: { pmid: string; notices?: unknown[] }[];
  warnings?: string[];
}

const noticesOf = (out: ToolOutcome) =>
  (out.json as Fetched).articles.map((a) => a.notices ?? "none known");

/** The mailto appears nowhere the client sees: text, structured content, any URL. */
function expectNoMailto(out: ToolOutcome): void {
  expect(JSON.stringify(out.content)).not.toContain(MAILTO);
  expect(JSON.stringify(out.structuredContent ?? null)).not.toContain(MAILTO);
}

describeShared("Crossref notices", () => {
  let fake: FakeEutils;
  let cr: FakeCrossref;

  beforeAll(async () => {
    fake = await startFakeEutils({
      routes: [
        recordedEfetchRoute(records()),
        onUtility("esearch", { body: esearchReply(["5683731"]) }),
        onUtility("esummary", {
          body: esummaryReply({ "5683731": { flags: ["Retracted Publication"] } }),
        }),
      ],
    });
    cr = await startFakeCrossref({ works: WORKS });
  });
  afterAll(async () => {
    await fake?.close();
    await cr?.close();
  });

  describe("configured with a mailto", () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({
        fake,
        env: { ...cr.env, CROSSREF_MAILTO: MAILTO },
        services: { backoffBaseMs: 1 },
      });
    });
    afterAll(() => h.close());

    it("adds a withdrawal and merges a retraction and an erratum with PubMed's, one per event", async () => {
      cr.requests.length = 0;
      const out = await callTool(h.client, "pubmed_fetch", { pmids: ["27797938", "27797939"] });
      expect(out.json).not.toHaveProperty("error");
      expect(noticesOf(out)).toEqual([
        [
          {
            type: "retraction",
            notice_pmid: "31000001",
            notice_doi: "10.1136/gutjnl-2019-retraction",
            date: "2019-03-05",
          },
          {
            type: "correction",
            notice_pmid: "31000002",
            notice_doi: "10.1136/gutjnl-2018-erratum",
            date: "2018-01-15",
          },
        ],
        [
          { type: "retraction" },
          { type: "withdrawal", notice_doi: "10.1136/gutjnl-2020-withdrawal", date: "2020-02-01" },
        ],
      ]);
      expect(out.json).not.toHaveProperty("warnings");
      // One batch: the notices of both DOIs, and both works, each in one request with the mailto.
      expect(
        cr.requests.map((r) => [r.path, r.filters, r.params.select, r.params.mailto]).sort(),
      ).toEqual([
        [
          "/works",
          [
            ["doi", PAPER],
            ["doi", FLAGGED],
          ],
          "DOI,updated-by",
          MAILTO,
        ],
        [
          "/works",
          [
            ["updates", PAPER],
            ["updates", FLAGGED],
          ],
          "DOI,update-to",
          MAILTO,
        ],
      ]);
      expectNoMailto(out);
    });

    it("a record without a DOI, or none asked, sends nothing", async () => {
      cr.requests.length = 0;
      expect(await crossrefNotices(["not a doi", ""])).toEqual({
        notices: new Map(),
        consulted: false,
      });
      expect(cr.requests).toEqual([]);
    });

    it("crossrefNotices gives notices by lower-cased DOI and says Crossref was consulted", async () => {
      const found = await crossrefNotices([`https://doi.org/${FLAGGED.toUpperCase()}`]);
      expect(found.consulted).toBe(true);
      expect(found.warning).toBeUndefined();
      expect([...found.notices]).toEqual([
        [
          FLAGGED,
          [
            {
              type: "withdrawal",
              notice_doi: "10.1136/gutjnl-2020-withdrawal",
              date: "2020-02-01",
            },
          ],
        ],
      ]);
    });
  });

  describe("failing", () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({
        fake,
        env: { ...cr.env, CROSSREF_MAILTO: MAILTO },
        services: { backoffBaseMs: 1 },
      });
    });
    afterAll(async () => {
      cr.failWith(undefined);
      await h.close();
    });

    it.each([
      [
        "HTTP 500",
        { status: 500, body: `{"status":"error","message":"busy ${MAILTO}"}` },
        /HTTP 500/,
      ],
      ["a hang-up", { hangup: true, body: "" }, /failed connection|dropped/],
      ["a reply with no work list", { body: '{"status":"ok","message":{}}' }, /not a work list/],
      ["malformed JSON", { body: '{"status": ok}' }, /not a work list/],
      [
        "HTTP 400 echoing the request",
        { status: 400, body: `{"message":"bad mailto=${MAILTO}"}` },
        /HTTP 400/,
      ],
    ])(
      "%s: the call succeeds with PubMed's notices and says Crossref was not consulted",
      async (_name, reply, why) => {
        cr.failWith(reply);
        cr.requests.length = 0;
        const out = await callTool(h.client, "pubmed_fetch", { pmids: ["27797938", "27797939"] });
        expect(out.json).not.toHaveProperty("error");
        expect(noticesOf(out)).toEqual([PUBMED_ONLY, [{ type: "retraction" }]]);
        const warnings = (out.json as Fetched).warnings ?? [];
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(
          /^Crossref was not consulted \(.+\); notices come from PubMed only\.$/,
        );
        expect(warnings[0]).toMatch(why);
        expect(cr.requests.length).toBeGreaterThan(0);
        expectNoMailto(out);
      },
    );

    it("pubmed_search puts the failure in its warnings", async () => {
      cr.failWith({ status: 503, body: "down" });
      const out = await callTool(h.client, "pubmed_search", { query: "x", fetchBriefSummaries: 1 });
      expect(out.json).not.toHaveProperty("error");
      const json = out.json as { briefSummaries: { notices?: unknown }[]; warnings: string[] };
      expect(json.briefSummaries[0]?.notices).toEqual([{ type: "retraction" }]);
      expect(json.warnings).toEqual([
        expect.stringMatching(
          /^Crossref was not consulted \(.*HTTP 503.*\); notices come from PubMed only\.$/,
        ),
      ]);
      expectNoMailto(out);
    });

    it("crossrefNotices never throws for Crossref's failures", async () => {
      cr.failWith({ status: 502, body: "bad gateway" });
      const found = await crossrefNotices([PAPER]);
      expect(found.consulted).toBe(false);
      expect(found.notices.size).toBe(0);
      expect(found.warning).toMatch(/^Crossref was not consulted \(.*HTTP 502.*\)/);
    });

    it("rethrows an abort of the caller's signal", async () => {
      cr.failWith({ status: 500, body: "busy", delayMs: 5_000 });
      const controller = new AbortController();
      const pending = crossrefNotices([PAPER], controller.signal);
      setTimeout(() => controller.abort(new Error("cancelled by the caller")), 50);
      await expect(pending).rejects.toThrow("cancelled by the caller");
    });
  });

  describe("slower than the call's deadline", () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({
        fake,
        env: { ...cr.env, CROSSREF_MAILTO: MAILTO, NCBI_DEADLINE_MS: "5000" },
        services: { backoffBaseMs: 1 },
      });
    });
    afterAll(async () => {
      cr.failWith(undefined);
      await h.close();
    });

    it("costs the notices, not the answer", async () => {
      cr.failWith({ body: "{}", delayMs: 20_000 });
      const out = await callTool(h.client, "pubmed_fetch", { pmids: ["27797938"] });
      expect(out.json).not.toHaveProperty("error");
      expect(noticesOf(out)).toEqual([PUBMED_ONLY]);
      expect((out.json as Fetched).warnings).toEqual([
        expect.stringMatching(/^Crossref was not consulted \(Crossref did not answer/),
      ]);
    });
  });

  describe("a base URL without a mailto (Crossref's public pool)", () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ fake, env: cr.env });
    });
    afterAll(() => h.close());

    it("is consulted, with no mailto sent", async () => {
      cr.requests.length = 0;
      const out = await callTool(h.client, "pubmed_fetch", { pmids: ["27797939"] });
      expect(noticesOf(out)).toEqual([
        [
          { type: "retraction" },
          { type: "withdrawal", notice_doi: "10.1136/gutjnl-2020-withdrawal", date: "2020-02-01" },
        ],
      ]);
      expect(cr.requests).toHaveLength(2);
      expect(cr.requests.every((r) => !("mailto" in r.params))).toBe(true);
    });
  });

  describe("not configured", () => {
    let h: Harness;
    const sent: string[] = [];
    beforeAll(async () => {
      // Every request of the services beside NCBI (Crossref's default address included) goes
      // through this fetch: none may be made.
      const recording: typeof fetch = (input, init) => {
        sent.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      };
      h = await startHarness({ fake, services: { fetch: recording } });
    });
    afterAll(() => h.close());

    it("sends no request at all and says nothing", async () => {
      cr.requests.length = 0;
      expect(getCrossref()).toBeUndefined();
      const out = await callTool(h.client, "pubmed_fetch", { pmids: ["27797938", "27797939"] });
      expect(noticesOf(out)).toEqual([PUBMED_ONLY, [{ type: "retraction" }]]);
      expect(out.json).not.toHaveProperty("warnings");
      const search = await callTool(h.client, "pubmed_search", {
        query: "x",
        fetchBriefSummaries: 1,
      });
      expect((search.json as { warnings: string[] }).warnings).toEqual([]);
      expect(sent).toEqual([]);
      expect(cr.requests).toEqual([]);
      expect(await crossrefNotices([PAPER])).toEqual({ notices: new Map(), consulted: false });
    });
  });
});

describe("Crossref configuration", () => {
  it("is off unless CROSSREF_MAILTO or CROSSREF_BASE_URL is set (empty counts as unset)", () => {
    expect(loadConfig({}).services.crossref).toEqual({
      enabled: false,
      baseUrl: "https://api.crossref.org",
      mailto: undefined,
    });
    expect(
      loadConfig({ CROSSREF_MAILTO: "", CROSSREF_BASE_URL: "" }).services.crossref.enabled,
    ).toBe(false);
    expect(loadConfig({ CROSSREF_MAILTO: MAILTO }).services.crossref).toEqual({
      enabled: true,
      baseUrl: "https://api.crossref.org",
      mailto: MAILTO,
    });
    expect(
      loadConfig({ CROSSREF_BASE_URL: "http://mirror.example/api/" }).services.crossref,
    ).toEqual({
      enabled: true,
      baseUrl: "http://mirror.example/api",
      mailto: undefined,
    });
  });

  it("lists every problem with it at once", () => {
    let caught: unknown;
    try {
      loadConfig({ CROSSREF_MAILTO: "not-an-address", CROSSREF_BASE_URL: "ftp://crossref" });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      "CROSSREF_BASE_URL must be an http(s) URL",
      "CROSSREF_MAILTO must be an e-mail address",
    ]);
  });
});
