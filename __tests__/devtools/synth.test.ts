import { describe, expect, it } from "@jest/globals";
import { SYNTH_PMID_BASE, createSynthCorpus } from "../../src/devtools/synth.js";
import { demoCorpus } from "../../src/devtools/synth-ncbi.js";
import { articleSetXml, articleXml } from "../../src/devtools/synth-xml.js";

const TERMS = [
  { term: "asthma inhaled therapy", count: 300, edatFrom: "2018-01-01", edatTo: "2021-12-31" },
  { term: "sync test alpha", count: 200, edatFrom: "2020-03-01", edatTo: "2020-03-31" },
];

describe("createSynthCorpus", () => {
  it("is deterministic: the same seed gives byte-identical XML, another seed does not", () => {
    const a = createSynthCorpus({ seed: 42, terms: TERMS });
    const b = createSynthCorpus({ seed: 42, terms: TERMS });
    const c = createSynthCorpus({ seed: 43, terms: TERMS });
    const ids = a.pmidsFor("asthma inhaled therapy").slice(0, 60);
    expect(articleSetXml(b.records(ids))).toBe(articleSetXml(a.records(ids)));
    expect(articleSetXml(c.records(ids))).not.toBe(articleSetXml(a.records(ids)));
  });

  it("builds any record alone, in any order, the same way", () => {
    const a = createSynthCorpus({ seed: 5, terms: TERMS });
    const late = articleXml(a.recordAt(450));
    for (let i = 0; i < 40; i++) a.recordAt(i);
    expect(articleXml(a.recordAt(450))).toBe(late);
  });

  it("numbers PMIDs from the base without gaps and keeps each term's set", () => {
    const corpus = createSynthCorpus({ seed: 1, terms: TERMS });
    expect(corpus.size).toBe(500);
    const first = corpus.pmidsFor("asthma inhaled therapy");
    const second = corpus.pmidsFor("sync test alpha");
    expect(first).toHaveLength(300);
    expect(second).toHaveLength(200);
    expect(new Set([...first, ...second]).size).toBe(500);
    expect(first[0]).toBe(String(SYNTH_PMID_BASE));
    expect(second[199]).toBe(String(SYNTH_PMID_BASE + 499));
    expect(corpus.pmidsFor("no such thing")).toEqual([]);
    expect(corpus.pmidsFor("  Sync   TEST alpha ")).toEqual(second);
  });

  it("spreads Entrez dates over the whole span, inclusive of both ends' days", () => {
    const corpus = createSynthCorpus({
      seed: 9,
      terms: [{ term: "spread", count: 5000, edatFrom: "2015-01-01", edatTo: "2025-12-31" }],
    });
    const byYear = new Map<number, number>();
    for (const pmid of corpus.pmidsFor("spread")) {
      const edat = corpus.edatOf(corpus.indexOf(pmid) ?? -1);
      expect(edat).toBeGreaterThanOrEqual(Date.UTC(2015, 0, 1));
      expect(edat).toBeLessThan(Date.UTC(2026, 0, 1));
      const year = new Date(edat).getUTCFullYear();
      byYear.set(year, (byYear.get(year) ?? 0) + 1);
    }
    expect([...byYear.keys()].sort()).toEqual([
      2015, 2016, 2017, 2018, 2019, 2020, 2021, 2022, 2023, 2024, 2025,
    ]);
    for (const n of byYear.values()) expect(n).toBeGreaterThan(300);
  });

  it("answers EDAT windows at day granularity, and yearly windows add up to the whole", () => {
    const corpus = createSynthCorpus({ seed: 2, terms: TERMS });
    const all = corpus.pmidsFor("asthma inhaled therapy");
    const years = ["2018", "2019", "2020", "2021"].map(
      (y) =>
        corpus.pmidsFor("asthma inhaled therapy", { edatFrom: `${y}/01/01`, edatTo: `${y}/12/31` })
          .length,
    );
    expect(years.reduce((s, n) => s + n, 0)).toBe(all.length);
    const pmid = all[137] ?? "";
    const day = new Date(corpus.record(pmid)?.edat ?? 0).toISOString().slice(0, 10);
    expect(corpus.pmidsFor("asthma inhaled therapy", { edatFrom: day, edatTo: day })).toContain(
      pmid,
    );
    const month = day.slice(0, 7).replace("-", "/");
    expect(corpus.pmidsFor("asthma inhaled therapy", { edatFrom: month, edatTo: month })).toContain(
      pmid,
    );
  });

  it("revise() bumps LR, and rewrites only the abstract when asked", () => {
    const corpus = createSynthCorpus({ seed: 3, terms: TERMS });
    const pmid = corpus.pmidsFor("sync test alpha")[10] ?? "";
    const before = corpus.record(pmid);
    corpus.revise(pmid, { lr: new Date("2026-02-03T10:00:00Z") });
    const bumped = corpus.record(pmid);
    expect(bumped?.lr).toBe(Date.UTC(2026, 1, 3));
    expect(bumped?.abstract).toEqual(before?.abstract);
    expect(articleXml(bumped!)).toContain(
      "<DateRevised><Year>2026</Year><Month>02</Month><Day>03</Day></DateRevised>",
    );
    corpus.revise(pmid, { lr: new Date("2026-03-01"), changeAbstract: true });
    const rewritten = corpus.record(pmid);
    expect(rewritten?.abstract).not.toEqual(before?.abstract);
    expect(rewritten?.title).toBe(before?.title);
    expect(rewritten?.abstractVersion).toBe(1);
  });

  it("add() appends new records without changing the old ones", () => {
    const corpus = createSynthCorpus({ seed: 4, terms: TERMS });
    const old = corpus.pmidsFor("asthma inhaled therapy");
    const snapshot = articleSetXml(corpus.records(old));
    const added = corpus.add({
      term: "asthma inhaled therapy",
      count: 50,
      edatFrom: "2022-01-01",
      edatTo: "2022-02-28",
    });
    expect(added[0]).toBe(String(SYNTH_PMID_BASE + 500));
    expect(corpus.pmidsFor("asthma inhaled therapy")).toEqual([...old, ...added]);
    expect(corpus.pmidsFor("asthma inhaled therapy", { edatFrom: "2022-01-01" })).toEqual(added);
    expect(articleSetXml(corpus.records(old))).toBe(snapshot);
  });

  it("rejects a malformed term spec", () => {
    expect(() =>
      createSynthCorpus({
        terms: [{ term: "x", count: 1, edatFrom: "2020-12-01", edatTo: "2020-01-01" }],
      }),
    ).toThrow(RangeError);
  });
});

describe("demo corpus content", () => {
  const corpus = demoCorpus();
  const records = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i));
  const share = (test: (r: (typeof records)[number]) => boolean) => records.filter(test).length;

  it("has the three documented terms", () => {
    expect(corpus.terms()).toEqual(["metformin aging", "crispr therapy", "long covid"]);
    expect(corpus.pmidsFor("metformin aging")).toHaveLength(60);
    expect(corpus.pmidsFor("crispr therapy")).toHaveLength(40);
    expect(corpus.pmidsFor("long covid")).toHaveLength(120);
    for (const r of records) {
      expect(r.edat).toBeGreaterThanOrEqual(Date.UTC(2019, 0, 1));
      expect(r.edat).toBeLessThan(Date.UTC(2026, 0, 1));
    }
  });

  it("mixes the features real records have", () => {
    expect(
      share((r) => r.abstract.length > 1 && r.abstract.every((s) => s.nlmCategory !== null)),
    ).toBeGreaterThan(50);
    expect(share((r) => r.abstract.length === 1 && r.abstract[0]?.label === null)).toBeGreaterThan(
      20,
    );
    expect(share((r) => /<(i|sup|sub)>/.test(r.titleMarkup))).toBeGreaterThan(3);
    expect(share((r) => r.authors.some((a) => a.collectiveName !== null))).toBeGreaterThan(0);
    expect(share((r) => r.authors.some((a) => a.orcid !== null))).toBeGreaterThan(50);
    expect(share((r) => r.authors.some((a) => a.affiliations.length > 1))).toBeGreaterThan(10);
    expect(share((r) => r.citation.pubDate.medlineDate !== null)).toBeGreaterThan(0);
    expect(share((r) => r.retraction !== null)).toBeGreaterThan(0);
    expect(share((r) => r.citationSubsets.includes("AIM"))).toBeGreaterThan(10);
    expect(share((r) => r.citationSubsets.length === 0)).toBeGreaterThan(10);
    expect(share((r) => r.mesh.some((m) => m.name === "Humans"))).toBeGreaterThan(50);
    expect(share((r) => r.mesh.some((m) => m.name === "Animals"))).toBeGreaterThan(5);
    expect(share((r) => r.mesh.some((m) => m.qualifiers.length > 0))).toBeGreaterThan(50);
    expect(share((r) => r.keywords.length > 0)).toBeGreaterThan(50);
    expect(share((r) => r.doi !== null)).toBeGreaterThan(150);
    expect(share((r) => r.pmcid !== null)).toBeGreaterThan(30);
    for (const r of records) {
      const people = r.authors.filter((a) => a.collectiveName === null);
      expect(people.length).toBeGreaterThanOrEqual(1);
      expect(people.length).toBeLessThanOrEqual(12);
    }
    const types = new Set(records.flatMap((r) => r.publicationTypes.map((t) => t.name)));
    for (const t of [
      "Journal Article",
      "Randomized Controlled Trial",
      "Meta-Analysis",
      "Systematic Review",
      "Review",
      "Observational Study",
      "Case Reports",
      "Retracted Publication",
    ]) {
      expect(types).toContain(t);
    }
  });

  it("writes each term's topic into titles and abstracts, so retrieval has something to find", () => {
    const text = (pmid: string) => {
      const r = corpus.record(pmid);
      return `${r?.title} ${r?.abstract.map((s) => s.text).join(" ")}`.toLowerCase();
    };
    const covid = corpus.pmidsFor("long covid").filter((p) => /covid|sars-cov-2/.test(text(p)));
    expect(covid.length).toBeGreaterThan(100);
    const crispr = corpus
      .pmidsFor("crispr therapy")
      .filter((p) => /crispr|editing|gene therapy|sickle/.test(text(p)));
    expect(crispr.length).toBeGreaterThan(35);
  });

  it("derives EDAT, publication and revision dates consistently", () => {
    for (const r of records) {
      expect(r.lr).toBeGreaterThanOrEqual(Math.floor(r.edat / 86_400_000) * 86_400_000);
      expect(r.lr).toBeLessThanOrEqual(corpus.now.getTime());
      if (r.received !== null) expect(r.received).toBeLessThan(r.edat);
      if (r.status === "MEDLINE") expect(r.medlineDate).toBeGreaterThan(r.edat);
    }
  });
});
