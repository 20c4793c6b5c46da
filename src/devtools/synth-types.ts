/**
 * The synthetic PubMed record: everything a <PubmedArticle>, an ESummary DocumentSummary or a
 * MEDLINE record needs, already decided. Text comes twice: `…Markup` is an XML fragment (escaped,
 * possibly with <i>/<sup>/<sub>), the plain form is what a reader or the parser sees.
 * Instants are ms since the epoch (UTC); NCBI's dates carry no zone and are read as UTC.
 */
import type { Journal } from "./synth-vocab.js";

export interface SynthTermSpec {
  /** The exact ESearch term that finds these records. */
  term: string;
  count: number;
  /** Entrez-date span, inclusive: "YYYY-MM-DD" or "YYYY/MM/DD" (or any ISO-8601 instant). */
  edatFrom: string;
  edatTo: string;
  /**
   * The create date (CRDT) of every record of this batch; by default each record's own EDAT. A
   * create date after the EDAT is what PubMed does to a record that enters more than a year after
   * its publication: it back-dates the EDAT to the publication date.
   */
  createdAt?: string;
}

export interface SynthAuthor {
  lastName: string | null;
  foreName: string | null;
  initials: string | null;
  collectiveName: string | null;
  /** "0000-0002-1825-0097" form; the XML writes it the way NCBI does (sometimes as a URL). */
  orcid: string | null;
  affiliations: string[];
}

export interface SynthMeshHeading {
  ui: string;
  name: string;
  major: boolean;
  qualifiers: { ui: string; name: string; major: boolean }[];
}

/** PubDate as printed: Year[+Month[+Day]], Year+Season, or a MedlineDate span. */
export interface SynthPubDate {
  year: number;
  month: number | null;
  day: number | null;
  season: string | null;
  medlineDate: string | null;
}

export interface SynthCitation {
  journal: Journal;
  volume: string;
  issue: string | null;
  startPage: string;
  endPage: string | null;
  medlinePgn: string;
  pubDate: SynthPubDate;
  /** Electronic publication date (ArticleDate), for journals that publish online first. */
  epubDate: number | null;
  firstAuthor: { lastName: string; foreName: string; initials: string };
}

export interface SynthAbstractSection {
  label: string | null;
  nlmCategory: string | null;
  markup: string;
  text: string;
}

export type SynthStatus = "MEDLINE" | "PubMed-not-MEDLINE" | "In-Data-Review";

export interface SynthRecord {
  pmid: string;
  /** Position in the corpus (pmid − base). */
  index: number;
  term: string;
  topic: string;
  status: SynthStatus;
  titleMarkup: string;
  title: string;
  abstract: SynthAbstractSection[];
  authors: SynthAuthor[];
  citation: SynthCitation;
  publicationTypes: { ui: string; name: string }[];
  mesh: SynthMeshHeading[];
  /** [] (not MEDLINE), ["IM"] or ["AIM", "IM"] */
  citationSubsets: string[];
  keywords: string[];
  grants: { grantId: string | null; acronym: string | null; agency: string; country: string }[];
  languages: string[];
  doi: string | null;
  pmcid: string | null;
  publicationStatus: "ppublish" | "epublish" | "aheadofprint";
  edat: number;
  pubmedDate: number;
  medlineDate: number | null;
  received: number | null;
  accepted: number | null;
  dateCompleted: number | null;
  /** DateRevised (LR), midnight UTC. */
  lr: number;
  /** Publication date as a day (for pdat searches and sorting). */
  pdat: number;
  retraction: { pmid: string; refSource: string } | null;
  references: { pmid: string; citation: string }[];
  /** Bumped by `revise(…, { changeAbstract: true })`. */
  abstractVersion: number;
}
