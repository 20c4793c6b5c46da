/**
 * The reference-verification test set (src/devtools/reference-set.ts) built from the recorded
 * PubMed records: every style and kind present, real references that say what their record says,
 * wrong ones wrong in exactly the field they claim, invented ones that nothing can look up.
 */
import { beforeAll, expect, it } from "@jest/globals";
import { loadFixturePubmed, type FixturePubmed } from "../../src/devtools/fixture-pubmed.js";
import { STOPWORDS, foldWords } from "../../src/devtools/pubmed-fields.js";
import {
  REFERENCE_KINDS,
  REFERENCE_STYLES,
  buildReferenceSet,
  citable,
  type ReferenceCase,
} from "../../src/devtools/reference-set.js";
import {
  abbreviatePages,
  citedJournalName,
  pageRange,
} from "../../src/devtools/reference-styles.js";
import { EUTILS_FIXTURES, describeShared } from "../helpers/shared.js";

/** BibTeX accent commands back to letters ({\'a} → a), so folded text can be compared. */
const unlatex = (text: string) =>
  text.replace(/\{\\(?:[`'^"~=.]|c\{)?([A-Za-z])\}?\}/g, "$1").replace(/\{\\([oO])\}/g, "$1");
const folded = (text: string) => foldWords(unlatex(text)).join(" ");

it("abbreviates page ranges as NLM does and expands them back", () => {
  expect(abbreviatePages("1116-1122")).toBe("1116-22");
  expect(abbreviatePages("100-109")).toBe("100-9");
  expect(abbreviatePages("4987-5009")).toBe("4987-5009");
  expect(abbreviatePages("H337-H349")).toBe("H337-H349");
  expect(abbreviatePages("S224-5")).toBe("S224-S225");
  expect(abbreviatePages("e0033722")).toBe("e0033722");
  expect(pageRange("113-25")).toEqual(["113", "125"]);
  expect(pageRange("S224-S225")).toEqual(["S224", "S225"]);
  expect(citedJournalName("Journal of magnetic resonance (San Diego, Calif. : 1997)")).toBe(
    "Journal of Magnetic Resonance",
  );
  expect(citedJournalName("Biochimica et biophysica acta. Molecular cell research")).toBe(
    "Biochimica et Biophysica Acta. Molecular Cell Research",
  );
  expect(citedJournalName("The American journal of gastroenterology", false)).toBe(
    "American Journal of Gastroenterology",
  );
  expect(citedJournalName("PeerJ")).toBe("PeerJ");
  expect(citedJournalName("T'ung pao. T'oung pao")).toBe("T'ung Pao. T'oung Pao");
  expect(citedJournalName("Evidence-based spine-care journal")).toBe(
    "Evidence-Based Spine-Care Journal",
  );
});

describeShared("reference set from the recorded PubMed records", () => {
  let pubmed: FixturePubmed;
  let set: ReferenceCase[];
  const of = (kind: string) => set.filter((c) => c.kind === kind);
  const textOf = (pmid: string, style: string, kind = "real") =>
    set.find((c) => c.expect.pmid === pmid && c.style === style && c.kind === kind)?.text ?? "";

  beforeAll(() => {
    pubmed = loadFixturePubmed(EUTILS_FIXTURES);
    set = buildReferenceSet(pubmed.records.map((r) => r.article));
  });

  it("has every style and every kind; pages and volume wrong only where a style states them", () => {
    const citableCount = pubmed.records.filter((r) => citable(r.article)).length;
    expect(citableCount).toBe(129);
    for (const style of REFERENCE_STYLES) {
      expect(set.filter((c) => c.style === style && c.kind === "real")).toHaveLength(citableCount);
      for (const kind of REFERENCE_KINDS) {
        const n = set.filter((c) => c.style === style && c.kind === kind).length;
        const stated = style !== "informal" || (kind !== "wrong_pages" && kind !== "wrong_volume");
        if (stated) expect(n).toBeGreaterThanOrEqual(15);
        else expect(n).toBe(0);
      }
    }
  });

  it("is deterministic for a seed and different for another", () => {
    const articles = pubmed.records.map((r) => r.article);
    expect(buildReferenceSet(articles)).toEqual(set);
    const other = buildReferenceSet(articles, { seed: 7 });
    expect(other.map((c) => c.text)).not.toEqual(set.map((c) => c.text));
  });

  it("cites real records by their first author's surname, year and title", () => {
    for (const c of of("real")) {
      const record = pubmed.record(c.expect.pmid ?? "");
      expect(record).toBeDefined();
      expect(c.expect).toEqual({ status: "verified", pmid: record?.pmid });
      const a = record?.article;
      const first = a?.authors[0];
      const text = folded(c.text);
      expect(text).toContain(folded(first?.lastName ?? first?.collectiveName ?? "?"));
      expect(c.text).toContain(a?.journalInfo.publicationDate.year ?? "?");
      const titleStart = foldWords(a?.title ?? "?")
        .slice(0, 4)
        .join(" ");
      expect(text).toContain(titleStart);
      if (c.text.includes("10.")) expect(c.text.toLowerCase()).toContain(a?.doi?.toLowerCase());
    }
  });

  it("writes each style as people do: diacritics, initials, abbreviations, page forms", () => {
    expect(textOf("32935693", "vancouver")).toMatch(/^Montalbán-López M, Scott TA, Ramesh S, /);
    expect(textOf("27797938", "vancouver")).toContain("Gut. 2017 Jun;66(6):1116-22.");
    expect(textOf("23435529", "vancouver")).toContain(" J Clin Oncol. 2013;31(10):1207-13.");
    expect(textOf("27797938", "apa")).toContain("Gut, 66(6), 1116–1122.");
    expect(textOf("32935693", "apa")).toContain("Natural Product Reports, 38(1), 130–239.");
    expect(textOf("32935693", "informal")).toMatch(/^Montalbán-López et al\., New developments/);
    expect(textOf("27797938", "ris")).toMatch(/^TY {2}- JOUR\n(AU {2}- .+\n)+TI {2}- Leucocyte/);
    const bibtex = of("real")
      .filter((c) => c.style === "bibtex")
      .map((c) => c.text);
    expect(bibtex.every((t) => /^@article\{[a-z0-9]+,\n/.test(t) && t.endsWith("\n}"))).toBe(true);
    expect(bibtex.some((t) => t.includes("{\\'a}"))).toBe(true);
    expect(set.some((c) => c.style === "ris" && c.text.includes("\r\n"))).toBe(true);
    // Identifiers spread: some references carry neither DOI nor PMID, some one, some both.
    const real = of("real");
    const withDoi = real.filter((c) => /10\.\d{4,}\//.test(c.text)).length;
    const withPmid = real.filter((c) => c.text.includes(c.expect.pmid ?? "?")).length;
    expect(withDoi).toBeGreaterThan(real.length * 0.3);
    expect(withDoi).toBeLessThan(real.length * 0.8);
    expect(withPmid).toBeGreaterThan(real.length * 0.15);
    expect(withPmid).toBeLessThan(real.length * 0.5);
  });

  it("makes wrong references wrong in exactly the field they name", () => {
    for (const kind of ["wrong_year", "wrong_pages", "wrong_volume", "other_authors"]) {
      for (const c of of(kind)) {
        const a = pubmed.record(c.expect.pmid ?? "")?.article;
        expect(a).toBeDefined();
        expect(c.expect.status).toBe("mismatch");
        expect(c.expect.differences).toHaveLength(1);
        const j = a?.journalInfo;
        const [field] = c.expect.differences ?? [];
        const cited = c.cited;
        expect(cited.year !== j?.publicationDate.year).toBe(field === "year");
        expect(cited.volume !== j?.volume).toBe(field === "volume");
        expect(cited.pages !== j?.pages).toBe(field === "pages");
        expect(cited.authors[0]?.lastName !== a?.authors[0]?.lastName).toBe(field === "authors");
        expect(cited.title).toBe(a?.title);
        if (field === "year") expect(c.text).toContain(cited.year);
        if (field === "authors") {
          const surnames = (a?.authors ?? []).map((p) => folded(p.lastName ?? ""));
          const given = cited.authors.map((p) => folded(p.lastName ?? p.collectiveName ?? ""));
          expect(given.filter((s) => surnames.includes(s))).toEqual([]);
        }
      }
    }
    expect(textOf("27797938", "vancouver", "wrong_pages")).not.toContain("1116");
  });

  it("invents references nothing can look up: no title words, DOI or citation of a real record", () => {
    const fabricated = of("fabricated");
    expect(fabricated.length).toBe(129);
    for (const c of fabricated) {
      expect(c.expect).toEqual({ status: "not_found" });
      const words = foldWords(c.cited.title).filter((w) => !STOPWORDS.has(w));
      expect(words.length).toBeGreaterThanOrEqual(3);
      // Any three of its title words together find nothing: try them pairwise with a third.
      const group = (ws: string[]) => `(${ws.map((w) => `${w}[ti]`).join(" AND ")})`;
      for (let i = 0; i + 2 < words.length; i++)
        expect(pubmed.search(group(words.slice(i, i + 3)))).toEqual([]);
      if (c.cited.doi) expect(pubmed.search(`"${c.cited.doi}"[aid]`)).toEqual([]);
      const answer = pubmed.citationMatch({
        journal: c.cited.journalAbbrev,
        year: c.cited.year,
        volume: c.cited.volume ?? "",
        firstPage: pageRange(c.cited.pages ?? "")[0],
        authorName: "",
      });
      expect(answer).toBe("NOT_FOUND");
      expect(folded(c.text)).toContain(folded(c.cited.authors[0]?.lastName ?? "?"));
    }
    // A real journal each time.
    const journals = new Set(pubmed.records.map((r) => r.article.journalInfo.title));
    expect(fabricated.every((c) => journals.has(c.cited.journalFull))).toBe(true);
  });

  it("the stand-in finds each real reference's record by its DOI or its citation", () => {
    for (const c of of("real").filter((x) => x.style === "vancouver")) {
      const pmid = c.expect.pmid ?? "";
      if (c.cited.doi) expect(pubmed.search(`"${c.cited.doi}"[aid]`)).toEqual([pmid]);
      if (!c.cited.volume || !c.cited.pages) continue;
      const answer = pubmed.citationMatch({
        journal: c.cited.journalAbbrev,
        year: c.cited.year,
        volume: c.cited.volume,
        firstPage: pageRange(c.cited.pages)[0],
        authorName: c.cited.authors[0]?.lastName ?? "",
      });
      expect([pmid, "AMBIGUOUS (2 citations)"]).toContain(answer);
    }
  });
});
