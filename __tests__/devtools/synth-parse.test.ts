/**
 * The synthetic replies read back through the project's own E-utilities parsers: what the
 * generator decided is what the parsers report, field for field where the contract names it.
 */
import { describe, expect, it } from "@jest/globals";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { articleSetXml } from "../../src/devtools/synth-xml.js";
import { EntrezError } from "../../src/errors.js";
import { parseECitMatch } from "../../src/ncbi/parse/ecitmatch.js";
import { parseEFetch } from "../../src/ncbi/parse/efetch.js";
import { parseEInfo } from "../../src/ncbi/parse/einfo.js";
import { parseELink } from "../../src/ncbi/parse/elink.js";
import { parseESearch } from "../../src/ncbi/parse/esearch.js";
import { parseESpell } from "../../src/ncbi/parse/espell.js";
import { parseESummary } from "../../src/ncbi/parse/esummary.js";

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}:00Z`;

describe("synthetic EFetch through parseEFetch", () => {
  it("gives back the generated PMIDs, titles, EDATs and the rest for a 200-record set", () => {
    const corpus = createSynthCorpus({
      seed: 77,
      terms: [
        { term: "parser round trip", count: 200, edatFrom: "2016-01-01", edatTo: "2024-12-31" },
      ],
    });
    const records = corpus.records(corpus.pmidsFor("parser round trip"));
    const articles = parseEFetch(articleSetXml(records));
    expect(articles).toHaveLength(200);
    articles.forEach((article, i) => {
      const r = records[i]!;
      expect(article.pmid).toBe(r.pmid);
      expect(article.title).toBe(r.title);
      expect(article.articleDates).toEqual({
        edat: iso(r.edat),
        lr: iso(r.lr),
        pubmed: iso(r.pubmedDate),
      });
      expect(article.abstractSections).toEqual(
        r.abstract.map((s) => ({ label: s.label, nlmCategory: s.nlmCategory, text: s.text })),
      );
      expect(article.authors.map((a) => a.lastName ?? a.collectiveName)).toEqual(
        r.authors.map((a) => a.lastName ?? a.collectiveName),
      );
      expect(article.authors.map((a) => a.orcid)).toEqual(r.authors.map((a) => a.orcid));
      expect(article.journalInfo.nlmId).toBe(r.citation.journal.nlmId);
      expect(article.journalInfo.pages).toBe(r.citation.medlinePgn);
      expect(article.journalInfo.publicationDate.year).toBe(String(r.citation.pubDate.year));
      expect(article.publicationTypes).toEqual(r.publicationTypes.map((t) => t.name));
      expect(article.meshTerms.map((m) => m.descriptorName)).toEqual(r.mesh.map((m) => m.name));
      expect(article.keywords).toEqual(r.keywords);
      expect(article.citationSubsets).toEqual(r.citationSubsets);
      expect(article.doi).toBe(r.doi);
      expect(article.pmcid).toBe(r.pmcid);
      expect(article.isRetracted).toBe(r.retraction !== null);
    });
    expect(articles.some((a) => a.isRetracted)).toBe(true);
  });
});

describe("other synthetic replies through the project's parsers", () => {
  const demo = demoCorpus();
  const ncbi = synthHandler(demo);
  const body = (utility: string, params: Record<string, string>) =>
    ncbi({ utility, params })?.body ?? "";

  it("ESearch: count, ids, history and warnings; the reach error is an EntrezError", () => {
    const found = parseESearch(
      body("esearch", { db: "pubmed", term: "metformin aging", retmax: "10", usehistory: "y" }),
    );
    expect(found.count).toBe(60);
    expect(found.ids).toHaveLength(10);
    expect(found.webEnv).toMatch(/^MCID_/);
    expect(found.queryKey).toBe("1");
    const none = parseESearch(body("esearch", { db: "pubmed", term: "nothing like this" }));
    expect(none.count).toBe(0);
    expect(none.warnings).toEqual(['Phrase not found: "nothing like this"', "No items found."]);

    const big = createSynthCorpus({
      seed: 2,
      terms: [{ term: "big", count: 12_000, edatFrom: "2020", edatTo: "2021" }],
    });
    const refused = synthHandler(big)({
      utility: "esearch",
      params: { db: "pubmed", term: "big", retstart: "10000" },
    });
    expect(() => parseESearch(refused?.body ?? "")).toThrow(EntrezError);
  });

  it("ESummary, ELink, ESpell, EInfo and ECitMatch", () => {
    const [first = "", second = ""] = demo.pmidsFor("long covid");
    const summaries = parseESummary(
      body("esummary", { db: "pubmed", id: `${first},${second},42`, version: "2.0" }),
    );
    expect(summaries.summaries.map((s) => [s.pmid, s.title, s.doi])).toEqual(
      [first, second].map((p) => [p, demo.record(p)?.title, demo.record(p)?.doi ?? null]),
    );
    expect(summaries.errors).toEqual([{ uid: "42", message: "cannot get document summary" }]);

    const links = parseELink(
      body("elink", { dbfrom: "pubmed", db: "pubmed", id: second, cmd: "neighbor_score" }),
    );
    expect(links.sourceIds).toEqual([second]);
    const similar = links.linkSets.find((s) => s.linkName === "pubmed_pubmed");
    expect(similar?.links[0]).toEqual({ pmid: second, score: 99_000_000 });
    expect(similar?.links.every((l) => typeof l.score === "number")).toBe(true);

    expect(parseESpell(body("espell", { db: "pubmed", term: "metfromin agng" }))).toEqual({
      original: "metfromin agng",
      corrected: "metformin aging",
    });
    const info = parseEInfo(body("einfo", { db: "pubmed" }));
    expect(info.count).toBe(demo.size);
    expect(info.links.map((l) => l.name)).toContain("pubmed_pubmed_citedin");

    const cit = demo.citationAt(3);
    const bdata = `${cit.journal.iso}|${cit.pubDate.year}|${cit.volume}|${cit.startPage}|${cit.firstAuthor.lastName}|mine|`;
    expect(
      parseECitMatch(body("ecitmatch", { db: "pubmed", retmode: "xml", bdata })).map((l) => [
        l.key,
        l.answer,
      ]),
    ).toEqual([["mine", demo.pmidOf(3)]]);
  });
});
