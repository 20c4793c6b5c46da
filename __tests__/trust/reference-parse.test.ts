/**
 * Reading references: the fields each common style gives, BibTeX and RIS entries, splitting
 * pasted lists, and the comparison rules (page ranges, journal abbreviations, names).
 */
import { describe, expect, test } from "@jest/globals";
import { emptyArticle, type Article } from "../../src/ncbi/types.js";
import { differences, sameJournal } from "../../src/trust/reference-compare.js";
import { parseFreeText } from "../../src/trust/reference-parse.js";
import {
  parseBibtex,
  parseRis,
  splitReferences,
  unlatex,
} from "../../src/trust/reference-tagged.js";
import { pageRange, searchWords, titleSimilarity } from "../../src/trust/reference-text.js";

describe("free-text references", () => {
  test("Vancouver, with et al., month, issue, abbreviated pages and a DOI", () => {
    expect(
      parseFreeText(
        "Smith J, Lee AB, et al. Effects of aspirin on stroke. Results of a trial. N Engl J Med. 2019 Mar;380(3):100-9. doi:10.1056/NEJMoa123.",
      ),
    ).toEqual({
      authors: [
        { family: "Smith", initials: "J" },
        { family: "Lee", initials: "AB" },
      ],
      etAl: true,
      title: "Effects of aspirin on stroke. Results of a trial",
      journal: "N Engl J Med",
      year: "2019",
      volume: "380",
      issue: "3",
      pages: "100-9",
      doi: "10.1056/nejmoa123",
      // A journal's name may hold a sentence end too: the other cut is kept for the comparison.
      alternatives: [
        { title: "Effects of aspirin on stroke", journal: "Results of a trial. N Engl J Med" },
      ],
    });
  });

  test("Vancouver with numbering, particles, diacritics, a question title and an article number", () => {
    expect(
      parseFreeText(
        "12. Müller-Lüdenscheidt K, van der Berg AB, O'Neil C. Is coffee good? BMJ. 2019;364:l123. PMID: 30612345",
      ),
    ).toEqual({
      authors: [
        { family: "Müller-Lüdenscheidt", initials: "K" },
        { family: "van der Berg", initials: "AB" },
        { family: "O'Neil", initials: "C" },
      ],
      etAl: false,
      title: "Is coffee good?",
      journal: "BMJ",
      year: "2019",
      volume: "364",
      pages: "l123",
      pmid: "30612345",
    });
  });

  test("APA with an ampersand, an en dash and a resolver DOI", () => {
    expect(
      parseFreeText(
        "Smith, J., & Lee, A. B. (2019). Effects of aspirin on stroke: A trial. Journal of Neurology, 12(3), 100–109. https://doi.org/10.1000/XYZ",
      ),
    ).toEqual({
      authors: [
        { family: "Smith", initials: "J" },
        { family: "Lee", initials: "AB" },
      ],
      etAl: false,
      title: "Effects of aspirin on stroke: A trial",
      journal: "Journal of Neurology",
      year: "2019",
      volume: "12",
      issue: "3",
      pages: "100–109",
      doi: "10.1000/xyz",
    });
  });

  test("Harvard with a quoted title holding an apostrophe and a comma", () => {
    expect(
      parseFreeText(
        "Smith, J.A. and Lee, C. (2019) 'Alzheimer's disease, a review', Journal of Dementia, 12(3), pp. 100–109.",
      ),
    ).toMatchObject({
      authors: [
        { family: "Smith", initials: "JA" },
        { family: "Lee", initials: "C" },
      ],
      title: "Alzheimer's disease, a review",
      journal: "Journal of Dementia",
      year: "2019",
      volume: "12",
      pages: "100–109",
    });
  });

  test("informal: one author with et al., a title with a comma, journal and year", () => {
    expect(parseFreeText("Smith et al., Cancer statistics, 2019, CA Cancer J Clin 2019")).toEqual({
      authors: [{ family: "Smith" }],
      etAl: true,
      title: "Cancer statistics, 2019",
      journal: "CA Cancer J Clin",
      year: "2019",
      alternatives: [{ title: "Cancer statistics", journal: "2019, CA Cancer J Clin" }],
    });
  });

  test("APA 7's nineteen authors, an ellipsis and the last; an organisation among the authors", () => {
    const names = Array.from({ length: 19 }, (_, i) => `Name${"abcdefghijklmnopqrs"[i]}, A.`);
    const apa = parseFreeText(
      `${names.join(", ")}, . . . Last, Z. Q., & TAX 325 Study Group. (2013). A title. Journal of Things, 1(2), 3–4.`,
    );
    expect(apa.authors).toHaveLength(21);
    expect(apa.authors.slice(-2)).toEqual([
      { family: "Last", initials: "ZQ" },
      { family: "TAX 325 Study Group" },
    ]);
    expect(apa.etAl).toBe(true);
    expect(apa).toMatchObject({ title: "A title", journal: "Journal of Things", year: "2013" });
    expect(
      parseFreeText(
        "Guideline Development Panel for the Treatment of Depressive Disorders. (2022). Summary of the guideline. American Psychologist, 77(6), 770–780.",
      ),
    ).toMatchObject({
      authors: [
        { family: "Guideline Development Panel for the Treatment of Depressive Disorders" },
      ],
      title: "Summary of the guideline",
      journal: "American Psychologist",
    });
  });

  test("a journal whose name holds a full stop is found among the readings", () => {
    const ref = parseFreeText(
      "Lee, E. (2022). Vasomotor symptoms. American Journal of Physiology. Heart and Circulatory Physiology, 323(6), H1270–H1280.",
    );
    const rec: Article = {
      ...emptyArticle("1"),
      title: "Vasomotor symptoms.",
      authors: [
        {
          lastName: "Lee",
          firstName: "Emma",
          initials: "E",
          collectiveName: null,
          orcid: null,
          affiliations: [],
        },
      ],
      journalInfo: {
        ...emptyArticle("1").journalInfo,
        title: "American journal of physiology. Heart and circulatory physiology",
        isoAbbreviation: "Am J Physiol Heart Circ Physiol",
        volume: "323",
        pages: "H1270-H1280",
        publicationDate: { year: "2022", month: null, day: null, medlineDate: null },
      },
    };
    expect(ref.journal).toBe("Heart and Circulatory Physiology");
    expect(differences(ref, rec)).toEqual([]);
  });

  test("e-locators as pages: 'p. eade0385', 'ooae099'", () => {
    expect(
      parseFreeText(
        "Gauthier, T. et al. (2023) 'A title here', Science Signaling, 16(797), p. eade0385.",
      ),
    ).toMatchObject({ journal: "Science Signaling", volume: "16", pages: "eade0385" });
    expect(parseFreeText("Parraga-Leo A. VMAP. JAMIA Open. 2024;7(3):ooae099.")).toMatchObject({
      journal: "JAMIA Open",
      pages: "ooae099",
    });
  });

  test("MLA and Chicago: quoted titles, the first author inverted, vol./no. or volume (issue)", () => {
    expect(
      parseFreeText(
        "Adamantidis, Antoine R., and Luis de Lecea. “Sleep and the Hypothalamus.” Science (New York, N.Y.), vol. 382, no. 6669, 27 Oct. 2023, pp. 405–12. https://doi.org/10.1126/science.adh8285.",
      ),
    ).toEqual({
      authors: [
        { family: "Adamantidis", initials: "AR" },
        { family: "de Lecea", initials: "L" },
      ],
      etAl: false,
      title: "Sleep and the Hypothalamus",
      journal: "Science",
      year: "2023",
      volume: "382",
      issue: "6669",
      pages: "405–12",
      doi: "10.1126/science.adh8285",
    });
    expect(
      parseFreeText(
        'Smith, John, Anne Lee, and Bob Ray. 2019. "Aspirin and Stroke." Journal of Things 12 (3): 100–109.',
      ),
    ).toMatchObject({
      authors: [
        { family: "Smith", initials: "J" },
        { family: "Lee", initials: "A" },
        { family: "Ray", initials: "B" },
      ],
      title: "Aspirin and Stroke",
      journal: "Journal of Things",
      year: "2019",
      volume: "12",
      issue: "3",
      pages: "100–109",
    });
    expect(
      parseFreeText(
        'Smith, John. "Aspirin and Stroke." Journal of Things 1871, no. 3 (2019): 100–109.',
      ),
    ).toMatchObject({ journal: "Journal of Things", volume: "1871", issue: "3", year: "2019" });
  });

  test("a bare title, and a bare PMID", () => {
    expect(parseFreeText("Effects of aspirin on stroke")).toEqual({
      authors: [],
      etAl: false,
      title: "Effects of aspirin on stroke",
    });
    expect(parseFreeText("PMID: 12345678")).toEqual({ authors: [], etAl: false, pmid: "12345678" });
  });

  test("pathological inputs are read without catastrophic backtracking", () => {
    // Each would take minutes with nested quantifiers over the same characters; jest's timeout
    // is the limit, no duration is asserted.
    expect(parseFreeText("Smith J, ".repeat(330) + "x").year).toBeUndefined();
    expect(parseFreeText("A-".repeat(1400) + "!").authors).toEqual([]);
    const many = parseFreeText(`${"García-López-Ruiz, M., ".repeat(90)}(2019). T. J, 1(2), 3.`);
    expect(many).toMatchObject({ year: "2019", title: "T", journal: "J", volume: "1" });
    expect(many.authors).toHaveLength(90);
  });
});

describe("BibTeX and RIS", () => {
  test("a BibTeX entry with braces, quotes, LaTeX accents and 'and others'", () => {
    const entry = `@article{smith2019,
      author = {M{\\"u}ller, Karl and Jos{\\'e} Garc{\\'\\i}a and others},
      title = {{Effects} of aspirin on {stroke}},
      journal = "N Engl J Med",
      year = 2019, volume = {380}, number = {3}, pages = {100--109},
      doi = {10.1056/NEJMoa123}, pmid = {30612345}
    }`;
    expect(parseBibtex(entry)).toEqual({
      authors: [
        { family: "Müller", initials: "K" },
        { family: "García", initials: "J" },
      ],
      etAl: true,
      title: "Effects of aspirin on stroke",
      journal: "N Engl J Med",
      year: "2019",
      volume: "380",
      issue: "3",
      pages: "100-109",
      doi: "10.1056/nejmoa123",
      pmid: "30612345",
    });
    expect(unlatex('Schr{\\"o}dinger \\& Co')).toBe("Schrödinger & Co");
    // An organisation in braces is one author, "and" in its name or not; Ø is an initial.
    expect(
      parseBibtex("@article{k, author = {Bruserud, Øyvind and {Smith and Jones Study Group}}}")
        .authors,
    ).toEqual([{ family: "Bruserud", initials: "Ø" }, { family: "Smith and Jones Study Group" }]);
  });

  test("a RIS record", () => {
    const ris = [
      "TY  - JOUR",
      "AU  - Smith, John A.",
      "AU  - Lee, C.",
      "AU  - TAX 325 Study Group",
      "TI  - Effects of aspirin on stroke",
      "JO  - Journal of Neurology",
      "PY  - 2019///",
      "VL  - 12",
      "IS  - 3",
      "SP  - 100",
      "EP  - 109",
      "DO  - 10.1000/xyz",
      "AN  - 30612345",
      "ER  - ",
    ].join("\n");
    expect(parseRis(ris)).toEqual({
      authors: [
        { family: "Smith", initials: "JA" },
        { family: "Lee", initials: "C" },
        { family: "TAX 325 Study Group" },
      ],
      etAl: false,
      title: "Effects of aspirin on stroke",
      journal: "Journal of Neurology",
      year: "2019",
      volume: "12",
      issue: "3",
      pages: "100-109",
      doi: "10.1000/xyz",
      pmid: "30612345",
    });
  });

  test("blocks and lists are split into their references", () => {
    expect(splitReferences("@article{a, title={A}}\n@comment{x}\n@book{b, title={B}}")).toEqual([
      { text: "@article{a, title={A}}", format: "bibtex" },
      { text: "@book{b, title={B}}", format: "bibtex" },
    ]);
    const ris = "TY  - JOUR\nTI  - One\nER  - \nTY  - JOUR\nTI  - Two\nER  - ";
    expect(splitReferences(ris).map((p) => p.format)).toEqual(["ris", "ris"]);
    const numbered =
      "1. Smith J. A first title that wraps\nonto a second line. Lancet. 2019;1:2.\n2. Lee A. Another. BMJ. 2018;3:4.";
    expect(splitReferences(numbered).map((p) => p.text)).toEqual([
      "1. Smith J. A first title that wraps onto a second line. Lancet. 2019;1:2.",
      "2. Lee A. Another. BMJ. 2018;3:4.",
    ]);
    expect(
      splitReferences("[1] Smith J. One title. Lancet. 2019;1:2. [2] Lee A. Two. BMJ. 2018;3:4."),
    ).toHaveLength(2);
    expect(splitReferences("Smith J. One title. Lancet. 2019;1:2.")).toHaveLength(1);
  });
});

describe("comparison rules", () => {
  test("page ranges as MEDLINE abbreviates them", () => {
    expect(pageRange("1286-93")).toEqual({ first: "1286", last: "1293" });
    expect(pageRange("pp. 1286–1293")).toEqual({ first: "1286", last: "1293" });
    expect(pageRange("e0123456")).toEqual({ first: "e0123456" });
    // A letter prefix is dropped from the last page too: H337-49 is H337-H349.
    expect(pageRange("R12-5")).toEqual({ first: "r12", last: "r15" });
    expect(pageRange("H337–49")).toEqual(pageRange("H337-H349"));
    expect(pageRange("S224-5")).toEqual({ first: "s224", last: "s225" });
  });

  test("a journal matches by full title, ISO abbreviation, or as an abbreviation of either", () => {
    const rec = {
      journalInfo: {
        ...emptyArticle("1").journalInfo,
        title: "The Journal of biological chemistry",
        isoAbbreviation: "J Biol Chem",
      },
    };
    expect(sameJournal("J. Biol. Chem.", rec)).toBe(true);
    expect(sameJournal("Journal of Biological Chemistry", rec)).toBe(true);
    expect(sameJournal("J Biol", rec)).toBe(false);
    expect(sameJournal("Journal of Clinical Chemistry", rec)).toBe(false);
    const bmj = {
      journalInfo: {
        ...rec.journalInfo,
        title: "BMJ (Clinical research ed.)",
        isoAbbreviation: "BMJ",
      },
    };
    expect(sameJournal("BMJ", bmj)).toBe(true);
  });

  test("differences name each disagreeing field; diacritics, case and initials are tolerated", () => {
    const a: Article = {
      ...emptyArticle("30612345"),
      title: "Effects of aspirin on stroke in Müller's cohort.",
      authors: [
        {
          ...emptyArticle("1").authors[0],
          lastName: "Müller",
          firstName: "Karl",
          initials: "K",
          collectiveName: null,
          orcid: null,
          affiliations: [],
        },
        {
          lastName: "Lee",
          firstName: "Anne",
          initials: "AB",
          collectiveName: null,
          orcid: null,
          affiliations: [],
        },
      ],
      journalInfo: {
        ...emptyArticle("1").journalInfo,
        title: "The New England journal of medicine",
        isoAbbreviation: "N Engl J Med",
        volume: "380",
        pages: "1286-93",
        publicationDate: { year: "2019", month: "Mar", day: null, medlineDate: null },
      },
      doi: "10.1056/NEJMoa123",
    };
    const ref = parseFreeText(
      "Muller K, Lee A. Effects of aspirin on stroke in Muller's cohort. N Engl J Med. 2019;380:1286-1293. doi:10.1056/nejmoa123",
    );
    expect(differences(ref, a)).toEqual([]);
    const wrong = parseFreeText(
      "Muller K, Lee A. Effects of aspirin on stroke in Muller's cohort. N Engl J Med. 2017;381:1286-1299. doi:10.1056/nejmoa124",
    );
    expect(differences(wrong, a)).toEqual(["year", "volume", "pages", "doi"]);
    const otherAuthors = parseFreeText(
      "Jones P, Lee A. Effects of aspirin on stroke in Muller's cohort. N Engl J Med. 2019;380:1286-93.",
    );
    expect(differences(otherAuthors, a)).toEqual(["authors"]);
  });

  test("title words for searching and title similarity", () => {
    expect(
      searchWords("Effects of aspirin on stroke: a COVID-19 randomised trial in Müller's cohort"),
    ).toEqual(["effects", "aspirin", "stroke", "randomised", "muller"]);
    expect(titleSimilarity("Aspirin and stroke.", "aspirin AND STROKE")).toBe(1);
    expect(titleSimilarity("Aspirin and stroke", "Coffee and cancer")).toBeLessThan(0.5);
  });
});
