/**
 * The product's reader (parseEFetch, src/ncbi/parse/xml-reader.ts) against xml2js
 * (parseEFetchXml2js): the same articles from every recorded PubmedArticleSet in ../shared and from
 * synthetic records, and the same verdict on bodies that are not well-formed.
 * efetch.test.ts runs its whole suite on both as well.
 */
import { describe, expect, test } from "@jest/globals";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { articleSetXml } from "../../../src/devtools/synth-xml.js";
import { createSynthCorpus } from "../../../src/devtools/synth.js";
import { UpstreamError } from "../../../src/errors.js";
import { parseEFetch, readEFetchArticles } from "../../../src/ncbi/parse/efetch.js";
import { parseEFetchXml2js } from "../../../src/ncbi/parse/efetch-xml2js.js";
import type { Article } from "../../../src/ncbi/types.js";
import { readOrderedXml } from "../../../src/ncbi/parse/xml-reader.js";
import { EUTILS_FIXTURES, HAS_SHARED, describeShared } from "../../helpers/shared.js";

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const RECORDED = HAS_SHARED
  ? files(EUTILS_FIXTURES)
      .filter((f) => /\.xml$/i.test(f))
      .map((f) => [relative(EUTILS_FIXTURES, f), readFileSync(f, "utf8")] as const)
      .filter(([, body]) => body.includes("<PubmedArticleSet"))
  : [["(../shared absent)", ""] as const];

/** The outcome of one parse: the articles, or the error's class and message. */
function outcome(parse: (xml: string) => unknown, body: string): unknown {
  try {
    return { articles: parse(body) };
  } catch (err) {
    return { error: err instanceof UpstreamError ? "UpstreamError" : String(err) };
  }
}

describeShared("recorded PubmedArticleSet replies", () => {
  test("there are many of them", () => {
    expect(RECORDED.length).toBeGreaterThan(100);
  });

  test.each(RECORDED)("%s: the same articles from both readers", (_file, body) => {
    const expected = parseEFetchXml2js(body);
    expect(parseEFetch(body)).toEqual(expected);
  });

  test("the same verdict on every cut of two records (truncated replies)", () => {
    for (const [, body] of RECORDED.slice(0, 2)) {
      for (let cut = 1; cut < 40; cut++) {
        const part = body.slice(0, Math.floor((body.length * cut) / 40));
        expect(outcome(parseEFetch, part)).toEqual(outcome(parseEFetchXml2js, part));
      }
    }
  });
});

describe("synthetic records", () => {
  test("the same articles from 300 generated records", () => {
    const corpus = createSynthCorpus({
      seed: 11,
      terms: [{ term: "agree", count: 300, edatFrom: "2001-01-01", edatTo: "2024-12-31" }],
    });
    const xml = articleSetXml(corpus.records(corpus.pmidsFor("agree")));
    const expected = parseEFetchXml2js(xml);
    expect(expected).toHaveLength(300);
    expect(parseEFetch(xml)).toEqual(expected);
  });
});

describe("markup the recorded replies rarely use", () => {
  const wrap = (inner: string, prolog = "") =>
    `${prolog}<PubmedArticleSet><PubmedArticle><MedlineCitation Status='MEDLINE' Owner="NLM">` +
    `<PMID Version="1">42</PMID><Article><ArticleTitle>${inner}</ArticleTitle></Article>` +
    `</MedlineCitation></PubmedArticle></PubmedArticleSet>`;

  test.each([
    ["entities", "a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; &#945;&#x3B2; e"],
    ["CDATA", "x <![CDATA[<i>not markup</i> & more]]> y"],
    ["a comment and a processing instruction", "a<!-- c > d --> b<?pi x?> c"],
    [
      "inline markup and MathML",
      "<i>E. coli</i> at 10<sup>-3</sup> <mml:math><mml:mi>x</mml:mi></mml:math>",
    ],
    ["a '>' in an attribute value", '<i title="a > b">t</i>'],
    ["a '<' in an attribute value", '<i title="a < b">t</i>'],
    ["HTML's named entities (sax knows them)", "a&nbsp;b &eacute;"],
    ["an empty element", "a<br/>b<br />c"],
    ["attributes over lines, spaced around '='", "<i  title = \"a\"\n\tlang='b' >t</i >"],
    ["end tags with whitespace around the name", "<i>t</i\n><b>u</ b>"],
  ])("%s", (_what, inner) => {
    const xml = wrap(
      inner,
      '<?xml version="1.0"?>\n<!DOCTYPE PubmedArticleSet [ <!ENTITY x "y"> ]>\n',
    );
    expect(parseEFetch(xml)).toEqual(parseEFetchXml2js(xml));
  });

  test.each([
    ["an undefined entity", "a &bogus; b"],
    ["a bare ampersand", "a & b"],
    ["a mismatched end tag", "<i>a</b>"],
    ["an unclosed CDATA section", "<![CDATA[ a"],
    ["an unquoted attribute value", "<i title=a>t</i>"],
    ["an attribute without a value", "<i title>t</i>"],
    ["attributes with no space between them", '<i a="1"b="2">t</i>'],
    ["an end tag naming more than the element", "<i>t</i b>"],
    ["a tag that never ends", '<i title="a" t</i>'],
  ])("rejects %s, as xml2js does", (_what, inner) => {
    const xml = wrap(inner);
    expect(() => parseEFetchXml2js(xml)).toThrow(UpstreamError);
    expect(() => parseEFetch(xml)).toThrow(UpstreamError);
    expect(() => parseEFetch(xml)).toThrow(/truncated or malformed EFetch reply/);
  });

  test.each([
    ["text before the root", "trailing<PubmedArticleSet/>"],
    ["an unclosed root", "<PubmedArticleSet><PubmedArticle>"],
  ])("rejects %s, as xml2js does", (_what, xml) => {
    expect(() => parseEFetchXml2js(xml)).toThrow(UpstreamError);
    expect(() => parseEFetch(xml)).toThrow(UpstreamError);
  });

  test.each([
    ["text after the root", `${wrap("t")}trailing`],
    ["a second root", `${wrap("t")}<PubmedArticleSet/>`],
  ])("reads no further than the root's end with %s, as xml2js does", (_what, xml) => {
    expect(parseEFetch(xml)).toEqual(parseEFetchXml2js(xml));
    expect(parseEFetch(xml)).toHaveLength(1);
  });
});

/** The articles read from the body's UTF-8 bytes (how a sync's prepare thread reads a reply). */
function fromBytes(bytes: Uint8Array): Article[] {
  const articles: Article[] = [];
  readEFetchArticles(bytes, (a) => articles.push(a));
  return articles;
}

/** The body as TextDecoder (and so `Response.text()`) decodes it, then read by xml2js. */
function fromDecoded(bytes: Uint8Array): Article[] {
  return parseEFetchXml2js(new TextDecoder().decode(bytes));
}

describeShared("recorded replies read from their bytes", () => {
  const recorded = RECORDED.map(([file, body]) => [file, Buffer.from(body, "utf8")] as const);

  test("some hold characters beyond ASCII (©, ±, ≈, ™, accented names)", () => {
    // Most recorded replies are ASCII (bytes and text read alike); these few are what can differ.
    const wide = RECORDED.filter(([, body]) => /[\u0080-\uffff]/.test(body));
    expect(wide.length).toBeGreaterThanOrEqual(4);
    expect(wide.filter(([, body]) => /[\u0100-\uffff]/.test(body)).length).toBeGreaterThanOrEqual(
      3,
    );
  });

  test.each(recorded)("%s: the same articles as from the decoded text", (_file, bytes) => {
    expect(fromBytes(bytes)).toEqual(fromDecoded(bytes));
  });
});

describe("a reply read from its UTF-8 bytes", () => {
  const wrap = (title: string, attr = "x") =>
    `<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID Version="1">42</PMID><Article>` +
    `<ArticleTitle>${title}</ArticleTitle><Abstract><AbstractText Label="${attr}">a</AbstractText>` +
    `</Abstract></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>`;
  const utf8 = (xml: string) => new TextEncoder().encode(xml);

  test("the synthetic records agree with the decoded text", () => {
    const corpus = createSynthCorpus({
      seed: 5,
      terms: [{ term: "bytes", count: 200, edatFrom: "2001-01-01", edatTo: "2024-12-31" }],
    });
    const bytes = utf8(articleSetXml(corpus.records(corpus.pmidsFor("bytes"))));
    const articles = fromBytes(bytes);
    expect(articles).toHaveLength(200);
    expect(articles).toEqual(fromDecoded(bytes));
  });

  test.each([
    ["Latin-1 letters", "Müller–García café", "Ångström", "Müller–García café"],
    [
      "Greek, and a character beyond the BMP",
      "α-synuclein 𝛼 ≥ 5 µg",
      "Δ 𝛽",
      "α-synuclein 𝛼 ≥ 5 µg",
    ],
    ["references beside multi-byte characters", "é&amp;ü &#945;€&lt;", "ø&quot;ñ", "é&ü α€<"],
    ["CDATA", "x <![CDATA[<ü> & α]]> y", "plain", "x <ü> & α y"],
  ])("%s: text and attribute values as decoded", (_what, title, label, expected) => {
    const bytes = utf8(wrap(title, label));
    const [article] = fromBytes(bytes);
    expect(article).toEqual(fromDecoded(bytes)[0]);
    expect(article?.title).toBe(expected);
    expect(article?.abstractSections[0]?.label).toBe(label.replace("&quot;", '"'));
  });

  test("a leading byte order mark is dropped, as TextDecoder drops it", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(wrap("Ünïcode"))]);
    expect(fromBytes(bytes)).toEqual(fromDecoded(bytes));
    expect(fromBytes(bytes)[0]?.title).toBe("Ünïcode");
  });

  test("malformed bytes become U+FFFD, as TextDecoder makes them", () => {
    const [before, middle, after] = wrap("a@b@c").split("@") as [string, string, string];
    // A lone lead byte, then a stray continuation byte and a byte UTF-8 never uses.
    const bytes = new Uint8Array([
      ...utf8(before),
      0xc3,
      ...utf8(middle),
      0x80,
      0xff,
      ...utf8(after),
    ]);
    const [article] = fromBytes(bytes);
    expect(article).toEqual(fromDecoded(bytes)[0]);
    expect(article?.title).toBe("a\ufffdb\ufffd\ufffdc");
  });

  test("shared memory is read as well (the prepare thread's bytes)", () => {
    const body = utf8(wrap("Ségolène"));
    const shared = new Uint8Array(new SharedArrayBuffer(body.byteLength + 8), 4, body.byteLength);
    shared.set(body);
    expect(fromBytes(shared)[0]?.title).toBe("Ségolène");
  });

  test("a reply cut inside a multi-byte character is still a truncated reply", () => {
    const bytes = utf8(wrap("Zürich"));
    const cut = bytes.subarray(0, bytes.indexOf(0xc3) + 1);
    expect(() => fromBytes(cut)).toThrow(/truncated or malformed EFetch reply/);
  });
});

describe("record by record", () => {
  const corpus = createSynthCorpus({
    seed: 3,
    terms: [{ term: "stream", count: 5, edatFrom: "2010-01-01", edatTo: "2020-12-31" }],
  });
  const pmids = corpus.pmidsFor("stream");
  const xml = articleSetXml(corpus.records(pmids));

  test("each record arrives as soon as it is read, the tree keeps none of them", () => {
    const seen: string[] = [];
    const root = readOrderedXml(xml, "EFetch", (child) => {
      seen.push(child["#name"]);
      return true;
    });
    expect(seen).toEqual(Array(5).fill("PubmedArticle"));
    expect((root.$$ ?? []).filter((c) => c["#name"] === "PubmedArticle")).toHaveLength(0);
  });

  test("a child the callback declines stays in the tree", () => {
    const root = readOrderedXml(xml, "EFetch", () => false);
    expect((root.$$ ?? []).filter((c) => c["#name"] === "PubmedArticle")).toHaveLength(5);
  });

  test("articles come in order; a reply cut in its third record fails after two", () => {
    const whole: string[] = [];
    readEFetchArticles(xml, (a) => whole.push(a.pmid));
    expect(whole).toEqual(pmids);

    const endOfSecond = xml.indexOf("</PubmedArticle>", xml.indexOf("</PubmedArticle>") + 1);
    const cut = xml.slice(0, xml.indexOf("</PubmedArticle>", endOfSecond + 1) - 20);
    const before: string[] = [];
    expect(() => readEFetchArticles(cut, (a) => before.push(a.pmid))).toThrow(UpstreamError);
    expect(before).toEqual(pmids.slice(0, 2));
  });

  test("NCBI's <ERROR> reply is still an error, not an empty set", () => {
    const error = "<eFetchResult><ERROR>Cannot retrieve history data.</ERROR></eFetchResult>";
    expect(() => readEFetchArticles(error, () => undefined)).toThrow(/Cannot retrieve history/);
    expect(() => parseEFetch(error)).toThrow(/Cannot retrieve history/);
  });
});

describe("reference lists, passed over as the reader meets them", () => {
  const record = (data: string) =>
    `<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>7</PMID><Article>` +
    `<ArticleTitle>T</ArticleTitle></Article></MedlineCitation>` +
    `<PubmedData><ArticleIdList><ArticleId IdType="doi">10.1/x</ArticleId></ArticleIdList>${data}` +
    `</PubmedData></PubmedArticle></PubmedArticleSet>`;
  // Malformed inside: read, it would fail; passed over, nothing in it matters.
  const refs = `\n  <ReferenceList><Reference><Citation>a &bogus; <b>b</Citation></Reference></ReferenceList>\n`;

  test("what follows a ReferenceList in PubmedData is never read, as the regex cut never read it", () => {
    const xml = record(`${refs}<ReferenceList/>`);
    const [article] = parseEFetch(xml);
    expect(article?.doi).toBe("10.1/x");
    expect(parseEFetch(xml)).toEqual(parseEFetchXml2js(xml));
  });

  test("a ReferenceList outside PubmedData and BookDocument is read, and its fault found", () => {
    const xml = record("").replace("</Article>", `</Article>${refs}`);
    expect(() => parseEFetch(xml)).toThrow(/truncated or malformed EFetch reply/);
  });

  test("a reply cut inside a reference list is still a truncated reply", () => {
    const whole = record(refs);
    const cut = whole.slice(0, whole.indexOf("<Citation>") + 5);
    expect(() => parseEFetch(cut)).toThrow(UpstreamError);
    expect(() => parseEFetchXml2js(cut)).toThrow(UpstreamError);
  });
});
