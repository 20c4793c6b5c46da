import { expect, test } from "@jest/globals";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { EntrezError, RateLimitError, UpstreamError } from "../../../src/errors.js";
import { parseESearch } from "../../../src/ncbi/parse/esearch.js";
import type { ESearchResult } from "../../../src/ncbi/types.js";
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

type Expected = Partial<ESearchResult> & { idCount: number; firstId?: string; lastId?: string };

/** Values read off each recorded reply. */
const PARSED: Record<string, Expected> = {
  "biopython/Entrez/esearch1.xml": {
    count: 63,
    retMax: 20,
    retStart: 0,
    idCount: 20,
    firstId: "41282813",
    lastId: "37810457",
    queryTranslation: '"biopython"[All Fields]',
    webEnv: null,
    queryKey: null,
    warnings: [],
  },
  "biopython/Entrez/esearch2.xml": {
    count: 42249,
    retMax: 100,
    idCount: 100,
    firstId: "41297076",
    lastId: "41296368",
    webEnv: "MCID_6927d6e7fee3e90f880ec190",
    queryKey: "1",
    warnings: [],
  },
  "biopython/Entrez/esearch3.xml": { count: 2651, retMax: 6, retStart: 6, idCount: 6 },
  "biopython/Entrez/esearch5.xml": { count: 5, idCount: 5, firstId: "6540636" },
  "biopython/Entrez/esearch6.xml": {
    count: 1018,
    idCount: 20,
    firstId: "3069587804",
    lastId: "2274792553",
    queryTranslation: "biomol trna[prop]",
  },
  "biopython/Entrez/esearch7.xml": {
    count: 330,
    idCount: 20,
    firstId: "3108048616",
    queryTranslation: "000200020[molecular weight]",
  },
  "biopython/Entrez/esearch8.xml": { count: 0, idCount: 0 },
  "Bio-EUtilities/t/data/eutils/esearch1.xml": {
    count: 534,
    retMax: 20,
    idCount: 20,
    firstId: "6679096",
    lastId: "8568086",
    queryTranslation:
      'Notch[All Fields] AND ("Mus musculus"[Organism] OR Mus musculus[All Fields])',
    webEnv: null,
    queryKey: null,
  },
  "Bio-EUtilities/t/data/eutils/esearch2.xml": {
    count: 534,
    idCount: 20,
    queryKey: "1",
    webEnv: "00m7eJh8lyG3wiC2SE2hd7Im_w5o3z3q4_JK9-Rn266ix_eRXkjNOYQxHp@03F17619941CFD71_0005SID",
  },
  "Eutils-JSON/samples/esearch.pubmed.xml": {
    count: 15169,
    retMax: 100,
    idCount: 100,
    firstId: "23175848",
    lastId: "23174999",
    queryKey: "1",
    webEnv: "NCID_1_18991374_130.14.18.48_5555_1353814292_87026138",
    queryTranslation:
      '("neoplasms"[MeSH Terms] OR "neoplasms"[All Fields] OR "cancer"[All Fields]) AND 2012/09/25[EDAT] : 2012/11/24[EDAT]',
  },
  "Eutils-JSON/samples/esearch.error.xml": {
    count: 5163,
    idCount: 20,
    firstId: "101595451",
    lastId: "101557580",
    queryTranslation: '"obstetrics"[MeSH Terms]',
    warnings: ['Phrase not found: "fleegle[MeSH Terms]"'],
  },
};

/** Replies that must be refused, with words from NCBI's message. */
const REFUSED: Record<string, RegExp> = {
  "Eutils-JSON/samples/esearch.baderror.xml": /ESearch.*Invalid db name specified: fleegle/,
};

describeShared("parseESearch on recorded replies", () => {
  test("every esearch fixture is covered below", () => {
    expect(fixturesNamed(/^esearch.*\.xml$/)).toEqual(
      [...Object.keys(PARSED), ...Object.keys(REFUSED)].sort(),
    );
  });

  test.each(Object.entries(PARSED))("%s", (file, expected) => {
    const result = parseESearch(eutilsFixture(file));
    const { idCount, firstId, lastId, ...fields } = expected;
    expect(result).toMatchObject(fields);
    expect(result.ids).toHaveLength(idCount);
    expect(result.ids.every((id) => /^\d+$/.test(id))).toBe(true);
    if (firstId) expect(result.ids[0]).toBe(firstId);
    if (lastId) expect(result.ids.at(-1)).toBe(lastId);
  });

  test.each(Object.entries(REFUSED))("%s is an EntrezError", (file, message) => {
    const run = () => parseESearch(eutilsFixture(file));
    expect(run).toThrow(EntrezError);
    expect(run).toThrow(message);
  });

  test("a PMID query by journal and volume parses whole", () => {
    expect(parseESearch(eutilsFixture("biopython/Entrez/esearch3.xml"))).toEqual({
      count: 2651,
      retMax: 6,
      retStart: 6,
      ids: ["11121077", "11121076", "11121075", "11121074", "11121073", "11121072"],
      queryTranslation: '"proc natl acad sci u s a"[Journal] AND "97"[Volume]',
      webEnv: null,
      queryKey: null,
      warnings: [],
    });
  });

  test("zero hits with ErrorList and WarningList is a result with readable warnings", () => {
    expect(parseESearch(eutilsFixture("biopython/Entrez/esearch8.xml"))).toEqual({
      count: 0,
      retMax: 0,
      retStart: 0,
      ids: [],
      queryTranslation: "(abcXYZ[All Fields])",
      webEnv: null,
      queryKey: null,
      warnings: ['Phrase not found: "abcXYZ"', "No items found."],
    });
  });

  test("a date-windowed history search keeps WebEnv and the full translation", () => {
    const result = parseESearch(eutilsFixture("biopython/Entrez/esearch2.xml"));
    expect(result.queryTranslation).toMatch(/^\("cancer s"\[All Fields\] OR /);
    expect(result.queryTranslation).toMatch(/AND 2025\/09\/27:2025\/11\/26\[Date - Entry\]$/);
  });

  test("an HTML page and a truncated body are UpstreamErrors asking for a retry", () => {
    const html = () => parseESearch(eutilsFixture("biopython/Entrez/pubmed3.html"));
    expect(html).toThrow(UpstreamError);
    expect(html).toThrow(/HTML page instead of an ESearch XML reply; retry/);
    const full = eutilsFixture("biopython/Entrez/esearch1.xml");
    const cut = () => parseESearch(full.slice(0, full.indexOf("</IdList>")));
    expect(cut).toThrow(UpstreamError);
    expect(cut).toThrow(/malformed ESearch reply.*retry/);
  });
});

// Project-authored replies for warning kinds no recorded fixture carries.
test("FieldNotFound, PhraseIgnored and QuotedPhraseNotFound read as sentences", () => {
  const xml =
    "<eSearchResult><Count>3</Count><RetMax>3</RetMax><RetStart>0</RetStart>" +
    "<IdList><Id>1</Id><Id>2</Id><Id>3</Id></IdList>" +
    "<QueryTranslation>cat[All Fields]</QueryTranslation>" +
    "<ErrorList><FieldNotFound>xyz</FieldNotFound></ErrorList>" +
    "<WarningList><PhraseIgnored>the</PhraseIgnored>" +
    "<QuotedPhraseNotFound>fat cat sat</QuotedPhraseNotFound><OutputMessage>Quoted phrase not found.</OutputMessage>" +
    "</WarningList></eSearchResult>";
  expect(parseESearch(xml).warnings).toEqual([
    'Field not found: "xyz"',
    'Phrase ignored: "the"',
    'Quoted phrase not found: "fat cat sat"',
    "Quoted phrase not found.",
  ]);
});

test("a JSON rate-limit body is a RateLimitError, other JSON an UpstreamError", () => {
  const limited = () => parseESearch('{"error":"API rate limit exceeded","count":"11"}');
  expect(limited).toThrow(RateLimitError);
  expect(limited).toThrow(/rate limit.*API rate limit exceeded \(count 11\)/);
  expect(() => parseESearch('{"esearchresult":{}}')).toThrow(UpstreamError);
  expect(() => parseESearch("")).toThrow(/malformed ESearch reply \(empty body\)/);
});

test("a reply without <Count> is malformed", () => {
  expect(() => parseESearch("<eSearchResult><IdList/></eSearchResult>")).toThrow(
    /malformed ESearch reply \(no <Count>\)/,
  );
});
