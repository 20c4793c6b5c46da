import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  CITATION_STYLES,
  formatCitations,
  toCslJson,
  type CslName,
} from "../../src/live/citations.js";
import type { JournalInfo } from "../../src/ncbi/types.js";
import {
  article,
  CHAPTER,
  EIGHT,
  GROUP,
  LANCET,
  ONE,
  person,
  THREE,
  TWO_SPECIAL,
} from "./cite-fixtures.js";

// citation-js is loaded through Node's require, as src/live/citations.ts explains.
const { Cite, plugins } = createRequire(import.meta.url)(
  "@citation-js/core",
) as typeof import("@citation-js/core");
/**
 * citation-js's style register, once cite.ts has loaded its CSL plugin (its get() is left out of
 * src/types/citation-js.d.ts).
 */
const cslStyles = () =>
  plugins.config.get("@csl").styles as unknown as {
    add(name: string, xml: string): void;
    get(name: string): string | undefined;
  };

const FIXTURES = { ONE, TWO_SPECIAL, THREE, EIGHT, GROUP, CHAPTER };
const LANCET_TAIL =
  "Lancet (London, England), 393(10180), 1032–1048. https://doi.org/10.1016/S0140-6736(19)30001-1";
const MLA_TAIL =
  "“Early Mobilisation after Hip Fracture Surgery: A Randomised Controlled Trial.” Lancet (London, England), vol. 393, no. 10180, 13 Apr. 2019, pp. 1032–48. https://doi.org/10.1016/S0140-6736(19)30001-1.";
const VANCOUVER_TAIL =
  "Early mobilisation after hip fracture surgery: a randomised controlled trial. Lancet. 2019 Apr 13;393(10180):1032–48. doi:10.1016/S0140-6736(19)30001-1 PubMed PMID: 30955001; PubMed Central PMCID: PMC6500001.";
const APA_TITLE =
  "(2019). Early mobilisation after hip fracture surgery: a randomised controlled trial.";

describe("formatCitations", () => {
  it("renders every style of a one-author article", () => {
    expect(formatCitations(ONE, [...CITATION_STYLES])).toEqual({
      ris: [
        "TY  - JOUR",
        "TI  - Early mobilisation after hip fracture surgery: a randomised controlled trial",
        "AU  - Smith, John A",
        "T2  - Lancet (London, England)",
        "JO  - Lancet",
        "PY  - 2019",
        "DA  - 2019/04/13/",
        "VL  - 393",
        "IS  - 10180",
        "SP  - 1032",
        "EP  - 1048",
        "SN  - 0140-6736",
        "DO  - 10.1016/S0140-6736(19)30001-1",
        "AN  - 30955001",
        "ID  - 30955001",
        "C2  - PMC6500001",
        "UR  - https://pubmed.ncbi.nlm.nih.gov/30955001/",
        "KW  - hip fracture",
        "KW  - rehabilitation",
        "AB  - BACKGROUND: Bed rest is common. METHODS: We randomly assigned 412 patients.",
        "ER  - ",
      ].join("\n"),
      bibtex: [
        "@article{Smith2019Early,",
        "\tauthor = {Smith, John A},",
        "\tjournal = {Lancet (London, England)},",
        "\tdoi = {10.1016/S0140-6736(19)30001-1},",
        "\tissn = {0140-6736},",
        "\tnumber = {10180},",
        "\tyear = {2019},",
        "\tmonth = {apr 13},",
        "\tpages = {1032--1048},",
        "\ttitle = {Early mobilisation after hip fracture surgery: a randomised controlled trial},",
        "\turl = {https://pubmed.ncbi.nlm.nih.gov/30955001/},",
        "\thowpublished = {https://pubmed.ncbi.nlm.nih.gov/30955001/},",
        "\tvolume = {393},",
        "}",
      ].join("\n"),
      apa: `Smith, J. A. ${APA_TITLE} ${LANCET_TAIL}`,
      mla: `Smith, John A. ${MLA_TAIL}`,
      vancouver: `Smith JA. ${VANCOUVER_TAIL}`,
      csl_json: JSON.stringify({
        id: "30955001",
        type: "article-journal",
        title: "Early mobilisation after hip fracture surgery: a randomised controlled trial",
        "container-title": "Lancet (London, England)",
        "container-title-short": "Lancet",
        author: [{ family: "Smith", given: "John A" }],
        issued: { "date-parts": [[2019, 4, 13]] },
        volume: "393",
        issue: "10180",
        page: "1032-1048",
        ISSN: "0140-6736",
        DOI: "10.1016/S0140-6736(19)30001-1",
        PMID: "30955001",
        PMCID: "PMC6500001",
        URL: "https://pubmed.ncbi.nlm.nih.gov/30955001/",
        abstract: "BACKGROUND: Bed rest is common.\nMETHODS: We randomly assigned 412 patients.",
        keyword: "hip fracture, rehabilitation",
      }),
    });
  });

  it("escapes special characters, dates a MedlineDate and falls back to the URL without a DOI", () => {
    const out = formatCitations(TWO_SPECIAL, ["ris", "bibtex", "apa", "mla", "vancouver"]);
    expect(out).toEqual({
      ris: [
        "TY  - JOUR",
        "TI  - Costs & benefits of 100% {adherence} in type_2 #diabetes?",
        "AU  - Müller, Hans",
        "AU  - O'Brien, Mary",
        "T2  - Diabetes care",
        "JO  - Diabetes Care",
        "PY  - 2001",
        "DA  - 2001/01//",
        "VL  - 24",
        "SP  - e123",
        "SN  - 1935-5548",
        "AN  - 11136001",
        "ID  - 11136001",
        "UR  - https://pubmed.ncbi.nlm.nih.gov/11136001/",
        "ER  - ",
      ].join("\n"),
      bibtex: [
        "@article{Muller2001Costs,",
        "\tauthor = {M{\\\" u}ller, Hans and O'Brien, Mary},",
        "\tjournal = {Diabetes care},",
        "\tissn = {1935-5548},",
        "\tyear = {2001},",
        "\tmonth = {1},",
        "\tpages = {e123},",
        "\ttitle = {Costs \\& benefits of 100\\% \\textbraceleft{}adherence\\textbraceright{} in type\\textunderscore{}2 \\#diabetes?},",
        "\turl = {https://pubmed.ncbi.nlm.nih.gov/11136001/},",
        "\thowpublished = {https://pubmed.ncbi.nlm.nih.gov/11136001/},",
        "\tvolume = {24},",
        "}",
      ].join("\n"),
      apa: "Müller, H., & O’Brien, M. (2001). Costs & benefits of 100% {adherence} in type_2 #diabetes? Diabetes Care, 24, e123. https://pubmed.ncbi.nlm.nih.gov/11136001/",
      mla: "Müller, Hans, and Mary O’Brien. “Costs & Benefits of 100% {adherence} in Type_2 #diabetes?” Diabetes Care, vol. 24, Jan. 2001, p. e123. https://pubmed.ncbi.nlm.nih.gov/11136001/.",
      vancouver:
        "Müller H, O’Brien M. Costs & benefits of 100% {adherence} in type_2 #diabetes? Diabetes Care. 2001 Jan;24:e123. PubMed PMID: 11136001.",
    });
  });

  it("applies each style's author-list rule", () => {
    expect(formatCitations(THREE, ["apa", "mla", "vancouver"])).toEqual({
      apa: `Smith, J. A., Doe, J., & Roe, R. ${APA_TITLE} ${LANCET_TAIL}`,
      mla: `Smith, John A., et al. ${MLA_TAIL}`,
      vancouver: `Smith JA, Doe J, Roe R. ${VANCOUVER_TAIL}`,
    });
    // Vancouver: six names then "et al." from seven up; APA 7: everyone up to 20.
    expect(formatCitations(EIGHT, ["apa", "mla", "vancouver"])).toEqual({
      apa: `Adams, A., Baker, B., Clark, C., Davis, D., Evans, E., Fox, F., Green, G., & Hill, H. ${APA_TITLE} ${LANCET_TAIL}`,
      mla: `Adams, Alice, et al. ${MLA_TAIL}`,
      vancouver: `Adams A, Baker B, Clark C, Davis D, Evans E, Fox F, et al. ${VANCOUVER_TAIL}`,
    });
  });

  it("shortens 21 or more authors to 19, an ellipsis and the last in APA", () => {
    const names = "ABCDEFGHIJKLMNOPQRSTU".split("").map((c) => person(`Name${c}`, "Ann", "A"));
    const listed = names.slice(0, 19).map((a) => `${a.lastName}, A.`);
    expect(formatCitations(article({ authors: names }), ["apa"]).apa).toEqual(
      `${listed.join(", ")}, … NameU, A. ${APA_TITLE} ${LANCET_TAIL}`,
    );
  });

  it("keeps collective names whole", () => {
    const out = formatCitations(GROUP, ["apa", "mla", "vancouver", "ris", "bibtex"]);
    expect(out.apa).toEqual(
      `RECOVERY Collaborative Group, & Horby, P. ${APA_TITLE} ${LANCET_TAIL}`,
    );
    expect(out.mla).toEqual(`RECOVERY Collaborative Group, and Peter Horby. ${MLA_TAIL}`);
    expect(out.vancouver).toEqual(`RECOVERY Collaborative Group, Horby P. ${VANCOUVER_TAIL}`);
    expect(out.ris.split("\n").filter((l) => l.startsWith("AU"))).toEqual([
      "AU  - RECOVERY Collaborative Group",
      "AU  - Horby, Peter",
    ]);
    expect(out.bibtex).toContain("\tauthor = {{RECOVERY Collaborative Group} and Horby, Peter},");
  });

  it("cites a book record as a chapter of its book", () => {
    expect(formatCitations(CHAPTER, ["apa", "mla", "vancouver", "bibtex"])).toEqual({
      apa: "Smith, J. A. (2023). Hypertension. In StatPearls. https://pubmed.ncbi.nlm.nih.gov/29083001/",
      mla: "Smith, John A. “Hypertension.” StatPearls, July 2023. https://pubmed.ncbi.nlm.nih.gov/29083001/.",
      vancouver:
        "Smith JA. Hypertension. In: StatPearls [Internet]. 2023. Available from: https://pubmed.ncbi.nlm.nih.gov/29083001/ PubMed PMID: 29083001.",
      bibtex: [
        "@inbook{Smith2023Hypertension,",
        "\tauthor = {Smith, John A},",
        "\tbooktitle = {StatPearls},",
        "\tyear = {2023},",
        "\tmonth = {7},",
        "\ttitle = {Hypertension},",
        "\turl = {https://pubmed.ncbi.nlm.nih.gov/29083001/},",
        "\thowpublished = {https://pubmed.ncbi.nlm.nih.gov/29083001/},",
        "}",
      ].join("\n"),
    });
    expect(formatCitations(CHAPTER, ["ris"]).ris.split("\n")[0]).toEqual("TY  - CHAP");
  });

  it("formats APA, MLA and Vancouver from their bibliographies alone, as the whole styles do", () => {
    // cite.ts registers each style without its citation layout (citeproc keeps an engine's
    // citation layout in memory too: half of APA's); the text must not change.
    const mla = new URL("../../src/live/csl/modern-language-association.csl", import.meta.url);
    formatCitations(ONE, ["apa"]);
    cslStyles().add("mla-whole", readFileSync(mla, "utf8"));
    const whole = { apa: "apa", mla: "mla-whole", vancouver: "vancouver" } as const;
    const twentyOne = "ABCDEFGHIJKLMNOPQRSTU".split("").map((c) => person(`N${c}`, "Ann", "A"));
    const book = article({
      recordType: "PubmedBookArticle",
      journalInfo: { ...LANCET, title: "Early mobilisation after hip fracture surgery" },
      title: "Early mobilisation after hip fracture surgery.",
    });
    const articles = [...Object.values(FIXTURES), article({ authors: twentyOne }), book];
    expect(articles.map((a) => toCslJson(a).type)).toEqual(
      expect.arrayContaining(["article-journal", "chapter", "book"]),
    );
    for (const a of articles) {
      const out = formatCitations(a, ["apa", "mla", "vancouver"]);
      for (const [style, template] of Object.entries(whole)) {
        const text = String(
          new Cite(toCslJson(a)).format("bibliography", {
            format: "text",
            template,
            lang: "en-US",
          }),
        ).trim();
        expect(out[style as keyof typeof whole]).toEqual(
          style === "vancouver" ? text.replace(/^1\.\s*/, "") : text,
        );
      }
    }
    for (const style of Object.keys(whole)) {
      const xml = cslStyles().get(`${style}-bibliography`) ?? "";
      // One citation element, the least CSL allows: the pattern still finds each style's own.
      expect(xml.match(/<citation\b/g)).toEqual(["<citation"]);
      expect(xml).toContain('<citation><layout><text variable="title"/></layout></citation>');
    }
  });

  it("returns exactly the requested styles", () => {
    expect(Object.keys(formatCitations(ONE, ["mla", "ris", "mla"]))).toEqual(["mla", "ris"]);
    expect(formatCitations(ONE, [])).toEqual({});
  });

  it("writes RIS one tag per line, TY first and ER last, however long the value", () => {
    const long = article({ title: `${"A very long title ".repeat(12)}end.` });
    for (const a of [...Object.values(FIXTURES), long]) {
      const lines = formatCitations(a, ["ris"]).ris.split("\n");
      expect(lines[0]).toMatch(/^TY {2}- [A-Z]+$/);
      expect(lines.at(-1)).toEqual("ER  - ");
      for (const line of lines) expect(line).toMatch(/^[A-Z][A-Z0-9] {2}- /);
      expect(lines.filter((l) => l.startsWith("TI"))).toEqual([`TI  - ${toCslJson(a).title}`]);
    }
  });

  it("writes BibTeX that citation-js parses back to the same title, authors and DOI", () => {
    for (const a of Object.values(FIXTURES)) {
      const item = toCslJson(a);
      const [parsed] = new Cite(formatCitations(a, ["bibtex"]).bibtex).data;
      expect(parsed?.title).toEqual(item.title);
      // BibTeX has no "literal" name: a braced group name reads back as a family name.
      const names = (list: unknown) =>
        (list as CslName[] | undefined)?.map(
          (n) => n.literal ?? [n.family, n.given].filter(Boolean).join("|"),
        );
      expect(names(parsed?.author)).toEqual(names(item.author));
      expect(parsed?.DOI).toEqual(item.DOI);
    }
  });

  it("writes CSL-JSON that reads back as the item it came from", () => {
    for (const a of Object.values(FIXTURES)) {
      const item = toCslJson(a);
      const json: unknown = JSON.parse(formatCitations(a, ["csl_json"]).csl_json);
      expect(json).toEqual(item);
      expect(new Cite(json).data[0]).toMatchObject({ ...item });
    }
  });
});

describe("toCslJson", () => {
  const issued = (publicationDate: JournalInfo["publicationDate"]) =>
    toCslJson(article({ journalInfo: { ...LANCET, publicationDate } })).issued;
  const none = { year: null, month: null, day: null, medlineDate: null };

  it("reads PubDate months as names or numbers, and a MedlineDate's start", () => {
    expect(issued({ ...none, year: "2019", month: "08", day: "5" })).toEqual({
      "date-parts": [[2019, 8, 5]],
    });
    expect(issued({ ...none, year: "2019", month: "Sept" })).toEqual({ "date-parts": [[2019, 9]] });
    expect(issued({ ...none, year: "2019", day: "5" })).toEqual({ "date-parts": [[2019]] });
    expect(issued({ ...none, medlineDate: "1998 Dec-1999 Jan" })).toEqual({
      "date-parts": [[1998, 12]],
    });
    expect(issued({ ...none, medlineDate: "2000 Spring" })).toEqual({ "date-parts": [[2000]] });
    expect(issued({ ...none, medlineDate: "2000-2001" })).toEqual({ "date-parts": [[2000]] });
    expect(issued(none)).toBeUndefined();
  });

  it("expands MEDLINE's abbreviated page ranges and leaves others alone", () => {
    const page = (pages: string) => toCslJson(article({ journalInfo: { ...LANCET, pages } })).page;
    expect(page("1032-48")).toEqual("1032-1048");
    expect(page("99-102")).toEqual("99-102");
    expect(page("123-9, 140-5")).toEqual("123-129, 140-145");
    expect(page("e0213")).toEqual("e0213");
    expect(page("S12-9")).toEqual("S12-9");
  });

  it("drops PubMed's closing period from titles but keeps other end punctuation", () => {
    const title = (t: string) => toCslJson(article({ title: t })).title;
    expect(title("Aspirin for all?")).toEqual("Aspirin for all?");
    expect(title("[Hypertension in the elderly].")).toEqual("[Hypertension in the elderly]");
    expect(title("Case report...")).toEqual("Case report...");
  });
});
