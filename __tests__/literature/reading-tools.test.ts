/**
 * pubmed_mesh, europepmc_search, pubmed_annotations and pubmed_related's Europe PMC fallback,
 * through the official MCP SDK client against local fakes: fake-eutils for NCBI (db=mesh, ELink,
 * ESummary, ESearch) and fake-literature for Europe PMC and PubTator, serving the recorded replies
 * of ../shared/fixtures/literature where they exist.
 *
 * Project-written replies, said where used: every MeSH-database reply (no db=mesh recording is
 * public; written after NCBI's esummary_mesh.dtd and the MeSH Browser entries for D001249 and
 * D001250), a Europe PMC last page, a preprint/retraction page and a citations list (written after
 * the Europe PMC REST documentation), and the ELink replies (the synthetic NCBI's writer).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from "@jest/globals";
import { elinkXml, esearchXml } from "../../src/devtools/synth-replies.js";
import { onUtility, startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import {
  recordedLiteratureRoutes,
  startFakeLiterature,
  type FakeLiterature,
} from "../helpers/fake-literature.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";
import { HAS_LITERATURE, describeLiterature, literatureFixture } from "../helpers/shared.js";

jest.setTimeout(120_000);

let ncbi: FakeEutils;
let lit: FakeLiterature;
let h: Harness;

beforeAll(async () => {
  ncbi = await startFakeEutils();
  lit = await startFakeLiterature({ routes: HAS_LITERATURE ? recordedLiteratureRoutes() : [] });
  h = await startHarness({
    fake: ncbi,
    env: lit.env,
    eutils: { backoffBaseMs: 5 },
    services: { backoffBaseMs: 5 },
  });
});
afterAll(async () => {
  await h.close();
  await ncbi.close();
  await lit.close();
});
beforeEach(() => {
  ncbi.reset();
  lit.reset();
});

type Json = Record<string, unknown>;
const call = async (tool: string, args: Json) => {
  const out = await callTool(h.client, tool, args);
  return { ...out, json: out.json as Json };
};
const envelope = (json: Json) => (json as { error: { code: string; message: string } }).error;

/** ESummary db=mesh version 2.0, project-written after esummary_mesh.dtd (DocumentSummary, DS_*). */
const MESH_SUMMARY = `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSummaryResult PUBLIC "-//NLM//DTD esummary mesh 20250101//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20250101/esummary_mesh.dtd">
<eSummaryResult><DocumentSummarySet status="OK"><DbBuild>Build250101-1200.1</DbBuild>
<DocumentSummary uid="68001250">
	<DS_ScopeNote>Asthma attacks following a period of exercise. Usually the induced attack is short-lived and regresses spontaneously.</DS_ScopeNote>
	<DS_MeshTerms><string>Asthma, Exercise-Induced</string><string>Exercise-Induced Asthma</string></DS_MeshTerms>
	<DS_Subheading><string>diagnosis</string><string>drug therapy</string></DS_Subheading>
	<DS_IdxLinks><LinksType><Parent>68001249</Parent><TreeNum>C08.127.108.110</TreeNum><Children></Children></LinksType></DS_IdxLinks>
	<DS_RecordType>descriptor</DS_RecordType><DS_MeshUI>D001250</DS_MeshUI>
</DocumentSummary>
<DocumentSummary uid="68001249">
	<DS_ScopeNote>A form of bronchial disorder with three distinct components: airway hyper-responsiveness (RESPIRATORY HYPERSENSITIVITY), airway INFLAMMATION, and intermittent AIRWAY OBSTRUCTION.</DS_ScopeNote>
	<DS_MeshTerms><string>Asthma</string><string>Asthmas</string><string>Bronchial Asthma</string><string>Asthma, Bronchial</string></DS_MeshTerms>
	<DS_Subheading><string>blood</string><string>drug therapy</string><string>prevention &amp; control</string></DS_Subheading>
	<DS_IdxLinks>
		<LinksType><Parent>68001982</Parent><TreeNum>C08.127.108</TreeNum><Children><int>68001250</int></Children></LinksType>
		<LinksType><Parent>68008173</Parent><TreeNum>C08.381.495.108</TreeNum><Children></Children></LinksType>
	</DS_IdxLinks>
	<DS_RecordType>descriptor</DS_RecordType><DS_MeshUI>D001249</DS_MeshUI>
</DocumentSummary>
</DocumentSummarySet></eSummaryResult>`;

describe("pubmed_mesh (project-written db=mesh replies)", () => {
  const routeMesh = (ids: string[]) => {
    ncbi.route(
      onUtility(
        "esearch",
        {
          body: esearchXml({
            count: ids.length,
            retStart: 0,
            ids,
            queryTranslation: '"asthma"[MeSH Terms] OR asthma[All Fields]',
          }),
        },
        (r) => r.params.db === "mesh",
      ),
    );
    ncbi.route(onUtility("esummary", { body: MESH_SUMMARY }, (r) => r.params.db === "mesh"));
  };

  it("describes descriptors, the exact match first, with qualifiers and the search tag", async () => {
    routeMesh(["68001250", "68001249"]);
    const out = await call("pubmed_mesh", { term: "asthma" });
    expect(out.isError).toBe(false);
    expect(out.json).toMatchObject({ term: "asthma", totalFound: 2 });
    const records = out.json.records as Json[];
    expect(records.map((r) => r.ui)).toEqual(["D001249", "D001250"]);
    expect(records[0]).toEqual({
      ui: "D001249",
      recordType: "descriptor",
      name: "Asthma",
      scopeNote: expect.stringMatching(/^A form of bronchial disorder/),
      treeNumbers: ["C08.127.108", "C08.381.495.108"],
      entryTerms: ["Asthmas", "Bronchial Asthma", "Asthma, Bronchial"],
      allowableQualifiers: [
        { name: "blood", abbreviation: "BL" },
        { name: "drug therapy", abbreviation: "DT" },
        { name: "prevention & control", abbreviation: "PC" },
      ],
      searchTag: '"Asthma"[Mesh]',
    });
    expect(records[1]?.searchTag).toBe('"Asthma, Exercise-Induced"[Mesh]');
    expect(ncbi.requests.map((r) => [r.utility, r.params.db, r.params.retmax])).toEqual([
      ["esearch", "mesh", "3"],
      ["esummary", "mesh", undefined],
    ]);
  });

  it("searches a UI in the [mhui] field, and says when nothing matches", async () => {
    routeMesh(["68001249"]);
    await call("pubmed_mesh", { term: "d001249", maxResults: 1 });
    expect(ncbi.requests[0]?.params).toMatchObject({ db: "mesh", term: "D001249[mhui]" });
    ncbi.reset();
    routeMesh([]);
    const none = await call("pubmed_mesh", { term: "zzzz nothing" });
    expect(none.json).toMatchObject({ totalFound: 0, records: [] });
    expect(none.json.warnings).toEqual([expect.stringContaining('No MeSH record matches "zzzz')]);
    expect(ncbi.requests.map((r) => r.utility)).toEqual(["esearch"]);
  });

  it("refuses a blank term with VALIDATION", async () => {
    const out = await call("pubmed_mesh", { term: "  " });
    expect(out.isError).toBe(true);
    expect(envelope(out.json)).toMatchObject({ code: "VALIDATION" });
    expect(ncbi.requests).toHaveLength(0);
  });
});

describeLiterature("pubmed_search names pubmed_mesh for phrases NCBI did not find", () => {
  it("adds the hint to the recorded PhraseNotFound reply (biopython esearch8.xml)", async () => {
    ncbi.route(
      onUtility("esearch", { body: literatureFixture("biopython/Tests/Entrez/esearch8.xml") }),
    );
    const out = await call("pubmed_search", { query: "abcXYZ" });
    expect(out.json.warnings).toEqual([
      'Phrase not found: "abcXYZ"',
      "No items found.",
      expect.stringContaining('pubmed_mesh ({"term":"abcXYZ"})'),
    ]);
  });
});

describeLiterature("europepmc_search on recorded replies", () => {
  it("reads a lite page: hits with ids, flags and the next cursor", async () => {
    const out = await call("europepmc_search", { query: "cancer", pageSize: 25 });
    expect(out.json.hitCount).toBe(5059039);
    expect(out.json.nextCursorMark).toBe("AoIIP4ZawSg1MzEyODI1MA==");
    const results = out.json.results as Json[];
    expect(results).toHaveLength(25);
    expect(results.every((r) => r.source === "MED" && typeof r.id === "string")).toBe(true);
    expect(results.some((r) => r.abstract !== undefined)).toBe(false);
    expect(lit.requests[0]?.params).toMatchObject({
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
    lit.route((req) =>
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
    expect(lit.requests[0]?.params.cursorMark).toBe(cursor);
  });
});

describe("europepmc_search sources, sort and flags (project-written replies, after the docs)", () => {
  it("restricts to preprints, sorts, and flags preprints and retracted papers", async () => {
    lit.route((req) =>
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
      },
    ]);
    expect(out.json.nextCursorMark).toBe("AoE=");
    expect(lit.requests[0]?.params).toMatchObject({
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
    expect(lit.requests).toHaveLength(0);
  });

  it("reports an empty body as UPSTREAM naming Europe PMC, after retrying", async () => {
    lit.failNext(3, { body: "" }, "europepmc");
    const out = await call("europepmc_search", { query: "empty reply" });
    expect(out.isError).toBe(true);
    expect(envelope(out.json)).toMatchObject({
      code: "UPSTREAM",
      message: expect.stringMatching(/^Europe PMC search failed 3 times/),
    });
    expect(lit.requests).toHaveLength(3);
  });
});

describe("pubmed_related falls back to Europe PMC", () => {
  const PMID = "20516115";
  /** Europe PMC GET /MED/{pmid}/citations, project-written after the REST documentation. */
  const CITATIONS = JSON.stringify({
    version: "6.9",
    hitCount: 3,
    request: { id: PMID, source: "MED", page: 1, pageSize: 10 },
    citationList: {
      citation: [
        {
          id: "34000001",
          source: "MED",
          title: "First citing paper.",
          authorString: "Lee MS, Green R, Marsillac SM, Ng K, Roe B.",
          journalAbbreviation: "Nat Genet",
          pubYear: 2021,
        },
        { id: "PPR400001", source: "PPR", title: "A citing preprint.", pubYear: 2022 },
        { id: "35000002", source: "MED", title: "Second.", authorString: "Roe B.", pubYear: 2023 },
      ],
    },
  });
  const elink = (linkName: string, ids: string[]) =>
    onUtility("elink", {
      body: elinkXml({
        dbFrom: "pubmed",
        ids: [PMID],
        linkSets: [{ linkName, links: ids.map((id) => ({ id })) }],
      }),
    });

  it("uses Europe PMC's citations when ELink has no cited-by links, and says so", async () => {
    ncbi.route(elink("pubmed_pubmed_citedin", []));
    lit.route((req) => (req.path === `MED/${PMID}/citations` ? { body: CITATIONS } : undefined));
    const out = await call("pubmed_related", { pmid: PMID, relationship: "cited_by" });
    expect(out.isError).toBe(false);
    expect(out.json).toEqual({
      sourcePmid: PMID,
      relationship: "cited_by",
      totalFound: 3,
      related: [
        {
          pmid: "34000001",
          title: "First citing paper.",
          authors: ["Lee MS", "Green R", "Marsillac SM"],
          source: "Nat Genet",
          pubDate: "2021",
          score: null,
        },
        {
          pmid: "35000002",
          title: "Second.",
          authors: ["Roe B"],
          source: "",
          pubDate: "2023",
          score: null,
        },
      ],
      source: "europepmc",
      note: expect.stringMatching(
        /^PubMed \(ELink\) has no cited-by links for PMID 20516115; these are Europe PMC's citations .*3 in all; 1 without a PMID left out/,
      ),
    });
    expect(ncbi.requests.map((r) => [r.utility, r.params.linkname])).toEqual([
      ["elink", "pubmed_pubmed_citedin"],
    ]);
    expect(lit.requests.map((r) => [r.service, r.path, r.params.pageSize])).toEqual([
      ["europepmc", `MED/${PMID}/citations`, "10"],
    ]);
  });

  it("asks Europe PMC for references, and keeps ELink's answer when ELink has links", async () => {
    ncbi.route(elink("pubmed_pubmed_refs", []));
    lit.route((req) =>
      req.path === `MED/${PMID}/references`
        ? { body: JSON.stringify({ hitCount: 0, referenceList: { reference: [] } }) }
        : undefined,
    );
    const none = await call("pubmed_related", { pmid: PMID, relationship: "references" });
    expect(none.json).toMatchObject({ totalFound: 0, related: [], source: "europepmc" });
    expect(none.json.note).toMatch(/no reference links .* Europe PMC has none either/);

    ncbi.reset();
    lit.reset();
    ncbi.route(elink("pubmed_pubmed_refs", ["111"]));
    ncbi.route(
      onUtility("esummary", {
        body: `<?xml version="1.0" ?><eSummaryResult><DocumentSummarySet status="OK"><DocumentSummary uid="111"><PubDate>2020 Jan</PubDate><Source>J Test</Source><Authors><Author><Name>Doe J</Name></Author></Authors><Title>Linked.</Title></DocumentSummary></DocumentSummarySet></eSummaryResult>`,
      }),
    );
    // Another PMID: the E-utilities response cache would answer the same ELink request.
    const linked = await call("pubmed_related", { pmid: "20516117", relationship: "references" });
    expect(linked.json).toEqual({
      sourcePmid: "20516117",
      relationship: "references",
      totalFound: 1,
      related: [
        {
          pmid: "111",
          title: "Linked.",
          authors: ["Doe J"],
          source: "J Test",
          pubDate: "2020-01",
          score: null,
        },
      ],
    });
    expect(lit.requests).toHaveLength(0);
  });

  it("keeps ELink's empty answer, with the reason, when Europe PMC is rate limiting", async () => {
    ncbi.route(elink("pubmed_pubmed_citedin", []));
    lit.failNext(3, { status: 429, body: "", headers: { "Retry-After": "0" } }, "europepmc");
    const out = await call("pubmed_related", { pmid: "20516116", relationship: "cited_by" });
    expect(out.isError).toBe(false);
    expect(out.json).toMatchObject({ totalFound: 0, related: [] });
    expect(out.json.source).toBeUndefined();
    expect(out.json.note).toMatch(/Europe PMC could not be asked: Europe PMC .*rate-limit/);
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
    expect(lit.requests.map((r) => [r.service, r.path, r.params.pmids])).toEqual([
      ["pubtator", "publications/export/biocjson", "22663011,20516115"],
    ]);
  });

  it("filters by type, caps entities, lists PMIDs PubTator lacks, and says when full text is missing", async () => {
    lit.route((req) =>
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
    expect(lit.requests[0]?.params).toMatchObject({ pmids: "22663011,1", full: "true" });
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
    expect(lit.requests).toHaveLength(0);
  });

  it("turns PubTator's 429s into RATE_LIMIT naming PubTator", async () => {
    lit.failNext(3, { status: 429, body: "", headers: { "Retry-After": "0" } }, "pubtator");
    const out = await call("pubmed_annotations", { pmids: ["123456"] });
    expect(out.isError).toBe(true);
    expect(envelope(out.json)).toMatchObject({
      code: "RATE_LIMIT",
      message: expect.stringMatching(/^PubTator export failed 3 times/),
    });
  });

  it("reads an empty export as nothing found", async () => {
    lit.route((req) => (req.service === "pubtator" ? { body: "" } : undefined));
    const out = await call("pubmed_annotations", { pmids: ["7654321"] });
    expect(out.json).toEqual({ articles: [], notFoundPmids: ["7654321"] });
  });

  it("lists an article PubTator found nothing in with an empty entities list", async () => {
    const doc = {
      pmid: 7654322,
      passages: [{ infons: { type: "title" }, offset: 0, text: "Nothing here.", annotations: [] }],
    };
    lit.route((req) =>
      req.service === "pubtator" ? { body: JSON.stringify({ PubTator3: [doc] }) } : undefined,
    );
    const out = await call("pubmed_annotations", { pmids: ["7654322"] });
    expect(out.json).toEqual({
      articles: [{ pmid: "7654322", title: "Nothing here.", counts: {}, entities: [] }],
    });
  });

  it("keeps to 3 PubTator requests in any second across concurrent calls", async () => {
    lit.route((req) => (req.service === "pubtator" ? { body: '{"PubTator3":[]}' } : undefined));
    // Distinct PMIDs, so the response cache answers none of them.
    const pmids = ["2000001", "2000002", "2000003", "2000004", "2000005", "2000006", "2000007"];
    const outs = await Promise.all(pmids.map((p) => call("pubmed_annotations", { pmids: [p] })));
    expect(outs.map((o) => o.json.notFoundPmids)).toEqual(pmids.map((p) => [p]));
    const pubtator = lit.requests.filter((r) => r.service === "pubtator");
    expect(pubtator.map((r) => r.params.pmids).sort()).toEqual(pmids);
    // Arrival times carry a little network jitter; the limiter's own window is 1000 ms.
    expect(lit.maxInAnyWindow("pubtator", 800)).toBeLessThanOrEqual(3);
  });
});
