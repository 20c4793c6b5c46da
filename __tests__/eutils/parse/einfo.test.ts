import { expect, test } from "@jest/globals";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { EntrezError, UpstreamError } from "../../../src/errors.js";
import { parseEInfo, parseEInfoDbList } from "../../../src/ncbi/parse/einfo.js";
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

/** Single-database replies: values read off each file. */
const DB_INFO: Record<
  string,
  { count: number; lastUpdate: string; fields: number; links: number; similarMenu: string }
> = {
  "Bio-EUtilities/t/data/eutils/einfo.xml": {
    count: 18525976,
    lastUpdate: "2008/12/11 02:33",
    fields: 41,
    links: 46,
    similarMenu: "Related Articles",
  },
  "Eutils-JSON/samples/einfo.pubmed.xml": {
    count: 22284197,
    lastUpdate: "2012/11/22 04:25",
    fields: 47,
    links: 59,
    similarMenu: "Related Citations",
  },
  "biopython/Entrez/einfo2.xml": {
    count: 39730388,
    lastUpdate: "2025/11/27 06:33",
    fields: 50,
    links: 57,
    similarMenu: "Similar articles",
  },
};

/** Bare `einfo` replies: how many databases, and the last one listed. */
const DB_LIST: Record<string, { count: number; last: string }> = {
  "Bio-EUtilities/t/data/eutils/einfo_dbs.xml": { count: 37, last: "unists" },
  "Eutils-JSON/samples/einfo.xml": { count: 51, last: "gencoll" },
  "biopython/Entrez/einfo1.xml": { count: 39, last: "gtr" },
};

const BROKEN = {
  error: "Eutils-JSON/samples/einfo.error.xml",
  truncated: "biopython/Entrez/einfo4.xml",
};

describeShared("parseEInfo on recorded replies", () => {
  test("every einfo fixture is covered below", () => {
    expect(fixturesNamed(/^einfo.*\.xml$/)).toEqual(
      [...Object.keys(DB_INFO), ...Object.keys(DB_LIST), ...Object.values(BROKEN)].sort(),
    );
  });

  test.each(Object.entries(DB_INFO))("%s", (file, expected) => {
    const info = parseEInfo(eutilsFixture(file));
    expect(info).toMatchObject({
      dbName: "pubmed",
      description: "PubMed bibliographic record",
      count: expected.count,
      lastUpdate: expected.lastUpdate,
    });
    expect(info.fields).toHaveLength(expected.fields);
    expect(info.links).toHaveLength(expected.links);
    expect(info.fields.find((f) => f.name === "MESH")).toEqual({
      name: "MESH",
      fullName: "MeSH Terms",
      description: "Medical Subject Headings assigned to publication",
    });
    expect(info.links.find((l) => l.name === "pubmed_pubmed")).toMatchObject({
      menu: expected.similarMenu,
      dbTo: "pubmed",
    });
  });

  test("field and link entries keep NCBI's order and text", () => {
    const info = parseEInfo(eutilsFixture("biopython/Entrez/einfo2.xml"));
    expect(info.fields[0]).toEqual({
      name: "ALL",
      fullName: "All Fields",
      description: "All terms from all searchable fields",
    });
    expect(info.links.at(-1)).toEqual({
      name: "pubmed_taxonomy_entrez",
      menu: "Taxonomy via GenBank",
      description: "Related Taxonomy entry computed using other Entrez links",
      dbTo: "taxonomy",
    });
  });

  test.each(Object.entries(DB_LIST))("%s lists databases", (file, expected) => {
    const names = parseEInfoDbList(eutilsFixture(file));
    expect(names).toHaveLength(expected.count);
    expect(names[0]).toBe("pubmed");
    expect(names.at(-1)).toBe(expected.last);
    const asSingle = () => parseEInfo(eutilsFixture(file));
    expect(asSingle).toThrow(UpstreamError);
    expect(asSingle).toThrow(/database list \(DbList\) where one database's DbInfo was expected/);
  });

  test("NCBI's <ERROR> for an unknown db is an EntrezError with its words", () => {
    const run = () => parseEInfo(eutilsFixture(BROKEN.error));
    expect(run).toThrow(EntrezError);
    expect(run).toThrow("NCBI EInfo reported an error: Can not retrieve DbInfo for db=fleegle");
    expect(() => parseEInfoDbList(eutilsFixture(BROKEN.error))).toThrow(EntrezError);
  });

  test("a truncated body is an UpstreamError asking for a retry", () => {
    for (const parse of [parseEInfo, parseEInfoDbList]) {
      const run = () => parse(eutilsFixture(BROKEN.truncated));
      expect(run).toThrow(UpstreamError);
      expect(run).toThrow(
        "NCBI returned a malformed EInfo reply (Unclosed root tag); retry the call.",
      );
    }
  });

  test("a DbInfo reply given to parseEInfoDbList is refused", () => {
    expect(() => parseEInfoDbList(eutilsFixture("biopython/Entrez/einfo2.xml"))).toThrow(
      /unexpected EInfo reply \(no DbList\)/,
    );
  });
});

// Project-authored: optional parts missing.
test("missing Description/Count/LastUpdate read as null, missing lists as []", () => {
  expect(parseEInfo("<eInfoResult><DbInfo><DbName>pmc</DbName></DbInfo></eInfoResult>")).toEqual({
    dbName: "pmc",
    description: null,
    count: null,
    lastUpdate: null,
    fields: [],
    links: [],
  });
});
