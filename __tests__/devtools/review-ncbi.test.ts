/**
 * The record-serving stand-in NCBI (src/devtools/review-ncbi.ts), read through the project's own
 * E-utilities client and parsers, as review_add reads PubMed.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { loadConfig } from "../../src/config.js";
import {
  startRecordNcbi,
  type RecordNcbi,
  type StandInRecord,
} from "../../src/devtools/review-ncbi.js";
import { EutilsClient } from "../../src/ncbi/client.js";
import { parseEFetch } from "../../src/ncbi/parse/efetch.js";
import { parseEFetchXml2js } from "../../src/ncbi/parse/efetch-xml2js.js";
import { parseESearch } from "../../src/ncbi/parse/esearch.js";
import type { Article } from "../../src/ncbi/types.js";

const RECORDS: StandInRecord[] = [
  {
    pmid: "10051933",
    title: "The effectiveness of clonidine as an analgesic in paediatric adenotonsillectomy.",
    abstract: "To compare the analgesic effects of clonidine; pain scores < 5 & sedation > 2.",
    mesh: ["Analgesics, Opioid", "Child", "Clonidine"],
    authors: ["Reimer, E J", "Dunn, G S"],
    journal: "Can J Anaesth",
    year: 1998,
    pubTypes: ["Journal Article", "Randomized Controlled Trial"],
  },
  {
    pmid: "10067807",
    title: 'Migraine: a "woman\'s disease?".',
    abstract: "",
    mesh: ["Migraine Disorders", "Women's Health"],
    authors: ["Warshaw, L J", "ADHD Study Group"],
  },
  ...Array.from({ length: 23 }, (_, i) => ({
    pmid: String(20_000_000 + i),
    title: `Methylphenidate for attention deficit in children: trial ${i}.`,
    abstract: `Children with ADHD received methylphenidate (dose ${i} mg) or placebo.`,
    mesh: ["Attention Deficit Disorder with Hyperactivity", "Methylphenidate"],
    authors: [`Author${i}, A B`],
    year: 2000 + (i % 10),
  })),
];

/** The fields review_add takes from a parsed record, as the stand-in was given them. */
function given(a: Article) {
  return {
    pmid: a.pmid,
    title: a.title,
    abstract: a.abstractText,
    mesh: a.meshTerms.map((m) => m.descriptorName),
    authors: a.authors.map((x) => x.collectiveName ?? `${x.lastName ?? ""}, ${x.firstName ?? ""}`),
    journal: a.journalInfo.title ?? undefined,
    year: a.journalInfo.publicationDate.year
      ? Number(a.journalInfo.publicationDate.year)
      : undefined,
    pubTypes: a.publicationTypes,
  };
}

const expected = (r: StandInRecord) => ({
  ...r,
  journal: r.journal,
  year: r.year,
  pubTypes: r.pubTypes ?? ["Journal Article"],
});

describe("startRecordNcbi", () => {
  let ncbi: RecordNcbi;
  let eutils: EutilsClient;

  beforeAll(async () => {
    ncbi = await startRecordNcbi(RECORDS, {
      sets: { "adhd review": RECORDS.map((r) => r.pmid).reverse() },
    });
    eutils = new EutilsClient(
      loadConfig({ NCBI_EUTILS_BASE_URL: ncbi.baseUrl, NCBI_MAX_RPS: "50", LOG_LEVEL: "error" })
        .ncbi,
    );
  });
  afterAll(() => ncbi.close());

  const esearch = async (params: Record<string, string>) =>
    parseESearch((await eutils.request("esearch", { db: "pubmed", ...params })).body);
  const efetch = async (params: Record<string, string>) =>
    (await eutils.request("efetch", { db: "pubmed", retmode: "xml", ...params })).body;

  it("pages a named set through the history server: every record once, fields as given", async () => {
    const search = await esearch({ term: "ADHD review", usehistory: "y", retmax: "0" });
    expect(search.count).toBe(RECORDS.length);
    expect(search.webEnv).toMatch(/^MCID_/);
    expect(search.queryKey).toBe("1");
    const articles: Article[] = [];
    for (let retstart = 0; retstart < search.count; retstart += 10) {
      const xml = await efetch({
        WebEnv: search.webEnv ?? "",
        query_key: search.queryKey ?? "",
        retstart: String(retstart),
        retmax: "10",
      });
      expect(parseEFetch(xml)).toEqual(parseEFetchXml2js(xml));
      articles.push(...parseEFetch(xml));
    }
    expect(articles.map((a) => a.pmid)).toEqual(RECORDS.map((r) => r.pmid).reverse());
    const byPmid = new Map(articles.map((a) => [a.pmid, given(a)]));
    for (const r of RECORDS) expect(byPmid.get(r.pmid)).toEqual(expected(r));
  });

  it("writes authors, journal, MeSH UIs, publication types and ids as PubMed does", async () => {
    const xml = await efetch({ id: "10051933" });
    expect(xml).toContain('<ArticleId IdType="pubmed">10051933</ArticleId>');
    const [article] = parseEFetch(xml);
    expect(article?.authors[0]).toMatchObject({
      lastName: "Reimer",
      firstName: "E J",
      initials: "EJ",
      collectiveName: null,
    });
    expect(article?.meshTerms.map((m) => m.descriptorUi)).toEqual([
      expect.stringMatching(/^D\d{6}$/),
      expect.stringMatching(/^D\d{6}$/),
      expect.stringMatching(/^D\d{6}$/),
    ]);
    expect(article?.journalInfo.publicationDate).toMatchObject({ year: "1998" });
    const [noYear] = parseEFetch(await efetch({ id: "10067807" }));
    expect(noYear?.journalInfo.publicationDate.year).toBeNull();
    expect(noYear?.abstractSections).toEqual([]);
    expect(noYear?.authors[1]?.collectiveName).toBe("ADHD Study Group");
  });

  it("matches any other term as words over title, abstract and MeSH, with OR between clauses", async () => {
    expect((await esearch({ term: "clonidine[tiab] AND child[mh]" })).ids).toEqual(["10051933"]);
    expect((await esearch({ term: "(clonidine) OR migraine" })).ids).toEqual([
      "10051933",
      "10067807",
    ]);
    const adhd = await esearch({ term: "methylphenidate placebo", retstart: "20", retmax: "5" });
    expect(adhd).toMatchObject({ count: 23, retStart: 20 });
    expect(adhd.ids).toEqual(["20000020", "20000021", "20000022"]);
    expect((await esearch({ term: "aspirin" })).count).toBe(0);
    expect((await esearch({ term: "methylphenidate", rettype: "count" })).count).toBe(23);
  });

  it("leaves unknown PMIDs out of EFetch and answers EInfo and ELink", async () => {
    const ids = ["10051933", "1", "10067807"].join(",");
    expect(parseEFetch(await efetch({ id: ids })).map((a) => a.pmid)).toEqual([
      "10051933",
      "10067807",
    ]);
    const info = (await eutils.request("einfo", { db: "pubmed" })).body;
    expect(info).toContain(`<Count>${RECORDS.length}</Count>`);
    const links = (await eutils.request("elink", { dbfrom: "pubmed", id: "10051933" })).body;
    expect(links).toContain("<Id>10051933</Id>");
    expect(links).not.toContain("<LinkSetDb>");
    expect(ncbi.byUtility).toMatchObject({ einfo: 1, elink: 1 });
  });

  it("hands out only the first 9,999 records of a result set, as PubMed does", async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => ({
      pmid: String(30_000_000 + i),
      title: `Record ${i}.`,
      abstract: "",
      mesh: [],
      authors: [],
    }));
    const big = await startRecordNcbi(many, { sets: { all: many.map((r) => r.pmid) } });
    try {
      const client = new EutilsClient(
        loadConfig({ NCBI_EUTILS_BASE_URL: big.baseUrl, LOG_LEVEL: "error" }).ncbi,
      );
      const search = parseESearch(
        (await client.request("esearch", { db: "pubmed", term: "all", usehistory: "y" })).body,
      );
      expect(search.count).toBe(10_001);
      const page = (retstart: number) =>
        client.request("efetch", {
          db: "pubmed",
          retmode: "xml",
          WebEnv: search.webEnv ?? "",
          query_key: search.queryKey ?? "",
          retstart,
          retmax: 500,
        });
      const last = parseEFetch((await page(9_500)).body);
      expect(last.map((a) => a.pmid)).toEqual(many.slice(9_500, 9_999).map((r) => r.pmid));
      await expect(page(9_999)).rejects.toThrow(/retstart' cannot be larger than 9998/);
    } finally {
      await big.close();
    }
  });
});
