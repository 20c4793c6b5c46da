/**
 * The real-record stand-in for PubMed (src/devtools/fixture-pubmed.ts), served by the fake
 * E-utilities server and read back with the project's own parsers, as the client would.
 */
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import {
  fixturePubmedRoute,
  loadFixturePubmed,
  type FixturePubmed,
} from "../../src/devtools/fixture-pubmed.js";
import { parseECitMatch } from "../../src/ncbi/parse/ecitmatch.js";
import { parseEFetch } from "../../src/ncbi/parse/efetch.js";
import { parseESearch } from "../../src/ncbi/parse/esearch.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { EUTILS_FIXTURES, describeShared } from "../helpers/shared.js";

describeShared("fixture-pubmed: PubMed made of the recorded EFetch records", () => {
  let pubmed: FixturePubmed;
  let fake: FakeEutils;

  beforeAll(async () => {
    pubmed = loadFixturePubmed(EUTILS_FIXTURES);
    fake = await startFakeEutils({ routes: [fixturePubmedRoute(pubmed)] });
  });
  afterAll(() => fake.close());

  const get = async (utility: string, params: Record<string, string>) => {
    const res = await fetch(`${fake.baseUrl}/${utility}?${new URLSearchParams(params)}`);
    expect(res.status).toBe(200);
    return res.text();
  };
  const post = async (utility: string, params: Record<string, string>) => {
    const res = await fetch(`${fake.baseUrl}/${utility}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(params).toString(),
    });
    expect(res.status).toBe(200);
    return res.text();
  };
  const esearch = async (term: string, more: Record<string, string> = {}) =>
    parseESearch(await get("esearch.fcgi", { db: "pubmed", term, retmax: "50", ...more }));

  it("loads every record of the listed files once, books included", () => {
    const pmids = pubmed.records.map((r) => r.pmid);
    expect(pubmed.size).toBe(131);
    expect(new Set(pmids).size).toBe(pmids.length);
    // 9997 is recorded twice (biopython and Eutils-JSON); the first copy is kept.
    expect(pubmed.record("9997")?.file).toBe("biopython/Entrez/pubmed1.xml");
    expect(pubmed.record("20301577")?.article.recordType).toBe("PubmedBookArticle");
    for (const r of pubmed.records) {
      expect(r.xml).toMatch(/^<(PubmedArticle|PubmedBookArticle)>/);
      expect(r.article.pmid).toBe(r.pmid);
    }
  });

  it('finds a record by "<doi>"[aid], whatever the DOI\'s case', async () => {
    expect((await esearch('"10.1136/gutjnl-2016-312510"[aid]')).ids).toEqual(["27797938"]);
    expect((await esearch('"10.1136/GUTJNL-2016-312510"[aid]')).ids).toEqual(["27797938"]);
    expect((await esearch('"10.1016/0005-2795(76)90109-4"[aid]')).ids).toEqual(["9997"]);
    expect((await esearch('"10.1136/gutjnl-2016-999999"[aid]')).count).toBe(0);
  });

  it("ANDs title words, folded as PubMed folds them (Greek spelled out, stopwords ignored)", async () => {
    expect((await esearch("(leucocyte[ti] AND telomere[ti] AND tert[ti])")).ids).toEqual([
      "27797938",
    ]);
    // "Aβ strains" reads "abeta strains"; "the" is a stopword PubMed ignores.
    expect((await esearch("(abeta[ti] AND strains[ti] AND phenotypic[ti])")).ids).toEqual([
      "32743745",
    ]);
    expect((await esearch("(the[ti] AND london[ti] AND patient[ti])")).ids).toEqual(["32160763"]);
    // A whole word only, unless truncated.
    expect((await esearch("telomer[ti]")).count).toBe(0);
    expect((await esearch("telomer*[ti]")).ids).toEqual(["27797938"]);
    expect((await esearch("(public[ti] AND health[ti])")).ids).toEqual([
      "36247735",
      "35679569",
      "34709863",
      "34529508",
    ]);
  });

  it("ORs DOI, title and PMID clauses into one set, PMID descending, retmax honoured", async () => {
    const term =
      '"10.1136/gutjnl-2016-312510"[aid] OR (london[ti] AND patient[ti] AND the[ti]) OR 9997[pmid] OR 1[pmid]';
    expect((await esearch(term)).ids).toEqual(["32160763", "27797938", "9997"]);
    const page = await esearch("health[ti]", { retmax: "3" });
    expect(page.count).toBe(8);
    expect(page.ids).toEqual(["37822558", "36247735", "35679569"]);
    const next = await esearch("health[ti]", { retmax: "3", retstart: "3" });
    expect(next.ids).toEqual(["35592492", "34709863", "34707797"]);
  });

  it("takes a long term as a POST form body", async () => {
    const dois = pubmed.records.flatMap((r) => (r.article.doi ? [r.article.doi] : []));
    const term = dois.map((d) => `"${d.toLowerCase()}"[aid]`).join(" OR ");
    expect(term.length).toBeGreaterThan(4000);
    const found = parseESearch(await post("esearch.fcgi", { db: "pubmed", term, retmax: "500" }));
    expect(found.count).toBe(dois.length);
  });

  it("refuses a malformed term with an <ERROR>, as NCBI does", async () => {
    const body = await get("esearch.fcgi", { db: "pubmed", term: "(telomere[ti] AND" });
    expect(body).toContain("<ERROR>");
    expect(() => parseESearch(body)).toThrow();
  });

  it("EFetch returns the records asked for that exist, in order, parseable", async () => {
    const body = await get("efetch.fcgi", {
      db: "pubmed",
      retmode: "xml",
      id: "27797938,1,9997,20301577",
    });
    expect(body.startsWith('<?xml version="1.0" ?>')).toBe(true);
    const articles = parseEFetch(body);
    expect(articles.map((a) => a.pmid)).toEqual(["27797938", "9997", "20301577"]);
    expect(articles[0]).toEqual(pubmed.record("27797938")?.article);
  });

  it("EFetch of every record by POST gives back every record unchanged", async () => {
    const ids = pubmed.records.map((r) => r.pmid).join(",");
    const articles = parseEFetch(
      await post("efetch.fcgi", { db: "pubmed", retmode: "xml", id: ids }),
    );
    expect(articles).toEqual(pubmed.records.map((r) => r.article));
  });

  it("ECitMatch: one record, not found, invalid journal, ambiguous", async () => {
    const bdata = [
      "Gut|2017|66|1116|Bao Y|k1|",
      // Full title without its place qualifier; diacritics folded in the author.
      "Journal of magnetic resonance|2001|153|117|casieri c|k2|",
      "Nat Prod Rep|2021|38|130|Montalban-Lopez M|k3|",
      // Recorded as "J. Clin. Oncol.": punctuation does not count.
      "J Clin Oncol|2013|31|1207||k4|",
      "Gut|2018|66|1116|Bao Y|k5|",
      "Gut|2017|66|1116|Smith J|k6|",
      "Nature|2017|66|1116||k7|",
      "J Syst Integr Neurosci|2020|7|||k8|",
    ].join("\r");
    const lines = parseECitMatch(
      await get("ecitmatch.cgi", { db: "pubmed", retmode: "xml", bdata }),
    );
    expect(lines.map((l) => [l.key, l.answer])).toEqual([
      ["k1", "27797938"],
      ["k2", "11700088"],
      ["k3", "32935693"],
      ["k4", "23435529"],
      ["k5", "NOT_FOUND"],
      ["k6", "NOT_FOUND"],
      ["k7", "NOT_FOUND;INVALID_JOURNAL"],
      ["k8", "AMBIGUOUS (2 citations)"],
    ]);
  });

  it("ECitMatch answers every line of a long request", async () => {
    const cited = pubmed.records.filter(
      (r) => r.article.journalInfo.isoAbbreviation && r.article.journalInfo.pages,
    );
    const bdata = cited
      .map((r, i) => {
        const j = r.article.journalInfo;
        const page = (j.pages ?? "").split("-")[0];
        return `${j.isoAbbreviation}|${j.publicationDate.year}|${j.volume ?? ""}|${page}||r${i}|`;
      })
      .join("\r");
    const lines = parseECitMatch(await post("ecitmatch.cgi", { db: "pubmed", bdata }));
    expect(lines).toHaveLength(cited.length);
    const matched = lines.filter((l, i) => l.answer === cited[i]?.pmid);
    expect(matched.length).toBeGreaterThan(cited.length * 0.9);
    expect(lines.every((l) => /^\d+$|^AMBIGUOUS/.test(l.answer))).toBe(true);
  });

  it("leaves other databases and formats to other routes", async () => {
    const res = await fetch(
      `${fake.baseUrl}/efetch.fcgi?db=pubmed&rettype=medline&retmode=text&id=9997`,
    );
    expect(res.status).toBe(404);
    const pmc = await fetch(`${fake.baseUrl}/esearch.fcgi?db=pmc&term=x`);
    expect(pmc.status).toBe(404);
  });
});
