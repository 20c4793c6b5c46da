import { describe, expect, it } from "@jest/globals";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseStringPromise } from "xml2js";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { articleSetXml, esearchXml } from "../../src/devtools/synth-xml.js";
import { EUTILS_FIXTURES, SHARED_DIR, describeShared, eutilsFixture } from "../helpers/shared.js";

interface Node {
  "#name": string;
  $?: Record<string, string>;
  $$?: Node[];
}

const parse = (xml: string): Promise<Node> =>
  parseStringPromise(xml, {
    explicitChildren: true,
    preserveChildrenOrder: true,
    explicitRoot: false,
  });

const childNames = (node: Node | undefined) => (node?.$$ ?? []).map((c) => c["#name"]);
const child = (node: Node | undefined, name: string) => node?.$$?.find((c) => c["#name"] === name);

function* walk(node: Node): Generator<Node> {
  yield node;
  for (const c of node.$$ ?? []) yield* walk(c);
}

/** Element paths ("A/B/C") and attribute paths ("A/B@x") of a document, by a plain tag scan. */
function paths(xml: string): Set<string> {
  const out = new Set<string>();
  const stack: string[] = [];
  for (const m of xml.matchAll(/<(\/?)([A-Za-z][\w.:-]*)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>/g)) {
    const [, close, name = "", attrs = "", selfClose] = m;
    if (close) {
      stack.pop();
      continue;
    }
    stack.push(name);
    const p = stack.join("/");
    out.add(p);
    for (const a of attrs.matchAll(/([\w:-]+)="/g)) out.add(`${p}@${a[1]}`);
    if (selfClose) stack.pop();
  }
  return out;
}

/**
 * Just enough of the PubMed DTD to validate against: each element's content model as a regex
 * over its children's names, and each element's declared attributes (with enumerated values).
 */
function loadDtd(text: string) {
  const dtd = text
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/%text;/g, "#PCDATA | b | i | sup | sub | u");
  const models = new Map<string, { mixed: Set<string> } | { seq: RegExp }>();
  for (const m of dtd.matchAll(/<!ELEMENT\s+([\w.:-]+)\s+([\s\S]*?)>/g)) {
    const [, name = "", model = ""] = m;
    if (model.includes("#PCDATA") || model.trim() === "EMPTY") {
      models.set(name, { mixed: new Set(model.match(/[\w.:-]+/g)?.filter((n) => n !== "PCDATA")) });
    } else {
      const source = model.replace(/[\w.:-]+/g, (n) => `(?:${n};)`).replace(/[,\s]/g, "");
      models.set(name, { seq: new RegExp(`^${source}$`) });
    }
  }
  const attrs = new Map<string, Map<string, Set<string> | null>>();
  for (const m of dtd.matchAll(/<!ATTLIST\s+([\w.:-]+)([\s\S]*?)>/g)) {
    const [, name = "", body = ""] = m;
    const declared = attrs.get(name) ?? new Map<string, Set<string> | null>();
    for (const a of body.matchAll(/([\w:-]+)\s+(CDATA|ID|IDREF|NMTOKEN|\(([^)]*)\))/g)) {
      declared.set(
        a[1] ?? "",
        a[3] === undefined ? null : new Set(a[3].split("|").map((v) => v.trim())),
      );
    }
    attrs.set(name, declared);
  }
  return { models, attrs };
}

function dtdProblems(root: Node, dtd: ReturnType<typeof loadDtd>): string[] {
  const problems: string[] = [];
  for (const node of walk(root)) {
    const name = node["#name"];
    const model = dtd.models.get(name);
    const kids = childNames(node);
    if (!model) problems.push(`undeclared <${name}>`);
    else if ("seq" in model && !model.seq.test(kids.map((k) => `${k};`).join(""))) {
      problems.push(`<${name}> children ${kids.join(",")}`);
    } else if ("mixed" in model && kids.some((k) => !model.mixed.has(k))) {
      problems.push(`<${name}> mixed children ${kids.join(",")}`);
    }
    for (const [attr, value] of Object.entries(node.$ ?? {})) {
      const declared = dtd.attrs.get(name);
      if (!declared?.has(attr)) problems.push(`<${name} ${attr}> undeclared`);
      const allowed = declared?.get(attr);
      if (allowed && !allowed.has(value)) problems.push(`<${name} ${attr}="${value}"> not in DTD`);
    }
  }
  return [...new Set(problems)];
}

const demo = demoCorpus();
const demoXml = articleSetXml(Array.from({ length: demo.size }, (_, i) => demo.recordAt(i)));

describe("articleSetXml", () => {
  it("is well-formed XML with one PubmedArticle per record", async () => {
    const root = await parse(demoXml);
    expect(root["#name"]).toBe("PubmedArticleSet");
    expect(childNames(root)).toEqual(Array(demo.size).fill("PubmedArticle"));
    const empty = await parse(articleSetXml([]));
    expect(empty["#name"]).toBe("PubmedArticleSet");
    expect(demoXml.startsWith('<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC')).toBe(
      true,
    );
  });

  it("escapes text so that markup-like characters survive a round trip", async () => {
    const term = 'A&B <"quoted"> & more';
    const corpus = createSynthCorpus({
      seed: 1,
      terms: [{ term, count: 30, edatFrom: "2020", edatTo: "2020" }],
    });
    const records = corpus.records(corpus.pmidsFor(term));
    const withKeyword = records.find((r) => r.keywords.includes(term));
    expect(withKeyword).toBeDefined();
    const root = await parse(articleSetXml([withKeyword!]));
    const keywords = child(child(root.$$?.[0], "MedlineCitation"), "KeywordList");
    expect(keywords?.$$?.map((k) => (k as unknown as { _: string })._)).toContain(term);
  });
});

describeShared("synthetic XML against NCBI's shapes", () => {
  const dtdPath = join(SHARED_DIR, "specs", "pubmed-dtd", "pubmed_250101.dtd");

  it("follows the PubMed DTD: element order, declared attributes, enumerated values", async () => {
    const dtd = loadDtd(readFileSync(dtdPath, "utf8"));
    expect(dtdProblems(await parse(demoXml), dtd)).toEqual([]);
    // The check itself can fail: a DateRevised moved ahead of the PMID breaks MedlineCitation's model.
    const tampered = demoXml.replace(
      /(<PMID Version="1">\d+<\/PMID>)(<DateCompleted>.*?<\/DateCompleted>)?(<DateRevised>.*?<\/DateRevised>)/,
      "$3$2$1",
    );
    expect(dtdProblems(await parse(tampered), dtd)).toEqual([
      expect.stringContaining("<MedlineCitation> children DateRevised"),
    ]);
  });

  it("uses only element paths that recorded EFetch replies use (plus DTD-legal markup)", () => {
    const real = new Set<string>();
    const dir = join(EUTILS_FIXTURES, "metapub", "pmid_xml");
    for (const file of readdirSync(dir))
      for (const p of paths(readFileSync(join(dir, file), "utf8"))) real.add(p);
    for (const file of ["pubmed1.xml", "pubmed4.xml", "pubmed7.xml"]) {
      for (const p of paths(eutilsFixture(`biopython/Entrez/${file}`))) real.add(p);
    }
    const article = "PubmedArticleSet/PubmedArticle/MedlineCitation/Article";
    const dtdLegal = [
      `${article}/ArticleTitle/sub`,
      `${article}/ArticleTitle/sup`,
      `${article}/Journal/JournalIssue/PubDate/MedlineDate`,
    ];
    const ours = paths(demoXml);
    expect([...ours].filter((p) => !real.has(p) && !dtdLegal.includes(p))).toEqual([]);
    // A typical recorded record: everything it has, we have — bar chemicals.
    const typical = paths(eutilsFixture("metapub/pmid_xml/31588070.xml"));
    expect([...typical].filter((p) => !ours.has(p) && !p.includes("/ChemicalList"))).toEqual([]);
  });

  it("shapes ESearch like NCBI, with and without hits", async () => {
    const handler = synthHandler(demo);
    const hit = await parse(
      handler({ utility: "esearch", params: { term: "long covid", usehistory: "y" } })!.body,
    );
    const realHit = await parse(eutilsFixture("biopython/Entrez/esearch2.xml"));
    expect(childNames(hit)).toEqual(childNames(realHit));
    const miss = await parse(
      esearchXml({
        count: 0,
        retStart: 0,
        ids: [],
        queryTranslation: "(abcXYZ[All Fields])",
        phrasesNotFound: ["abcXYZ"],
        outputMessages: ["No items found."],
      }),
    );
    const realMiss = await parse(eutilsFixture("biopython/Entrez/esearch8.xml"));
    expect(childNames(miss)).toEqual(childNames(realMiss));
  });

  it("shapes ESummary v2.0 as a subsequence of NCBI's DocumentSummary", async () => {
    const ours = await parse(
      synthHandler(demo)({ utility: "esummary", params: { id: "30000001", version: "2.0" } })!.body,
    );
    const real = await parse(eutilsFixture("Eutils-JSON/samples/esummary.pubmed.xml"));
    const ourDoc = childNames(child(child(ours, "DocumentSummarySet"), "DocumentSummary"));
    const realDoc = childNames(child(child(real, "DocumentSummarySet"), "DocumentSummary"));
    let at = 0;
    for (const name of ourDoc) {
      at = realDoc.indexOf(name, at);
      expect(`${name}@${at}`).not.toBe(`${name}@-1`);
    }
  });

  it("shapes ELink, ESpell and EInfo like NCBI", async () => {
    const handler = synthHandler(demo);
    const link = await parse(
      handler({
        utility: "elink",
        params: {
          dbfrom: "pubmed",
          id: "30000100",
          cmd: "neighbor_score",
          linkname: "pubmed_pubmed",
        },
      })!.body,
    );
    const realLink = await parse(eutilsFixture("elink-json/sample-3.xml"));
    const linkSet = child(link, "LinkSet");
    const realSet = child(realLink, "LinkSet");
    expect(childNames(linkSet)).toEqual(["DbFrom", "IdList", "LinkSetDb"]);
    expect(childNames(child(linkSet, "LinkSetDb")).slice(0, 3)).toEqual(
      childNames(child(realSet, "LinkSetDb")).slice(0, 3),
    );
    expect(childNames(child(child(linkSet, "LinkSetDb"), "Link"))).toEqual(
      childNames(child(child(realSet, "LinkSetDb"), "Link")),
    );

    const spell = await parse(handler({ utility: "espell", params: { term: "asthmaa" } })!.body);
    expect(childNames(spell)).toEqual(
      childNames(await parse(eutilsFixture("biopython/Entrez/espell.xml"))),
    );

    const info = await parse(handler({ utility: "einfo", params: { db: "pubmed" } })!.body);
    const realInfo = await parse(eutilsFixture("biopython/Entrez/einfo2.xml"));
    const dbInfo = child(info, "DbInfo");
    const realDbInfo = child(realInfo, "DbInfo");
    expect(childNames(dbInfo)).toEqual(childNames(realDbInfo));
    expect(childNames(child(child(dbInfo, "FieldList"), "Field"))).toEqual(
      childNames(child(child(realDbInfo, "FieldList"), "Field")),
    );
    expect(childNames(child(child(dbInfo, "LinkList"), "Link"))).toEqual(
      childNames(child(child(realDbInfo, "LinkList"), "Link")),
    );
  });
});
