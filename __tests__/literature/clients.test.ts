/**
 * The literature services' clients and service functions, over real HTTP against local fakes
 * (fake-literature.ts for the ID Converter, Europe PMC, Unpaywall and PubTator; fake-eutils.ts
 * for EFetch db=pmc and db=mesh), serving the recorded replies of ../shared/fixtures/literature.
 * The MeSH replies are project-written (no db=mesh reply is public), after NCBI's DTD, by the
 * synthetic NCBI's writer.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { loadConfig } from "../../src/config.js";
import { NotFoundError, RateLimitError, UpstreamError, ValidationError } from "../../src/errors.js";
import { EutilsClient } from "../../src/ncbi/client.js";
import { setDeadline } from "../../src/net/limiter.js";
import { parseIdconvReply } from "../../src/ncbi/idconv.js";
import { meshLookup } from "../../src/literature/mesh.js";
import {
  convertIds,
  europePmcFullTextXml,
  fetchPmcJats,
  pubtatorExport,
  unpaywallLookup,
} from "../../src/literature/reading.js";
import { europePmcSearch } from "../../src/pubmed/europepmc-search.js";
import { UNPAYWALL_SKIPPED } from "../../src/unpaywall/unpaywall.js";
import { ServiceClients } from "../../src/net/clients.js";
import { getEutils, getEuropePmc, getPubtator } from "../../src/state.js";
import { closeProcess, setStateForTests } from "../../src/worker/process.js";
import { meshSummaryXml } from "../../src/devtools/synth-meshdb.js";
import { esearchXml } from "../../src/devtools/synth-replies.js";
import { onUtility, startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import {
  pmcEfetchRoute,
  recordedLiteratureRoutes,
  startFakeLiterature,
  type FakeLiterature,
} from "../helpers/fake-literature.js";
import { describeLiterature } from "../helpers/shared.js";

const EMAIL = "reader@example.org";
let ncbi: FakeEutils;
let lit: FakeLiterature;

async function install(env: Record<string, string> = {}) {
  const config = loadConfig({
    NCBI_EUTILS_BASE_URL: ncbi.baseUrl,
    ...lit.env,
    NCBI_MAX_RPS: "50",
    NCBI_MAX_RETRIES: "2",
    NCBI_TIMEOUT_MS: "5000",
    NCBI_DEADLINE_MS: "30000",
    LOG_LEVEL: "error",
    PUBMED_MCP_DATA_DIR: "/nonexistent-not-opened",
    ...env,
  });
  const state = await setStateForTests(config);
  state.eutils = new EutilsClient(config.ncbi, { backoffBaseMs: 5 });
  state.services = new ServiceClients(config, { backoffBaseMs: 5 });
  return state;
}

beforeAll(async () => {
  ncbi = await startFakeEutils({ routes: [pmcEfetchRoute()] });
  lit = await startFakeLiterature({ routes: recordedLiteratureRoutes() });
});
afterAll(async () => {
  await closeProcess();
  await ncbi.close();
  await lit.close();
});
beforeEach(async () => {
  ncbi.reset();
  lit.reset();
  await install({ UNPAYWALL_EMAIL: EMAIL });
});

describeLiterature("service functions on recorded replies", () => {
  it("converts ids through NCBI's limiter, one request per id type, in the caller's order", async () => {
    const before = getEutils().info().requestsStarted;
    lit.route((req) =>
      req.service === "idconv" && req.params.idtype === "pmcid"
        ? { body: '{"status":"ok","records":[{"pmcid":"PMC3040717","pmid":"21255462"}]}' }
        : undefined,
    );
    const out = await convertIds(["pmc3040717", "doi:10.1038/ng.590"]);
    expect(out).toEqual([
      { input: "pmc3040717", pmcid: "PMC3040717", pmid: "21255462" },
      expect.objectContaining({
        input: "doi:10.1038/ng.590",
        pmid: "20495566",
        pmcid: "PMC2883744",
        doi: "10.1038/ng.590",
      }),
    ]);
    expect(lit.requests.map((r) => [r.service, r.params.idtype, r.params.tool])).toEqual([
      ["idconv", "pmcid", "pubmed-mcp"],
      ["idconv", "doi", "pubmed-mcp"],
    ]);
    expect(getEutils().info().requestsStarted - before).toBe(2);
  });

  it("hands the converter's 404 'ID type mismatch' to its parser (VALIDATION), without retrying", async () => {
    const reply = await getEutils().idconv({ ids: "28371833", idtype: "doi", format: "json" });
    expect(reply.status).toBe(404);
    expect(() =>
      parseIdconvReply(reply.body, [{ input: "28371833", type: "doi", id: "28371833" }]),
    ).toThrow(ValidationError);
    expect(lit.requests).toHaveLength(1);
  });

  it("fetches JATS with EFetch db=pmc through the E-utilities client", async () => {
    const doc = await fetchPmcJats("PMC3040717");
    expect(doc.articles).toHaveLength(1);
    expect(doc.articles[0]).toMatchObject({ pmcid: "PMC3040717", hasBody: true });
    expect(doc.articles[0]!.sections.length).toBeGreaterThan(3);
    expect(ncbi.requests.map((r) => [r.utility, r.params.db, r.params.id])).toEqual([
      ["efetch", "pmc", "3040717"],
    ]);
    const notice = await fetchPmcJats("8435807");
    expect(notice.articles[0]).toMatchObject({ pmcid: "PMC8435807", articleType: "correction" });
  });

  it("reads Europe PMC full text, and says when it has none", async () => {
    const doc = await europePmcFullTextXml("pmc3040717");
    expect("articles" in doc && doc.articles[0]?.pmcid).toBe("PMC3040717");
    lit.route((req) => (req.path === "PMC1/fullTextXML" ? { status: 404, body: "" } : undefined));
    expect(await europePmcFullTextXml("PMC1")).toEqual({
      unavailable: "Europe PMC has no full text XML for this article",
    });
    expect(lit.requests.map((r) => r.path)).toEqual(["PMC3040717/fullTextXML", "PMC1/fullTextXML"]);
  });

  it("searches Europe PMC, with sources added to the query and cursor paging", async () => {
    const page = await europePmcSearch("cancer", { resultType: "core" });
    expect(page.hitCount).toBeGreaterThan(0);
    expect(page.results.filter((r) => r.abstract !== undefined).length).toBeGreaterThan(10);
    lit.route((req) =>
      req.path === "search" && req.params.query === "(asthma) AND (SRC:MED OR SRC:PPR)"
        ? { body: '{"hitCount":0,"resultList":{"result":[]}}' }
        : undefined,
    );
    const none = await europePmcSearch("asthma", { sources: ["MED", "PPR"], cursorMark: "AoE" });
    expect(none).toEqual({ hitCount: 0, results: [] });
    expect(lit.requests[1]?.params).toMatchObject({ cursorMark: "AoE", format: "json" });
  });

  it("looks up Unpaywall with the email sent but never echoed, and reads its 404", async () => {
    const record = await unpaywallLookup("10.1103/PhysRevLett.80.3915");
    expect(record).toMatchObject({ doi: "10.1103/physrevlett.80.3915", isOa: true });
    expect(lit.requests[0]?.params.email).toBe(EMAIL);
    lit.route((req) =>
      req.path === "10.1234/unknown"
        ? {
            status: 404,
            body: '{"HTTP_status_code": 404, "error": true, "message": "\'10.1234/unknown\' isn\'t in Unpaywall."}',
          }
        : undefined,
    );
    await expect(unpaywallLookup("10.1234/unknown")).rejects.toBeInstanceOf(NotFoundError);
    // The recorded 404 is for "10.000/nodata", which is no DOI (registrants have 4–9 digits).
    await expect(unpaywallLookup("10.000/nodata")).rejects.toBeInstanceOf(ValidationError);
    expect(lit.requests.map((r) => r.path)).toEqual([
      "10.1103/PhysRevLett.80.3915",
      "10.1234/unknown",
    ]);
  });

  it("exports PubTator annotations for several PMIDs in one request", async () => {
    const { articles, notFound } = await pubtatorExport(["22663011", "20516115"], false);
    expect(articles.map((a) => a.pmid)).toEqual(["22663011", "20516115"]);
    expect(articles[0]!.entities.length).toBeGreaterThan(0);
    expect(notFound).toEqual([]);
    expect(lit.requests.map((r) => [r.service, r.params.pmids])).toEqual([
      ["pubtator", "22663011,20516115"],
    ]);
  });
});

describe("MeSH (project-written db=mesh replies)", () => {
  it("searches db=mesh, then describes the UIDs with ESummary version 2.0", async () => {
    ncbi.route(
      onUtility(
        "esearch",
        { body: esearchXml({ count: 1, retStart: 0, ids: ["68001249"], queryTranslation: "" }) },
        (r) => r.params.db === "mesh",
      ),
    );
    ncbi.route(
      onUtility(
        "esummary",
        {
          body: meshSummaryXml([
            {
              uid: "68001249",
              ui: "D001249",
              name: "Asthma",
              scopeNote: "A form of bronchial disorder.",
              entryTerms: ["Asthma", "Bronchial Asthma"],
              qualifiers: ["drug therapy"],
              treeNumbers: ["C08.127.108"],
            },
          ]),
        },
        (r) => r.params.db === "mesh" && r.params.version === "2.0",
      ),
    );
    const found = await meshLookup("D001249");
    expect(found.records[0]).toMatchObject({
      ui: "D001249",
      name: "Asthma",
      treeNumbers: ["C08.127.108"],
      searchTag: '"Asthma"[Mesh]',
    });
    expect(
      ncbi.requests.map((r) => [r.utility, r.params.db, r.params.term ?? r.params.id]),
    ).toEqual([
      ["esearch", "mesh", "D001249[mhui]"],
      ["esummary", "mesh", "68001249"],
    ]);
  });
});

describe("polite client behaviour per service", () => {
  it("retries a 503 and a cut-off reply, then answers", async () => {
    lit.failNext(1, { status: 503, body: "busy" }, "europepmc");
    lit.failNext(
      1,
      { body: '{"hitCount":0,"resultList":{"result":[]}}', truncate: true },
      "europepmc",
    );
    lit.route((req) =>
      req.path === "search" ? { body: '{"hitCount":0,"resultList":{"result":[]}}' } : undefined,
    );
    expect((await europePmcSearch("x")).hitCount).toBe(0);
    expect(lit.requests).toHaveLength(3);
  });

  it("turns 429s into RATE_LIMIT naming the service once retries run out", async () => {
    lit.failNext(3, { status: 429, body: "", headers: { "Retry-After": "0" } }, "pubtator");
    const err = await pubtatorExport(["1"], false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).message).toMatch(
      /^PubTator export failed 3 times; .*rate-limit/,
    );
    expect((err as RateLimitError).details).toMatchObject({ service: "pubtator", attempts: 3 });
  });

  it("turns empty bodies into UPSTREAM naming the service", async () => {
    lit.failNext(3, { body: "" }, "unpaywall");
    const err = await unpaywallLookup("10.1038/ng.590").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(
      /^Unpaywall DOI lookup failed 3 times; the last reply was an empty reply/,
    );
  });

  it("keeps the Unpaywall email out of URLs and error messages", async () => {
    lit.route((req) =>
      req.service === "unpaywall"
        ? { status: 422, body: `{"error": true, "message": "email ${EMAIL} is not allowed"}` }
        : undefined,
    );
    const err = await unpaywallLookup("10.1038/ng.590").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(JSON.stringify([(err as Error).message, (err as UpstreamError).details])).not.toContain(
      EMAIL,
    );
    lit.reset();
    // A reply written here: the test must not depend on ../shared's recordings.
    lit.route((req) =>
      req.service === "unpaywall"
        ? { body: '{"doi":"10.1103/physrevlett.80.3915","is_oa":false,"oa_locations":[]}' }
        : undefined,
    );
    const res = await (
      await install({ UNPAYWALL_EMAIL: EMAIL })
    ).services.unpaywall!.request("10.1103/physrevlett.80.3915");
    expect(res.url).toBe(`${lit.env.UNPAYWALL_BASE_URL}/10.1103/physrevlett.80.3915`);
  });

  it("skips Unpaywall without UNPAYWALL_EMAIL, sending nothing", async () => {
    await install();
    expect(await unpaywallLookup("10.1038/ng.590")).toEqual({ skipped: UNPAYWALL_SKIPPED });
    expect(lit.requests).toHaveLength(0);
  });

  it("gives each service its own limiter: a PubTator queue does not hold Europe PMC back", async () => {
    expect(getPubtator().limiter).not.toBe(getEuropePmc().limiter);
    lit.route((req) => (req.service === "pubtator" ? { body: '{"PubTator3":[]}' } : undefined));
    lit.route((req) =>
      req.path === "search" ? { body: '{"hitCount":0,"resultList":{"result":[]}}' } : undefined,
    );
    // Distinct PMIDs: the cache must not answer any of them.
    const exports = ["1", "2", "3", "4", "5", "6", "7"].map((p) => pubtatorExport([p], false));
    await europePmcSearch("y");
    const europeAt = lit.requests.findIndex((r) => r.service === "europepmc");
    await Promise.all(exports);
    const pubtator = lit.requests.filter((r) => r.service === "pubtator");
    expect(pubtator).toHaveLength(7);
    // 3 per second: the 7th export cannot start before two windows have passed.
    expect(europeAt).toBeLessThan(lit.requests.lastIndexOf(pubtator[6]!));
    expect(lit.maxInAnyWindow("pubtator", 800)).toBeLessThanOrEqual(3);
  });

  it("ends a call at its deadline with UPSTREAM naming the service", async () => {
    lit.route((req) =>
      req.path === "search" ? { body: '{"hitCount":0}', delayMs: 3000 } : undefined,
    );
    const signal = setDeadline(AbortSignal.timeout(200), performance.now() + 200);
    const err = await europePmcSearch("slow", { signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(
      /^Europe PMC did not answer within \d+ s \(NCBI_DEADLINE_MS\)/,
    );
    expect((err as UpstreamError).details).toEqual({ service: "europepmc" });
  });

  it("answers a repeated request from the cache", async () => {
    lit.route((req) => (req.service === "pubtator" ? { body: '{"PubTator3":[]}' } : undefined));
    await pubtatorExport(["22663011"], false);
    await pubtatorExport(["22663011"], false);
    expect(lit.requests).toHaveLength(1);
  });
});
