/**
 * Budgets over parsed recorded articles (PMC3299399: 22 sections, 76 references; PMC6329583:
 * sections three deep, six tables): maxCharacters and its account, section selection, outline
 * mode, cutting a lone paragraph at a sentence or word boundary, and surrogate pairs at the cut.
 */
import { describe, expect, it } from "@jest/globals";
import {
  CUT_MARK,
  DEFAULT_MAX_CHARACTERS,
  applyBudget,
  cutText,
} from "../../src/literature/fulltext-budget.js";
import { parseJats } from "../../src/jats/parse.js";
import type { JatsArticle } from "../../src/jats/types.js";
import {
  fulltextArticleSchema,
  type FulltextArticle,
} from "../../src/literature/fulltext-types.js";
import { describeLiterature, literatureFixture } from "../helpers/shared.js";

function article(path: string): JatsArticle {
  return parseJats(literatureFixture(path)).articles[0] as JatsArticle;
}
const review = (): JatsArticle => article("eutils/tests/data/efetch_db-pmc_id-3299399.xml");
const pten = (): JatsArticle => article("biomcp/testdata/sources/ncbi_efetch/pmc6329583.xml");

const caption = (c: { label?: string; caption?: string }): number =>
  (c.label?.length ?? 0) + (c.caption?.length ?? 0);
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** What the budget counts, recomputed from an answer (see the header of src/literature/fulltext-budget.ts). */
function counted(out: FulltextArticle): number {
  return (
    out.title.length +
    (out.abstract?.length ?? 0) +
    sum(
      (out.sections ?? []).map(
        (s) => (s.title?.length ?? 0) + sum((s.paragraphs ?? []).map((p) => p.length)),
      ),
    ) +
    sum((out.figures ?? []).map(caption)) +
    sum((out.tables ?? []).map((t) => caption(t) + sum((t.rows ?? []).map((r) => r.length)))) +
    sum((out.supplementary ?? []).map(caption)) +
    sum((out.references ?? []).map((r) => r.citation.length))
  );
}

/** The same count over a whole parsed article, computed independently of the budget code. */
function fullSize(a: JatsArticle): number {
  return (
    a.title.length +
    (a.abstract?.length ?? 0) +
    sum(a.sections.map((s) => (s.title?.length ?? 0) + sum(s.paragraphs.map((p) => p.length)))) +
    sum(a.figures.map(caption)) +
    sum(a.tables.map(caption)) +
    sum(a.supplementary.map(caption))
  );
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describeLiterature("applyBudget on recorded articles", () => {
  it("keeps the default 12,000 characters, whole paragraphs in order, and accounts for the rest", () => {
    const a = review();
    const out = applyBudget(a);
    expect(fulltextArticleSchema.parse(out)).toEqual(out);
    expect(DEFAULT_MAX_CHARACTERS).toBe(12_000);
    const t = out.truncated;
    expect(t).toBeDefined();
    if (t === undefined) return;
    expect(counted(out)).toBe(t.returnedCharacters);
    expect(t.returnedCharacters).toBeLessThanOrEqual(12_000);
    expect(t.returnedCharacters).toBeGreaterThan(11_000); // the next paragraph would not have fit
    expect(t.totalCharacters).toBe(fullSize(a));
    expect(t.charactersDropped).toBe(sum(t.sections.map((s) => s.charactersDropped)));
    expect(t.paragraphsDropped).toBe(sum(t.sections.map((s) => s.paragraphsDropped)));
    expect(t.sections.some((s) => s.cut)).toBe(false);

    // Paragraphs are a prefix of the article's, untouched; what follows is what was dropped.
    const all = a.sections.flatMap((s) => s.paragraphs);
    const kept = (out.sections ?? []).flatMap((s) => s.paragraphs ?? []);
    expect(kept).toEqual(all.slice(0, kept.length));
    expect(out.abstract).toBe(a.abstract);
    const droppedParagraphs = sum(
      t.sections
        .filter((s) => !["Figures", "Tables", "Supplementary material"].includes(s.section))
        .map((s) => s.paragraphsDropped),
    );
    expect(kept.length + droppedParagraphs).toBe(all.length);
    expect(t.sections[0]).toEqual({
      section:
        "Introduction > Structural connectivity and SZ > WM integrity and SZ: evidence from DTI investigations",
      paragraphsDropped: 1,
      charactersDropped: all[kept.length]?.length,
    });
    expect(t.sections.map((s) => s.section).slice(-3)).toEqual([
      "Conflict of Interest Statement",
      "Figures",
      "Tables",
    ]);
    expect(out.figures).toBeUndefined();
    expect(out.referenceCount).toBe(76);
  });

  it("returns everything, without an account, when the budget allows", () => {
    const a = review();
    const out = applyBudget(a, { maxCharacters: 1_000_000 });
    expect(out.truncated).toBeUndefined();
    expect(out.sections).toHaveLength(22);
    expect(counted(out)).toBe(fullSize(a));
    expect(out.figures).toHaveLength(2);
    expect(out.tables?.map((t) => t.label)).toEqual(["Table 1", "Table 2", "Table 3"]);
    expect(out.tables?.[0]?.rows).toBeUndefined(); // rows only when asked for
    expect(out.references).toBeUndefined(); // references only when asked for
    expect(out.sections?.[0]).toEqual({ level: 1, title: "Introduction" });
    expect(out.sections?.[1]?.paragraphs).toHaveLength(3);
  });

  it("adds references and table rows when asked, counted like the rest and dropped from the end", () => {
    const a = review();
    const all = applyBudget(a, {
      maxCharacters: 1_000_000,
      includeReferences: true,
      includeTables: true,
    });
    expect(all.references).toHaveLength(76);
    expect(all.references?.[0]).toMatchObject({ pmid: "17088422" });
    expect(all.tables?.[0]?.rows?.[0]).toBe(
      "First author and date | Gene of interest | Connectivity | Method | Statistic | n | Cohen’s d",
    );
    const size = counted(all);
    const short = applyBudget(a, {
      maxCharacters: size - 1000,
      includeReferences: true,
      includeTables: true,
    });
    expect(short.truncated?.sections.map((s) => s.section)).toEqual(["References"]);
    expect(short.references?.length).toBeLessThan(76);
    expect(short.references?.length).toBeGreaterThan(60);
    expect(counted(short)).toBe(short.truncated?.returnedCharacters);
    expect(short.truncated?.totalCharacters).toBe(size);
  });

  it("keeps the sections asked for, with their subsections, case-insensitively", () => {
    const out = applyBudget(pten(), { sections: ["RESULTS"], maxCharacters: 100_000 });
    expect(out.sections?.map((s) => `${s.level} ${s.title}`)).toEqual([
      "1 Results",
      "2 PTEN-Specific Variant Curation Rules",
      "2 Evidence assessment and modification",
      "3 A. Population Data (BA1, BS1, PM2, PS4)",
      "3 B. Computational and Predictive Data (BP1, BP3, BP4, BP7, PP2, PP3, PM1, PM4, PM5, PS1, PVS1)",
      "3 C. Functional Data (BS3, PS3)",
      "3 D. Segregation Data (BS4, PP1)",
      "3 E. De Novo Data (PM6, PS2)",
      "3 F. Phenotype (PS4/PP4)",
      "3 G. Allelic Data (BS2, BP2, BP5)",
      "2 Rule Piloting",
    ]);
    expect(out.abstract).toBeUndefined();
    expect(out.tables).toBeUndefined();
    expect(out.unmatchedSections).toBeUndefined();
    expect(out.truncated).toBeUndefined();
    expect(out.sections?.[4]?.paragraphs).toHaveLength(6);

    const withParts = applyBudget(pten(), { sections: ["functional data", "Tables", "abstract"] });
    expect(withParts.sections?.map((s) => s.title)).toEqual([
      "Results",
      "Evidence assessment and modification",
      "C. Functional Data (BS3, PS3)",
    ]);
    expect(withParts.sections?.[0]?.paragraphs).toBeUndefined(); // an ancestor, as a heading
    expect(withParts.tables).toHaveLength(6);
    expect(withParts.abstract).toMatch(/^The ClinGen PTEN Expert Panel/);
  });

  it("keeps every match of an ambiguous title and names what matched nothing", () => {
    const out = applyBudget(review(), { sections: ["meta-analysis", "Acknowledgements"] });
    expect(out.sections?.map((s) => [s.level, s.title, s.paragraphs?.length])).toEqual([
      [1, "Results", undefined],
      [2, "Meta-analysis", 1],
      [1, "Discussion", undefined],
      [2, "Meta-analysis", 2],
    ]);
    expect(out.unmatchedSections).toEqual(["acknowledgements"]);
  });

  it("outline mode gives titles, nesting and sizes only", () => {
    const a = pten();
    const out = applyBudget(a, { mode: "outline" });
    expect(fulltextArticleSchema.parse(out)).toEqual(out);
    expect(out.sections?.every((s) => s.paragraphs === undefined)).toBe(true);
    expect(out.abstract).toBeUndefined();
    expect(out.abstractCharacters).toBe(a.abstract?.length);
    const results = a.sections.findIndex((s) => s.title === "Results");
    const subtree = a.sections.slice(results + 1, results + 11);
    expect(out.sections?.[results]).toEqual({
      level: 1,
      title: "Results",
      characters: 0,
      totalCharacters: sum(subtree.flatMap((s) => s.paragraphs.map((p) => p.length))),
    });
    const rule = out.sections?.find((s) => s.title === "Rule Piloting");
    expect(rule).toEqual({
      level: 2,
      title: "Rule Piloting",
      characters: sum(
        a.sections.find((s) => s.title === "Rule Piloting")?.paragraphs.map((p) => p.length) ?? [],
      ),
    });
    expect(JSON.stringify(out).length).toBeLessThan(2500);
    expect(applyBudget(a, { mode: "outline", sections: ["discussion"] }).sections).toEqual([
      { level: 1, title: "Discussion", characters: expect.any(Number) },
    ]);
  });

  it("cuts a paragraph only when it alone exceeds the budget, at a sentence boundary, and marks it", () => {
    const a = review();
    const original = a.sections.find((s) => s.title === "Limitations")?.paragraphs ?? [];
    const out = applyBudget(a, { sections: ["Limitations"], maxCharacters: 500 });
    const kept = out.sections?.[1]?.paragraphs ?? [];
    expect(kept).toHaveLength(1);
    const text = kept[0] ?? "";
    expect(text.endsWith(CUT_MARK)).toBe(true);
    const body = text.slice(0, -CUT_MARK.length);
    expect(original[0]?.startsWith(body)).toBe(true);
    expect(body).toMatch(/\.$/);
    expect(out.truncated).toEqual({
      sections: [
        {
          section: "Discussion > Limitations",
          paragraphsDropped: 3,
          charactersDropped: sum(original.map((p) => p.length)) - body.length,
          cut: true,
        },
      ],
      paragraphsDropped: 3,
      charactersDropped: sum(original.map((p) => p.length)) - body.length,
      totalCharacters:
        a.title.length +
        "Discussion".length +
        "Limitations".length +
        sum(original.map((p) => p.length)),
      returnedCharacters: counted(out),
    });
    expect(counted(out)).toBeLessThanOrEqual(500);
  });

  it("drops rather than cuts once a paragraph has been kept, and never returns a stub", () => {
    const a = review();
    const first = a.sections[1]?.paragraphs[0] ?? "";
    const out = applyBudget(a, {
      sections: ["Examining"],
      maxCharacters: a.title.length + 60 + first.length + 500,
    });
    expect(out.sections?.[1]?.paragraphs).toEqual([first]);
    expect(out.truncated?.sections[0]).toMatchObject({ paragraphsDropped: 2 });
    expect(out.truncated?.sections[0]?.cut).toBeUndefined();

    const tiny = applyBudget(a, { maxCharacters: a.title.length + 50 });
    expect(tiny.abstract).toBeUndefined();
    expect(tiny.sections).toBeUndefined();
    expect(tiny.truncated?.sections[0]).toEqual({
      section: "Abstract",
      paragraphsDropped: 1,
      charactersDropped: a.abstract?.length,
    });
  });
});

describe("cutting text", () => {
  function synthetic(paragraph: string): JatsArticle {
    return {
      title: "T",
      sections: [{ level: 1, title: "S", paragraphs: [paragraph] }],
      figures: [],
      tables: [],
      supplementary: [],
      referenceCount: 0,
      references: [],
      hasBody: true,
    };
  }

  it("never splits a surrogate pair, whatever the budget", () => {
    const emoji = "😀🧬𝛼".repeat(100); // astral characters only, no spaces: a hard cut
    for (let max = 90; max < 110; max++) {
      const out = applyBudget(synthetic(emoji), { maxCharacters: max });
      const text = out.sections?.[0]?.paragraphs?.[0] ?? "";
      expect(text.endsWith(CUT_MARK)).toBe(true);
      expect(LONE_SURROGATE.test(text)).toBe(false);
      expect(counted(out)).toBeLessThanOrEqual(max);
      expect(out.truncated?.sections[0]?.cut).toBe(true);
    }
    const mixed = "a😀 b𝛼. c🧬d e😀f. ".repeat(20);
    for (let limit = 0; limit <= mixed.length; limit++) {
      const cut = cutText(mixed, limit);
      expect(cut.length).toBeLessThanOrEqual(limit);
      expect(LONE_SURROGATE.test(cut)).toBe(false);
      expect(mixed.startsWith(cut)).toBe(true);
    }
  });

  it("cuts at a sentence end when one is in reach, else at a word boundary", () => {
    expect(cutText("First sentence here. Second sentence is longer than the rest.", 40)).toBe(
      "First sentence here.",
    );
    expect(cutText("no sentence ends anywhere in this rather long run of words", 30)).toBe(
      "no sentence ends anywhere in",
    );
    expect(cutText("short", 30)).toBe("short");
  });
});
