import { expect, test } from "@jest/globals";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { EntrezError, UpstreamError } from "../../../src/errors.js";
import { parseESummary } from "../../../src/ncbi/parse/esummary.js";
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

/** uids and titles read off each recorded reply (other databases parse with what they carry). */
const PARSED: Record<string, { uids: string[]; titles?: string[]; errorUids?: string[] }> = {
  "Eutils-JSON/samples/esummary.pubmed.xml": {
    uids: ["5683731", "22144687"],
    titles: ["An assistive device for smoking.", "GenBank."],
  },
  "Eutils-JSON/samples/esummary.pmc.xml": { uids: ["254085", "14900"] },
  "Eutils-JSON/samples/esummary.pmcerror.xml": { uids: ["254085", "14900"], errorUids: ["1"] },
  "Eutils-JSON/samples/esummary.books.xml": {
    uids: ["2825746"],
    titles: ["Dictionary of Cancer Terms"],
  },
  "biopython/Entrez/esummary1.xml": { uids: ["11850928", "11482001"] },
  "biopython/Entrez/esummary3.xml": {
    uids: ["28800982", "28628843"],
    titles: [
      "hemochromatosis, partial [Homo sapiens]",
      "erythroid associated factor [Homo sapiens]",
    ],
  },
  "biopython/Entrez/esummary4.xml": {
    uids: ["28864546", "28800981"],
    titles: [
      "Homo sapiens alpha hemoglobin (HBZP) pseudogene 3' UTR/AluJo repeat breakpoint junction",
      "Homo sapiens hemochromatosis (HFE) mRNA, partial cds",
    ],
  },
  "biopython/Entrez/esummary5.xml": { uids: ["19923", "12120"], titles: ["", ""] },
  "biopython/Entrez/esummary6.xml": { uids: ["9913", "30521"] },
  "biopython/Entrez/esummary9.xml": { uids: ["7488"] },
  "Bio-EUtilities/t/data/eutils/esummary1.xml": {
    uids: ["1621261", "89318838", "68536103", "20807972", "730439"],
  },
  // HomoloGene nests Items named "Title" inside structures; only a top-level Title counts.
  "Bio-EUtilities/t/data/eutils/esummary2.xml": { uids: ["32049", "45614"], titles: ["", ""] },
};

const REFUSED: Record<string, RegExp> = {
  "Eutils-JSON/samples/esummary.error.xml": /ESummary.*Invalid db name specified: fleegle/,
  "biopython/Entrez/esummary8.xml": /ESummary.*Neither query_key nor id specified/,
};

describeShared("parseESummary on recorded replies", () => {
  test("every esummary fixture is covered below", () => {
    expect(fixturesNamed(/^esummary.*\.xml$/)).toEqual(
      [...Object.keys(PARSED), ...Object.keys(REFUSED)].sort(),
    );
  });

  test.each(Object.entries(PARSED))("%s", (file, expected) => {
    const result = parseESummary(eutilsFixture(file));
    expect(result.summaries.map((s) => s.pmid)).toEqual(expected.uids);
    if (expected.titles) expect(result.summaries.map((s) => s.title)).toEqual(expected.titles);
    expect(result.errors.map((e) => e.uid)).toEqual(expected.errorUids ?? []);
  });

  test.each(Object.entries(REFUSED))("%s is an EntrezError", (file, message) => {
    const run = () => parseESummary(eutilsFixture(file));
    expect(run).toThrow(EntrezError);
    expect(run).toThrow(message);
  });

  test("version 2.0 PubMed summaries parse whole, DOI from ArticleIds", () => {
    expect(parseESummary(eutilsFixture("Eutils-JSON/samples/esummary.pubmed.xml"))).toEqual({
      summaries: [
        {
          pmid: "5683731",
          title: "An assistive device for smoking.",
          authors: ["Goldberg MJ", "Davis LJ"],
          source: "Paraplegia",
          pubDate: "1968 Aug",
          doi: "10.1038/sc.1968.18",
          publicationTypes: ["Journal Article"],
          references: [],
        },
        {
          pmid: "22144687",
          title: "GenBank.",
          authors: [
            "Benson DA",
            "Karsch-Mizrachi I",
            "Clark K",
            "Lipman DJ",
            "Ostell J",
            "Sayers EW",
          ],
          source: "Nucleic Acids Res",
          pubDate: "2012 Jan",
          doi: "10.1093/nar/gkr1202",
          publicationTypes: ["Journal Article"],
          references: [],
        },
      ],
      errors: [],
    });
  });

  test("legacy v1 DocSums parse whole", () => {
    expect(parseESummary(eutilsFixture("biopython/Entrez/esummary1.xml"))).toEqual({
      summaries: [
        {
          pmid: "11850928",
          title: "Zirconium granuloma following treatment of rhus dermatitis.",
          authors: ["LoPresti PJ", "Hambrick GW Jr"],
          source: "Arch Dermatol",
          pubDate: "1965 Aug",
          doi: null,
          publicationTypes: ["Journal Article"],
          references: [],
        },
        {
          pmid: "11482001",
          title: "Adverse and beneficial effects of plant extracts on skin and skin disorders.",
          authors: ["Mantle D", "Gok MA", "Lennard TW"],
          source: "Adverse Drug React Toxicol Rev",
          pubDate: "2001 Jun",
          doi: null,
          publicationTypes: ["Journal Article", "Review"],
          references: [],
        },
      ],
      errors: [],
    });
  });

  test("a per-uid <error> is reported next to the records, not thrown", () => {
    const result = parseESummary(eutilsFixture("Eutils-JSON/samples/esummary.pmcerror.xml"));
    expect(result.errors).toEqual([{ uid: "1", message: "cannot get document summary" }]);
    expect(result.summaries[1]).toEqual({
      pmid: "14900",
      title:
        "Inactivation of lmpA, Encoding a LIMPII-related Endosomal Protein, Suppresses the Internalization and Endosomal Trafficking Defects in Profilin-null Mutants",
      authors: ["Temesvari L", "Zhang L", "Fodera B", "Janssen KP", "Schleicher M", "Cardelli JA"],
      source: "Mol Biol Cell",
      pubDate: "2000 Jun",
      doi: null,
      publicationTypes: [],
      references: [],
    });
  });

  test("a MedGen version 2.0 set (with DbBuild) still parses", () => {
    const result = parseESummary(eutilsFixture("metapub/medgen_concept_336867.xml"));
    expect(result.summaries.map((s) => [s.pmid, s.title])).toEqual([["336867", "Dent disease 2"]]);
  });

  test("HTML instead of XML is an UpstreamError", () => {
    const run = () => parseESummary(eutilsFixture("biopython/Entrez/pubmed3.html"));
    expect(run).toThrow(UpstreamError);
    expect(run).toThrow(/HTML page instead of an ESummary XML reply; retry/);
  });
});

// Project-authored replies for cases the recorded fixtures lack.
test("DOI falls back to ELocationID, and escaped inline markup leaves titles", () => {
  const xml = `<eSummaryResult><DocumentSummarySet status="OK">
    <DocumentSummary uid="123"><Title>Role of &lt;i&gt;BRCA1&lt;/i&gt; in  repair.</Title>
      <Authors><Author><Name>Doe J</Name></Author><Author><Name>Study Group</Name></Author></Authors>
      <Source>Lancet</Source><PubDate>2020 Feb 8</PubDate>
      <ArticleIds><ArticleId><IdType>pubmed</IdType><Value>123</Value></ArticleId></ArticleIds>
      <ELocationID>pii: S0140-6736(20)30183-5. doi: 10.1016/S0140-6736(20)30183-5.</ELocationID>
    </DocumentSummary></DocumentSummarySet></eSummaryResult>`;
  expect(parseESummary(xml).summaries).toEqual([
    {
      pmid: "123",
      title: "Role of BRCA1 in repair.",
      authors: ["Doe J", "Study Group"],
      source: "Lancet",
      pubDate: "2020 Feb 8",
      doi: "10.1016/S0140-6736(20)30183-5",
      publicationTypes: [],
      references: [],
    },
  ]);
});

test("v1: DOI from ArticleIds, and an <ERROR> beside records names the bad uid", () => {
  const xml = `<eSummaryResult><ERROR>Invalid uid 99999999999 at position= 1</ERROR>
    <DocSum><Id>456</Id><Item Name="Title" Type="String">A title</Item>
      <Item Name="ArticleIds" Type="List"><Item Name="pubmed" Type="String">456</Item>
        <Item Name="doi" Type="String">10.1000/xyz</Item></Item></DocSum></eSummaryResult>`;
  expect(parseESummary(xml)).toEqual({
    summaries: [
      {
        pmid: "456",
        title: "A title",
        authors: [],
        source: "",
        pubDate: "",
        doi: "10.1000/xyz",
        publicationTypes: [],
        references: [],
      },
    ],
    errors: [{ uid: "99999999999", message: "Invalid uid 99999999999 at position= 1" }],
  });
});
