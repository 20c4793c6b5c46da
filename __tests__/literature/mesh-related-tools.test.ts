/**
 * pubmed_mesh, pubmed_search's hint towards it, and pubmed_related's Europe PMC fallback, through
 * the official MCP SDK client against local fakes (reading-harness.ts).
 *
 * Project-written replies, said where used: every MeSH-database reply (no db=mesh recording is
 * public; written after NCBI's esummary_mesh.dtd and the MeSH Browser entries for D001249 and
 * D001250), a Europe PMC citations list (after the Europe PMC REST documentation) and the ELink
 * replies (the synthetic NCBI's writer). pubmed_search reads biopython's recorded esearch8.xml.
 */
import { describe, expect, it, jest } from "@jest/globals";
import { elinkXml, esearchXml } from "../../src/devtools/synth-replies.js";
import { onUtility } from "../helpers/fake-eutils.js";
import { describeLiterature, literatureFixture } from "../helpers/shared.js";
import { envelope, useReadingHarness, type Json } from "./reading-harness.js";

jest.setTimeout(120_000);

const t = useReadingHarness();
const call = t.call;

/** ESummary db=mesh version 2.0, project-written after esummary_mesh.dtd (DocumentSummary, DS_*). */
const MESH_SUMMARY = `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSummaryResult PUBLIC "-//NLM//DTD esummary mesh 20250101//EN" "https://eutils.t.ncbi.nlm.nih.gov/eutils/dtd/20250101/esummary_mesh.dtd">
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
    t.ncbi.route(
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
    t.ncbi.route(onUtility("esummary", { body: MESH_SUMMARY }, (r) => r.params.db === "mesh"));
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
    expect(t.ncbi.requests.map((r) => [r.utility, r.params.db, r.params.retmax])).toEqual([
      ["esearch", "mesh", "3"],
      ["esummary", "mesh", undefined],
    ]);
  });

  it("searches a UI in the [mhui] field, and says when nothing matches", async () => {
    routeMesh(["68001249"]);
    await call("pubmed_mesh", { term: "d001249", maxResults: 1 });
    expect(t.ncbi.requests[0]?.params).toMatchObject({ db: "mesh", term: "D001249[mhui]" });
    t.ncbi.reset();
    routeMesh([]);
    const none = await call("pubmed_mesh", { term: "zzzz nothing" });
    expect(none.json).toMatchObject({ totalFound: 0, records: [] });
    expect(none.json.warnings).toEqual([expect.stringContaining('No MeSH record matches "zzzz')]);
    expect(t.ncbi.requests.map((r) => r.utility)).toEqual(["esearch"]);
  });

  it("refuses a blank term with VALIDATION", async () => {
    const out = await call("pubmed_mesh", { term: "  " });
    expect(out.isError).toBe(true);
    expect(envelope(out.json)).toMatchObject({ code: "VALIDATION" });
    expect(t.ncbi.requests).toHaveLength(0);
  });
});

describeLiterature("pubmed_search names pubmed_mesh for phrases NCBI did not find", () => {
  it("adds the hint to the recorded PhraseNotFound reply (biopython esearch8.xml)", async () => {
    t.ncbi.route(
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
    t.ncbi.route(elink("pubmed_pubmed_citedin", []));
    t.lit.route((req) => (req.path === `MED/${PMID}/citations` ? { body: CITATIONS } : undefined));
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
    expect(t.ncbi.requests.map((r) => [r.utility, r.params.linkname])).toEqual([
      ["elink", "pubmed_pubmed_citedin"],
    ]);
    expect(t.lit.requests.map((r) => [r.service, r.path, r.params.pageSize])).toEqual([
      ["europepmc", `MED/${PMID}/citations`, "10"],
    ]);
  });

  it("asks Europe PMC for references, and keeps ELink's answer when ELink has links", async () => {
    t.ncbi.route(elink("pubmed_pubmed_refs", []));
    t.lit.route((req) =>
      req.path === `MED/${PMID}/references`
        ? { body: JSON.stringify({ hitCount: 0, referenceList: { reference: [] } }) }
        : undefined,
    );
    const none = await call("pubmed_related", { pmid: PMID, relationship: "references" });
    expect(none.json).toMatchObject({ totalFound: 0, related: [], source: "europepmc" });
    expect(none.json.note).toMatch(/no reference links .* Europe PMC has none either/);

    t.ncbi.reset();
    t.lit.reset();
    t.ncbi.route(elink("pubmed_pubmed_refs", ["111"]));
    t.ncbi.route(
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
    expect(t.lit.requests).toHaveLength(0);
  });

  it("keeps ELink's empty answer, with the reason, when Europe PMC is rate limiting", async () => {
    t.ncbi.route(elink("pubmed_pubmed_citedin", []));
    t.lit.failNext(3, { status: 429, body: "", headers: { "Retry-After": "0" } }, "europepmc");
    const out = await call("pubmed_related", { pmid: "20516116", relationship: "cited_by" });
    expect(out.isError).toBe(false);
    expect(out.json).toMatchObject({ totalFound: 0, related: [] });
    expect(out.json.source).toBeUndefined();
    expect(out.json.note).toMatch(/Europe PMC could not be asked: Europe PMC .*rate-limit/);
  });
});
