import { describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  BM25_AVG_DOC_LEN,
  BM25_B,
  BM25_K1,
  docSparseVector,
  docTerms,
  idf,
  querySparseVector,
  termId,
  tfPart,
  tokenize,
} from "../../src/retrieval/bm25.js";
import { porterStem } from "../../src/retrieval/stem.js";
import { chunkArticle } from "../../src/corpus/chunk.js";
import { articleSetXml } from "../../src/devtools/synth-xml.js";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { parseEFetch } from "../../src/ncbi/parse/efetch.js";
import { EUTILS_FIXTURES, describeShared } from "../helpers/shared.js";

describe("porterStem", () => {
  // Outputs of the complete algorithm (all five steps) as published by Porter (1980).
  const cases: [string, string][] = [
    ["caresses", "caress"],
    ["ponies", "poni"],
    ["ties", "ti"],
    ["cats", "cat"],
    ["feed", "feed"],
    ["agreed", "agre"],
    ["plastered", "plaster"],
    ["motoring", "motor"],
    ["sing", "sing"],
    ["hopping", "hop"],
    ["falling", "fall"],
    ["filing", "file"],
    ["happy", "happi"],
    ["sky", "sky"],
    ["relational", "relat"],
    ["conditional", "condit"],
    ["rational", "ration"],
    ["hesitanci", "hesit"],
    ["digitizer", "digit"],
    ["differentli", "differ"],
    ["vietnamization", "vietnam"],
    ["predication", "predic"],
    ["operator", "oper"],
    ["feudalism", "feudal"],
    ["decisiveness", "decis"],
    ["hopefulness", "hope"],
    ["callousness", "callous"],
    ["sensibiliti", "sensibl"],
    ["triplicate", "triplic"],
    ["formative", "form"],
    ["electrical", "electr"],
    ["goodness", "good"],
    ["revival", "reviv"],
    ["allowance", "allow"],
    ["inference", "infer"],
    ["airliner", "airlin"],
    ["adjustable", "adjust"],
    ["defensible", "defens"],
    ["replacement", "replac"],
    ["adoption", "adopt"],
    ["communism", "commun"],
    ["homologous", "homolog"],
    ["effective", "effect"],
    ["probate", "probat"],
    ["rate", "rate"],
    ["cease", "ceas"],
    ["controll", "control"],
    ["roll", "roll"],
    ["generalizations", "gener"],
    ["oscillators", "oscil"],
  ];
  it.each(cases)("%s → %s", (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });

  it("leaves words of one or two letters alone", () => {
    expect(["a", "is", "as"].map(porterStem)).toEqual(["a", "is", "as"]);
  });
});

describe("tokenize", () => {
  it("lowercases, drops stopwords and stems", () => {
    expect(tokenize("The Effects of Running on the Relational Hopping of Ponies")).toEqual([
      "effect",
      "run",
      "relat",
      "hop",
      "poni",
    ]);
  });

  it("splits hyphens and slashes, keeps numbers, letters and mixed tokens unstemmed", () => {
    expect(tokenize("IL-6/TNF-α levels in COVID-19 (H1N1, 2.5 mg) T-cells")).toEqual([
      "il",
      "6",
      "tnf",
      "α",
      "level",
      "covid",
      "19",
      "h1n1",
      "2",
      "5",
      "mg",
      "t",
      "cell",
    ]);
  });

  it("folds diacritics and compatibility forms", () => {
    expect(tokenize("Naïve café m² Ångström")).toEqual(["naiv", "cafe", "m2", "angstrom"]);
  });

  it("reads ASCII text exactly as the Unicode path does (its fast path changes no token)", () => {
    // Every ASCII character, in pseudo-random runs: tokens of `text` alone (the ASCII path) must
    // equal those of `text` plus a non-ASCII word (the NFKD/\p{L}\p{N} path), minus that word.
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let n = 0; n < 200; n++) {
      const length = 1 + (next() % 300);
      const text = Array.from({ length }, () => String.fromCharCode(next() % 128)).join("");
      expect([...tokenize(text), "cafe"]).toEqual(tokenize(`${text} café`));
    }
    expect(tokenize("IL-6/STAT3 signalling in 2,000 mice")).toEqual(
      tokenize("IL-6/STAT3 signalling in 2,000 mice é").slice(0, -1),
    );
  });

  it("keeps the possessive s out and returns nothing for stopwords only", () => {
    expect(tokenize("the patient's")).toEqual(["patient"]);
    expect(tokenize("it is what it is, and so on")).toEqual([]);
    expect(tokenize("")).toEqual([]);
  });
});

describe("termId", () => {
  it("is FNV-1a 32 over UTF-8, a stable uint32", () => {
    // Published FNV-1a test vectors.
    expect(termId("")).toBe(0x811c9dc5);
    expect(termId("a")).toBe(0xe40c292c);
    expect(termId("foobar")).toBe(0xbf9cf968);
    expect(termId("α")).toBe(termId("α"));
    for (const t of ["hop", "covid", "α", "h1n1"]) {
      expect(Number.isInteger(termId(t)) && termId(t) >= 0 && termId(t) <= 0xffffffff).toBe(true);
    }
  });
});

describe("BM25 vectors", () => {
  it("stores tf·(k1+1)/(tf + k1·(1 − b + b·dl/avgdl)) per distinct term, indices ascending", () => {
    const tokens = ["insulin", "resist", "insulin", "obes"];
    const v = docSparseVector(tokens);
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * 4) / BM25_AVG_DOC_LEN);
    const expected = new Map([
      [termId("insulin"), (2 * (BM25_K1 + 1)) / (2 + norm)],
      [termId("resist"), (BM25_K1 + 1) / (1 + norm)],
      [termId("obes"), (BM25_K1 + 1) / (1 + norm)],
    ]);
    expect(v.indices).toEqual([...expected.keys()].sort((a, b) => a - b));
    v.indices.forEach((i, k) => expect(v.values[k]).toBeCloseTo(expected.get(i)!, 12));
    expect(tfPart(2, 4)).toBeCloseTo(expected.get(termId("insulin"))!, 12);
  });

  it("matches a count of each distinct term on a long chunk, ids past 2^31 in unsigned order", () => {
    const tokens = Array.from({ length: 900 }, (_, i) => `w${(i * 7919) % 301}`);
    const counts = new Map<number, number>();
    for (const t of tokens) counts.set(termId(t), (counts.get(termId(t)) ?? 0) + 1);
    const ids = [...counts.keys()].sort((a, b) => a - b);
    expect(ids).toHaveLength(301);
    expect(ids.some((id) => id >= 2 ** 31)).toBe(true);
    const v = docSparseVector(tokens);
    expect(v.indices).toEqual(ids);
    expect(v.values).toEqual(ids.map((id) => tfPart(counts.get(id) ?? 0, tokens.length)));
    expect(querySparseVector(tokens)).toEqual({ indices: ids, values: ids.map(() => 1) });
  });

  it("saturates with tf and penalises long documents", () => {
    expect(tfPart(1, 160)).toBeCloseTo(1, 12); // dl = avgdl, tf = 1
    expect(tfPart(100, 160)).toBeLessThan(BM25_K1 + 1);
    expect(tfPart(1, 320)).toBeLessThan(tfPart(1, 80));
  });

  it("gives query terms weight 1 once each", () => {
    const q = querySparseVector(["insulin", "insulin", "obes"]);
    expect(q.indices).toEqual([termId("insulin"), termId("obes")].sort((a, b) => a - b));
    expect(q.values).toEqual([1, 1]);
  });

  it("uses Qdrant's idf: ln((N − df + 0.5)/(df + 0.5) + 1)", () => {
    expect(idf(10, 2)).toBeCloseTo(Math.log(8.5 / 2.5 + 1), 12);
    expect(idf(10, 10)).toBeGreaterThan(0);
    expect(idf(1000, 1)).toBeGreaterThan(idf(1000, 100));
  });
});

/** What the indexer stored before docTerms: the token count and docSparseVector(tokens). */
function twoCalls(text: string) {
  const tokens = tokenize(text);
  return { tokenCount: tokens.length, sparse: docSparseVector(tokens) };
}

describe("docTerms", () => {
  it.each([
    [""],
    ["   ...   "],
    ["The"], // a stopword alone
    ["Insulin resistance and INSULIN: obesity, obese; Obesities."],
    ["IL-6/TNF-α in H1N1 (2009) patients: 12.5% vs. 3%"], // not ASCII: the general way
    ["naïve Bayes"], // not ASCII after a word
    ["COVID-19 vaccines 2021a b2 x 007"],
    [`${"a".repeat(48)} ${"b".repeat(49)} ${"C".repeat(48)}x end`], // the 48-character limit
    ["word\ttab\nnewline\rreturn_underscore`backtick{brace}~tilde@at"],
    ["The the THE tHe of OF"], // stopwords in any case
  ])("gives what tokenize and docSparseVector give for %j", (text) => {
    expect(docTerms(text)).toEqual(twoCalls(text));
  });

  it("agrees on every chunk of 300 synthetic records", () => {
    const corpus = createSynthCorpus({
      seed: 5,
      terms: [{ term: "doc terms", count: 300, edatFrom: "2020-01-01", edatTo: "2020-12-31" }],
    });
    const records = corpus.records(corpus.pmidsFor("doc terms"));
    const texts = parseEFetch(articleSetXml(records)).flatMap((a) =>
      chunkArticle(a).map((c) => c.text),
    );
    expect(texts.length).toBeGreaterThanOrEqual(300);
    for (const text of texts) expect(docTerms(text)).toEqual(twoCalls(text));
  });

  it("agrees after its word table has grown and started over (300,000 distinct words)", () => {
    // Letters only (stemmed) and letters with digits (kept), many in upper case: the table grows
    // past its first size, then reaches its bound and is cleared, and answers the same throughout.
    const word = (i: number) =>
      i % 3 === 0 ? `Zq${i.toString(36)}x` : i % 3 === 1 ? `k${i}` : `w${i.toString(36)}ing`;
    for (let from = 0; from < 300_000; from += 10_000) {
      const text = Array.from({ length: 10_000 }, (_, k) => word(from + k)).join(" ");
      expect(docTerms(text)).toEqual(twoCalls(text));
    }
    // Words seen before the table started over are made again, the same.
    const again = Array.from({ length: 2_000 }, (_, k) => word(k * 7)).join(", ");
    expect(docTerms(again)).toEqual(twoCalls(again));
  });
});

describeShared("docTerms on recorded PubMed abstracts", () => {
  it("agrees on every chunk of the recorded EFetch replies", () => {
    const texts = readdirSync(EUTILS_FIXTURES, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".xml"))
      .map((f) => readFileSync(join(EUTILS_FIXTURES, f), "utf8"))
      .filter((body) => body.includes("<PubmedArticleSet"))
      .flatMap((body) => {
        try {
          return parseEFetch(body);
        } catch {
          return []; // recorded faults: not text to index
        }
      })
      .flatMap((a) => chunkArticle(a).map((c) => c.text));
    expect(texts.length).toBeGreaterThan(100);
    for (const text of texts) expect(docTerms(text)).toEqual(twoCalls(text));
  });
});
