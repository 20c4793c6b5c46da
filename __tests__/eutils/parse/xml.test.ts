/**
 * The text readers' whitespace rule (normalizeSpace), and that what they return owns its
 * characters: a parsed record kept without its reply (a tool's result, a prepared batch) must not
 * keep the whole reply alive.
 */
import { describe, expect, test } from "@jest/globals";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { articleSetXml } from "../../../src/devtools/synth-xml.js";
import { createSynthCorpus } from "../../../src/devtools/synth.js";
import { parseEFetch } from "../../../src/ncbi/parse/efetch.js";
import { parseEFetchXml2js } from "../../../src/ncbi/parse/efetch-xml2js.js";
import { normalizeSpace } from "../../../src/ncbi/parse/xml.js";

describe("normalizeSpace", () => {
  test.each([
    ["single spaces stay", "a b c", "a b c"],
    ["ends are trimmed", "  a b  ", "a b"],
    ["runs collapse", "a   b", "a b"],
    ["a newline is a space", "a\nb", "a b"],
    ["tabs and carriage returns", "a\t\r\nb", "a b"],
    ["a no-break space is a space", "a\u00a0b", "a b"],
    ["an ideographic space is a space", "a\u3000b", "a b"],
    ["no whitespace", "abc", "abc"],
    ["only whitespace", " \n\t ", ""],
    ["empty", "", ""],
  ])("%s", (_what, input, expected) => {
    expect(normalizeSpace(input)).toBe(expected);
  });

  test("agrees with the plain regex rule on random texts", () => {
    const alphabet = ["a", "b", " ", " ", "\n", "\t", "\u00a0", "é", "1"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]);
      const s = text.join("");
      expect(normalizeSpace(s)).toBe(s.replace(/\s+/g, " ").trim());
    }
  });

  test.each([
    ["single spaces", "a title with single spaces only"],
    ["no whitespace", "10.5555/fronttranslimmunol.2015.000000"],
    ["runs to collapse", "a title  with\na newline"],
  ])("owns its characters: %s", (_what, piece) => {
    const grown = retainedMb(() => {
      const reply = `${"x".repeat(32 * MB)}<t>${piece}</t>${"y".repeat(32 * MB)}`;
      const start = reply.indexOf("<t>") + 3;
      return normalizeSpace(reply.slice(start, reply.indexOf("</t>", start)));
    });
    expect(grown.kept).toBe(normalizeSpace(piece));
    expect(grown.mb).toBeLessThan(8);
  });
});

describe("a parsed record keeps none of its reply alive", () => {
  const corpus = createSynthCorpus({
    seed: 5,
    terms: [{ term: "pin", count: 2000, edatFrom: "2001-01-01", edatTo: "2024-12-31" }],
  });
  const pmids = corpus.pmidsFor("pin");

  test.each([
    ["xml2js (the reference)", parseEFetchXml2js],
    ["the reader (pubmed_fetch, cached; the sync)", parseEFetch],
  ])("%s", (_what, parse) => {
    let replyMb = 0;
    const grown = retainedMb(() => {
      const reply = articleSetXml(corpus.records(pmids)).replace(/></g, ">\n  <");
      replyMb = reply.length / MB; // one byte a character: the reply is ASCII
      return parse(reply)[0];
    });
    expect(grown.kept?.pmid).toBe(pmids[0]);
    expect(replyMb).toBeGreaterThan(12);
    expect(grown.mb).toBeLessThan(replyMb / 4);
  });
});

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const MB = 2 ** 20;

/**
 * Heap growth (MB) while only what `make` returns is kept. Before measuring, a regex runs on a
 * string of its own: V8 keeps the last regex subject alive (RegExp.input), and that one string is
 * not what this measures.
 */
function retainedMb<T>(make: () => T): { kept: T; mb: number } {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  /x/.exec("xx");
  gc();
  return { kept, mb: (process.memoryUsage().heapUsed - before) / MB };
}
