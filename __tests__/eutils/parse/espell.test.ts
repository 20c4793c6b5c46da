import { expect, test } from "@jest/globals";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { EntrezError, UpstreamError } from "../../../src/errors.js";
import { parseESpell } from "../../../src/ncbi/parse/espell.js";
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

const PARSED = {
  "Bio-EUtilities/t/data/eutils/espell.xml": {
    original: "Netch AND Mus musclus",
    corrected: "notch AND mus musculus",
  },
  "biopython/Entrez/espell.xml": { original: "biopythooon", corrected: "biopython" },
};

describeShared("parseESpell on recorded replies", () => {
  test("every espell fixture is covered below", () => {
    expect(fixturesNamed(/^espell.*\.xml$/)).toEqual(Object.keys(PARSED).sort());
  });

  // Both replies carry an empty <ERROR/>, which must not read as a failure.
  test.each(Object.entries(PARSED))("%s", (file, expected) => {
    expect(parseESpell(eutilsFixture(file))).toEqual(expected);
  });

  test("HTML instead of XML is an UpstreamError", () => {
    const run = () => parseESpell(eutilsFixture("biopython/Entrez/pubmed3.html"));
    expect(run).toThrow(UpstreamError);
    expect(run).toThrow(/HTML page instead of an ESpell XML reply/);
  });
});

// Project-authored replies.
test("an empty CorrectedQuery is passed through as no suggestion", () => {
  const xml =
    "<eSpellResult><Database>pubmed</Database><Query>asthma</Query>" +
    "<CorrectedQuery></CorrectedQuery><SpelledQuery/><ERROR/></eSpellResult>";
  expect(parseESpell(xml)).toEqual({ original: "asthma", corrected: "" });
});

test("an <ERROR> with text is an EntrezError", () => {
  const run = () =>
    parseESpell("<eSpellResult><Query/><ERROR>Invalid db name specified: x</ERROR></eSpellResult>");
  expect(run).toThrow(EntrezError);
  expect(run).toThrow("NCBI ESpell reported an error: Invalid db name specified: x");
});

test("a reply for another utility is refused", () => {
  expect(() => parseESpell("<eSearchResult><Count>1</Count></eSearchResult>")).toThrow(
    /unexpected ESpell reply \(root <eSearchResult>, expected <eSpellResult>\)/,
  );
});
