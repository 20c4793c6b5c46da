/**
 * Project-written PubMed records for the citation tests: shaped like the parser's output for real
 * entries, covering 1, 2, 3, 8 and collective authors, special characters, a MedlineDate, no DOI
 * and a book chapter.
 */
import { emptyArticle, type Article, type Author, type JournalInfo } from "../../src/ncbi/types.js";

export function person(lastName: string, firstName: string, initials: string): Author {
  return { lastName, firstName, initials, collectiveName: null, orcid: null, affiliations: [] };
}

export const LANCET: JournalInfo = {
  title: "Lancet (London, England)",
  isoAbbreviation: "Lancet",
  issn: "0140-6736",
  eissn: "1474-547X",
  nlmId: "2985213R",
  volume: "393",
  issue: "10180",
  pages: "1032-48",
  publicationDate: { year: "2019", month: "Apr", day: "13", medlineDate: null },
};

export function article(over: Partial<Article> = {}): Article {
  return {
    pmid: "30955001",
    title: "Early mobilisation after hip fracture surgery: a randomised controlled trial.",
    abstractText: "BACKGROUND: Bed rest is common.\nMETHODS: We randomly assigned 412 patients.",
    abstractSections: [],
    authors: [person("Smith", "John A", "JA")],
    journalInfo: LANCET,
    publicationTypes: ["Journal Article", "Randomized Controlled Trial"],
    keywords: ["hip fracture", "rehabilitation"],
    meshTerms: [],
    grantList: [],
    doi: "10.1016/S0140-6736(19)30001-1",
    pmcid: "PMC6500001",
    articleDates: { edat: null, lr: null, pubmed: null },
    isRetracted: false,
    commentsCorrections: [],
    citationSubsets: ["AIM", "IM"],
    languages: ["eng"],
    recordType: "PubmedArticle",
    ...over,
  };
}

export const ONE = article();
export const TWO_SPECIAL = article({
  pmid: "11136001",
  title: "Costs & benefits of 100% {adherence} in type_2 #diabetes?",
  authors: [person("Müller", "Hans", "H"), person("O'Brien", "Mary", "M")],
  journalInfo: {
    ...LANCET,
    title: "Diabetes care",
    isoAbbreviation: "Diabetes Care",
    issn: null,
    eissn: "1935-5548",
    volume: "24",
    issue: null,
    pages: "e123",
    publicationDate: { year: null, month: null, day: null, medlineDate: "2001 Jan-Feb" },
  },
  doi: null,
  pmcid: null,
  keywords: [],
  abstractText: "",
});
export const THREE = article({
  authors: [
    person("Smith", "John A", "JA"),
    person("Doe", "Jane", "J"),
    person("Roe", "Richard", "R"),
  ],
});
export const EIGHT = article({
  authors: [
    ["Adams", "Alice"],
    ["Baker", "Brian"],
    ["Clark", "Chloe"],
    ["Davis", "Daniel"],
    ["Evans", "Emma"],
    ["Fox", "Felix"],
    ["Green", "Grace"],
    ["Hill", "Henry"],
  ].map(([last, first]) => person(last!, first!, first!.charAt(0))),
});
export const GROUP = article({
  authors: [
    {
      lastName: null,
      firstName: null,
      initials: null,
      collectiveName: "RECOVERY Collaborative Group",
      orcid: null,
      affiliations: [],
    },
    person("Horby", "Peter", "P"),
  ],
});
export const CHAPTER = article({
  pmid: "29083001",
  recordType: "PubmedBookArticle",
  title: "Hypertension.",
  journalInfo: {
    ...emptyArticle("29083001").journalInfo,
    title: "StatPearls",
    publicationDate: { year: "2023", month: "07", day: null, medlineDate: null },
  },
  doi: null,
  pmcid: null,
  keywords: [],
});
