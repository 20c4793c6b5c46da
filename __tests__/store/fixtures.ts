/** Builders for store inputs; every field explicit so tests read as data. */
import type { Article } from "../../src/ncbi/types.js";
import type { DocumentInput } from "../../src/store/docs.js";

export function article(pmid: string, over: Partial<Article> = {}): Article {
  return {
    pmid,
    title: `Title ${pmid}`,
    abstractText: `Abstract of ${pmid}.`,
    abstractSections: [],
    authors: [],
    journalInfo: {
      title: "The Journal",
      isoAbbreviation: "J",
      issn: "0000-0000",
      eissn: null,
      nlmId: "0001",
      volume: "1",
      issue: "2",
      pages: "3-4",
      publicationDate: { year: "2021", month: "Mar", day: "5", medlineDate: null },
    },
    publicationTypes: ["Journal Article"],
    keywords: [],
    meshTerms: [],
    grantList: [],
    doi: null,
    pmcid: null,
    articleDates: {
      edat: "2021-03-06T00:00:00.000Z",
      lr: "2021-04-01T00:00:00.000Z",
      pubmed: null,
    },
    isRetracted: false,
    commentsCorrections: [],
    citationSubsets: ["IM"],
    languages: ["eng"],
    recordType: "PubmedArticle",
    ...over,
  };
}

export function doc(pmid: string, over: Partial<DocumentInput> = {}): DocumentInput {
  return {
    pmid,
    title: `Title ${pmid}`,
    abstract: `Abstract of ${pmid}.`,
    journal: "The Journal",
    journalIso: "J",
    issn: "0000-0000",
    eissn: null,
    nlmId: "0001",
    doi: null,
    pmcid: null,
    pubTypes: ["Journal Article"],
    mesh: ["Humans"],
    citationSubsets: ["IM"],
    languages: ["eng"],
    pdat: "2021-03-05",
    pdatYear: 2021,
    edat: "2021-03-06T00:00:00.000Z",
    lr: "2021-04-01T00:00:00.000Z",
    isRetracted: false,
    notices: [],
    quality: { design: 0, recency: 2, journal: 1, human: 2, total: 5 },
    record: article(pmid),
    contentHash: `hash-${pmid}-1`,
    ...over,
  };
}
