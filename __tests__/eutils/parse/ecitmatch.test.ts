/**
 * No recorded ECitMatch reply exists in ../shared, so the replies here are project-authored,
 * following NCBI's documented line format (request fields echoed, answer appended).
 */
import { expect, test } from "@jest/globals";
import { EntrezError, RateLimitError, UpstreamError } from "../../../src/errors.js";
import { formatECitMatchBdata, parseECitMatch } from "../../../src/ncbi/parse/ecitmatch.js";

const REPLY = [
  "proc natl acad sci u s a|1991|88|3248|mann bj|Art1|2014248",
  "science|1987|235|182|palmenber ac|Art2|NOT_FOUND",
  "bionformatics|2015|31|3897|cock pj|Art3|NOT_FOUND;INVALID_JOURNAL",
  "bioinformatics|2015|31|||Art4|AMBIGUOUS (783 citations)",
  "",
].join("\n");

test("matched, NOT_FOUND and AMBIGUOUS lines parse with the raw answer", () => {
  expect(parseECitMatch(REPLY)).toEqual([
    {
      journal: "proc natl acad sci u s a",
      year: "1991",
      volume: "88",
      firstPage: "3248",
      authorName: "mann bj",
      key: "Art1",
      answer: "2014248",
    },
    {
      journal: "science",
      year: "1987",
      volume: "235",
      firstPage: "182",
      authorName: "palmenber ac",
      key: "Art2",
      answer: "NOT_FOUND",
    },
    {
      journal: "bionformatics",
      year: "2015",
      volume: "31",
      firstPage: "3897",
      authorName: "cock pj",
      key: "Art3",
      answer: "NOT_FOUND;INVALID_JOURNAL",
    },
    {
      journal: "bioinformatics",
      year: "2015",
      volume: "31",
      firstPage: "",
      authorName: "",
      key: "Art4",
      answer: "AMBIGUOUS (783 citations)",
    },
  ]);
});

test("a miss with the author column dropped still yields key and answer", () => {
  expect(parseECitMatch("science|1987|235|182|Art2|NOT_FOUND\r\n")).toEqual([
    {
      journal: "science",
      year: "1987",
      volume: "235",
      firstPage: "182",
      authorName: "",
      key: "Art2",
      answer: "NOT_FOUND",
    },
  ]);
});

test("a trailing pipe after the answer and CR line ends are tolerated", () => {
  const lines = parseECitMatch("j|2001|1|5|doe j|k1|123456|\rj|2001|1|6|doe j|k2|AMBIGUOUS 1,2|\r");
  expect(lines.map((l) => [l.key, l.answer, l.authorName])).toEqual([
    ["k1", "123456", "doe j"],
    ["k2", "AMBIGUOUS 1,2", "doe j"],
  ]);
});

test("an empty body is no lines", () => {
  expect(parseECitMatch(" \n")).toEqual([]);
});

test("markup, JSON and short lines are typed errors, not citations", () => {
  const entrez = () =>
    parseECitMatch("<eCitMatchResult><ERROR>Empty bdata</ERROR></eCitMatchResult>");
  expect(entrez).toThrow(EntrezError);
  expect(entrez).toThrow("NCBI ECitMatch reported an error: Empty bdata");
  expect(() => parseECitMatch("<ERROR>Bad request</ERROR>")).toThrow(/ECitMatch.*Bad request/);
  expect(() => parseECitMatch("<html><body>Service unavailable</body></html>")).toThrow(
    /HTML page instead of an ECitMatch XML reply/,
  );
  expect(() =>
    parseECitMatch('{"error":"API rate limit exceeded","count":"4","limit":"3"}'),
  ).toThrow(RateLimitError);
  const short = () => parseECitMatch("science|1987|NOT_FOUND");
  expect(short).toThrow(UpstreamError);
  expect(short).toThrow(/malformed ECitMatch reply \(line "science\|1987\|NOT_FOUND"\)/);
});

test("bdata: one line per citation ending in '|', joined by CR", () => {
  expect(
    formatECitMatchBdata([
      {
        journal: "proc natl acad sci u s a",
        year: "1991",
        volume: "88",
        firstPage: "3248",
        authorName: "mann bj",
        key: "Art1",
      },
      {
        journal: "science",
        year: "1987",
        volume: "235",
        firstPage: "182",
        authorName: "palmenber ac",
        key: "Art2",
      },
    ]),
  ).toBe(
    "proc natl acad sci u s a|1991|88|3248|mann bj|Art1|\rscience|1987|235|182|palmenber ac|Art2|",
  );
});

test("bdata: pipes and line breaks inside fields cannot split fields or lines", () => {
  const bdata = formatECitMatchBdata([
    {
      journal: "j|evil\r\njournal",
      year: " 2001 ",
      volume: "",
      firstPage: "1\n2",
      authorName: "a|b",
      key: "k|1",
    },
  ]);
  expect(bdata).toBe("j evil journal|2001||1 2|a b|k 1|");
  expect(bdata.split("\r")).toHaveLength(1);
  expect(bdata.split("|")).toHaveLength(7);
});

test("bdata round-trips through the reply parser", () => {
  const citation = {
    journal: "n engl j med",
    year: "2020",
    volume: "383",
    firstPage: "2603",
    authorName: "polack fp",
    key: "c1",
  };
  const echoed = `${formatECitMatchBdata([citation])}33301246`;
  expect(parseECitMatch(echoed)).toEqual([{ ...citation, answer: "33301246" }]);
});
