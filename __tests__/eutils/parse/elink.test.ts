import { expect, test } from "@jest/globals";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { EntrezError, UpstreamError } from "../../../src/errors.js";
import { parseELink } from "../../../src/ncbi/parse/elink.js";
import { describeShared, EUTILS_FIXTURES, eutilsFixture } from "../../helpers/shared.js";

function fixturesNamed(pattern: RegExp): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) =>
      statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)],
    );
  return walk(EUTILS_FIXTURES)
    .map((f) => relative(EUTILS_FIXTURES, f))
    .filter((f) => pattern.test(f.split("/").pop() ?? ""))
    .sort();
}

const BIO = "Bio-EUtilities/t/data/eutils";
const FOUR = ["730439", "68536103", "1621261", "20807972"];
const FOUR_BY_ID = ["1621261", "68536103", "20807972", "730439"];
const PUBMED_NEIGHBOURS = [
  "pubmed_pubmed",
  "pubmed_pubmed_citedin",
  "pubmed_pubmed_combined",
  "pubmed_pubmed_five",
];

/** Source ids, then [LinkName, link count] per LinkSetDb, read off each recorded reply. */
const PARSED: Record<string, { sources: string[]; sets: [string, number][] }> = {
  "biopython/Entrez/elink1.xml": {
    sources: ["9298984"],
    sets: [
      ["pubmed_pubmed", 101],
      ["pubmed_pubmed_citedin", 39],
      ["pubmed_pubmed_combined", 5],
      ["pubmed_pubmed_five", 5],
      ["pubmed_pubmed_refs", 56],
      ["pubmed_pubmed_reviews", 1],
      ["pubmed_pubmed_reviews_five", 5],
    ],
  },
  "biopython/Entrez/elink2.xml": { sources: ["48819", "7140345"], sets: [["nuccore_protein", 1]] },
  "biopython/Entrez/elink3.xml": {
    sources: ["11812492", "11774222"],
    sets: [
      ...zip(PUBMED_NEIGHBOURS, [284, 3, 10, 10]),
      ["pubmed_pubmed_reviews", 282],
      ["pubmed_pubmed_reviews_five", 10],
    ],
  },
  "biopython/Entrez/elink4.xml": {
    sources: ["12242737"],
    sets: [
      ...zip(PUBMED_NEIGHBOURS, [156, 6, 5, 5]),
      ["pubmed_pubmed_reviews", 1],
      ["pubmed_pubmed_reviews_five", 5],
    ],
  },
  "metapub/sample_related_pmids_result.xml": {
    sources: ["14873513"],
    sets: [
      ...zip(PUBMED_NEIGHBOURS, [76, 6, 6, 6]),
      ["pubmed_pubmed_reviews", 11],
      ["pubmed_pubmed_reviews_five", 6],
    ],
  },
  // cmd=prlinks / llinks / acheck / ncheck: no LinkSetDb, source ids from IdUrlList/IdCheckList.
  "biopython/Entrez/elink5.xml": { sources: ["10611131"], sets: [] },
  "biopython/Entrez/elink6.xml": { sources: ["12085856", "12085853"], sets: [] },
  "biopython/Entrez/elink7.xml": { sources: ["12169658", "11748140"], sets: [] },
  "biopython/Entrez/elink8.xml": { sources: ["12068369"], sets: [] },
  "elink-json/sample-2.xml": { sources: ["1000", "2000"], sets: [["pubmed_pubmed_five", 3]] },
  "elink-json/sample-3.xml": {
    sources: ["20210808"],
    sets: zip(PUBMED_NEIGHBOURS.slice(0, 3), [2, 2, 2]),
  },
  "elink-json/sample-7.xml": { sources: ["19880848", "19822630"], sets: [] },
  "elink-json/sample-8.xml": { sources: ["19880848", "19822630"], sets: [] },
  "metapub/medgen_elink_pubmed_0_entries.xml": { sources: ["0"], sets: [] },
  [`${BIO}/elink_acheck.xml`]: { sources: FOUR, sets: [] },
  [`${BIO}/elink_acheck_corr.xml`]: { sources: FOUR_BY_ID, sets: [] },
  [`${BIO}/elink_lcheck.xml`]: { sources: FOUR, sets: [] },
  [`${BIO}/elink_lcheck_corr.xml`]: { sources: FOUR_BY_ID, sets: [] },
  [`${BIO}/elink_llinks.xml`]: { sources: FOUR, sets: [] },
  [`${BIO}/elink_llinks_corr.xml`]: { sources: FOUR_BY_ID, sets: [] },
  [`${BIO}/elink_ncheck.xml`]: { sources: FOUR, sets: [] },
  [`${BIO}/elink_ncheck_corr.xml`]: { sources: FOUR_BY_ID, sets: [] },
  [`${BIO}/elink_nhist.xml`]: { sources: FOUR, sets: [] },
  [`${BIO}/elink_nhist_corr.xml`]: { sources: FOUR_BY_ID, sets: [] },
  [`${BIO}/elink_multidb.xml`]: { sources: FOUR, sets: [["protein_taxonomy", 4]] },
  [`${BIO}/elink_multidb_corr.xml`]: { sources: FOUR_BY_ID, sets: [["protein_taxonomy", 4]] },
  [`${BIO}/elink_neighbor.xml`]: {
    sources: FOUR,
    sets: [
      ["protein_pubmed", 5],
      ["protein_pubmed_refseq", 2],
    ],
  },
  // Six LinkSetDb blocks over four LinkSets merge into two names.
  [`${BIO}/elink_neighbor_corr.xml`]: {
    sources: FOUR_BY_ID,
    sets: [
      ["protein_pubmed", 5],
      ["protein_pubmed_refseq", 2],
    ],
  },
  [`${BIO}/elink_scores.xml`]: {
    sources: ["15622530"],
    sets: [
      ["protein_protein", 9],
      ["protein_protein_identical", 3],
    ],
  },
  [`${BIO}/elink_dball.xml`]: {
    sources: ["15622530"],
    sets: [
      ["protein_gene", 1],
      ["protein_genomeprj", 1],
      ["protein_genomeprj_insdc", 0],
      ["protein_nuccore", 1],
      ["protein_nucest_mgc", 0],
      ["protein_nucgss_mgc", 0],
      ["protein_protein", 9],
      ["protein_protein_identical", 3],
      ["protein_pubmed", 1],
      ["protein_taxonomy", 1],
    ],
  },
};

function zip(names: string[], counts: number[]): [string, number][] {
  return names.map((n, i) => [n, counts[i] ?? -1]);
}

describeShared("parseELink on recorded replies", () => {
  test("every elink fixture is covered below", () => {
    expect(fixturesNamed(/^(?:.*elink.*|sample-\d+|sample_related_pmids_result)\.xml$/)).toEqual(
      Object.keys(PARSED).sort(),
    );
  });

  test.each(Object.entries(PARSED))("%s", (file, expected) => {
    const result = parseELink(eutilsFixture(file));
    expect(result.sourceIds).toEqual(expected.sources);
    expect(result.linkSets.map((s) => [s.linkName, s.links.length])).toEqual(expected.sets);
  });

  test("PubMed neighbours without scores keep NCBI's order, score null", () => {
    const [similar] = parseELink(eutilsFixture("biopython/Entrez/elink1.xml")).linkSets;
    expect(similar?.dbTo).toBe("pubmed");
    expect(similar?.links.slice(0, 3)).toEqual([
      { pmid: "9298984", score: null },
      { pmid: "8794856", score: null },
      { pmid: "9700164", score: null },
    ]);
    expect(similar?.links.at(-1)).toEqual({ pmid: "17333235", score: null });
  });

  test("cmd=neighbor_score scores become numbers", () => {
    expect(parseELink(eutilsFixture("elink-json/sample-3.xml")).linkSets[0]).toEqual({
      linkName: "pubmed_pubmed",
      dbTo: "pubmed",
      links: [
        { pmid: "15876306", score: 75133399 },
        { pmid: "15466689", score: 66865452 },
      ],
    });
    const identical = parseELink(eutilsFixture(`${BIO}/elink_scores.xml`)).linkSets[1];
    expect(identical?.links).toEqual([
      { pmid: "15622530", score: 2147483647 },
      { pmid: "74573864", score: 0 },
      { pmid: "15921743", score: 0 },
    ]);
  });

  test("one LinkSet per source id merges by LinkName, in reply order", () => {
    expect(parseELink(eutilsFixture(`${BIO}/elink_multidb_corr.xml`))).toEqual({
      sourceIds: FOUR_BY_ID,
      linkSets: [
        {
          linkName: "protein_taxonomy",
          dbTo: "taxonomy",
          links: ["83332", "306537", "273068", "1394"].map((pmid) => ({ pmid, score: null })),
        },
      ],
    });
  });

  test("an elink with no LinkSetDb is an empty result", () => {
    expect(parseELink(eutilsFixture("metapub/medgen_elink_pubmed_0_entries.xml"))).toEqual({
      sourceIds: ["0"],
      linkSets: [],
    });
  });

  test("whole reply for linkname=pubmed_pubmed_five", () => {
    expect(parseELink(eutilsFixture("elink-json/sample-2.xml"))).toEqual({
      sourceIds: ["1000", "2000"],
      linkSets: [
        {
          linkName: "pubmed_pubmed_five",
          dbTo: "pubmed",
          links: ["2000", "1000", "1002"].map((pmid) => ({ pmid, score: null })),
        },
      ],
    });
  });

  test("HTML and truncated bodies are UpstreamErrors", () => {
    expect(() => parseELink(eutilsFixture("biopython/Entrez/pubmed3.html"))).toThrow(UpstreamError);
    const full = eutilsFixture("biopython/Entrez/elink2.xml");
    const cut = () => parseELink(full.slice(0, full.indexOf("</LinkSetDb>")));
    expect(cut).toThrow(/malformed ELink reply.*retry/);
  });
});

// Project-authored replies: NCBI's <ERROR> at either level, and a target shared by two sources.
test("<ERROR> at the root or in a LinkSet is an EntrezError with NCBI's words", () => {
  const root = () =>
    parseELink("<eLinkResult><ERROR>Invalid db name specified: x</ERROR></eLinkResult>");
  expect(root).toThrow(EntrezError);
  expect(root).toThrow("NCBI ELink reported an error: Invalid db name specified: x");
  const inSet = () =>
    parseELink(
      "<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom><ERROR>UID=0: bad id</ERROR></LinkSet></eLinkResult>",
    );
  expect(inSet).toThrow(/ELink reported an error: UID=0: bad id/);
});

test("a target reached from two sources is listed once", () => {
  const set = (src: string, ids: string[]) =>
    `<LinkSet><DbFrom>pubmed</DbFrom><IdList><Id>${src}</Id></IdList><LinkSetDb><DbTo>pubmed</DbTo>` +
    `<LinkName>pubmed_pubmed_citedin</LinkName>${ids.map((i) => `<Link><Id>${i}</Id></Link>`).join("")}</LinkSetDb></LinkSet>`;
  const result = parseELink(
    `<eLinkResult>${set("1", ["10", "11"])}${set("2", ["11", "12"])}</eLinkResult>`,
  );
  expect(result.sourceIds).toEqual(["1", "2"]);
  expect(result.linkSets[0]?.links.map((l) => l.pmid)).toEqual(["10", "11", "12"]);
});
