/**
 * Parsed E-utilities records, named as pubmed_fetch's result fields (docs/reference.md#pubmed_fetch) from parser to tool output, and the
 * request types the client, cache and body checks share.
 */
import type { Params } from "../net/polite-client.js";

export type { Params };

export type Utility =
  "einfo" | "esearch" | "esummary" | "efetch" | "elink" | "espell" | "ecitmatch" | "epost";

export interface AbstractSection {
  label: string | null;
  nlmCategory: string | null;
  text: string;
}

export interface Author {
  lastName: string | null;
  firstName: string | null;
  initials: string | null;
  collectiveName: string | null;
  orcid: string | null;
  affiliations: string[];
}

export interface PublicationDate {
  year: string | null;
  month: string | null;
  day: string | null;
  medlineDate: string | null;
}

export interface JournalInfo {
  title: string | null;
  isoAbbreviation: string | null;
  issn: string | null;
  eissn: string | null;
  nlmId: string | null;
  volume: string | null;
  issue: string | null;
  pages: string | null;
  publicationDate: PublicationDate;
}

export interface MeshQualifier {
  name: string;
  ui: string | null;
  isMajorTopic: boolean;
}

export interface MeshTerm {
  descriptorName: string;
  descriptorUi: string | null;
  isMajorTopic: boolean;
  qualifiers: MeshQualifier[];
}

export interface Grant {
  grantId: string | null;
  acronym: string | null;
  agency: string | null;
  country: string | null;
}

export interface CommentCorrection {
  refType: string;
  pmid: string | null;
  /**
   * The linked record's citation ("Lancet. 2010 Feb 6;375(9713):445"), kept only on the links of
   * integrity notices (RetractionIn, ErratumFor, …: src/ncbi/notices.ts) for the notice's date.
   */
  refSource?: string;
}

export interface ArticleDates {
  /** Entrez date (PubMedPubDate PubStatus="entrez"), ISO-8601 UTC or null. */
  edat: string | null;
  /** Last revision (DateRevised), ISO-8601 UTC or null. */
  lr: string | null;
  /** PubMedPubDate PubStatus="pubmed", ISO-8601 UTC or null. */
  pubmed: string | null;
}

export interface Article {
  pmid: string;
  title: string;
  abstractText: string;
  abstractSections: AbstractSection[];
  authors: Author[];
  journalInfo: JournalInfo;
  publicationTypes: string[];
  keywords: string[];
  meshTerms: MeshTerm[];
  grantList: Grant[];
  doi: string | null;
  pmcid: string | null;
  articleDates: ArticleDates;
  isRetracted: boolean;
  commentsCorrections: CommentCorrection[];
  /** Beyond the contract, kept for the corpus: MedlineCitation/CitationSubset values (e.g. "AIM", "IM"). */
  citationSubsets: string[];
  /** Languages (e.g. "eng"). */
  languages: string[];
  /** "PubmedArticle" or "PubmedBookArticle". */
  recordType: "PubmedArticle" | "PubmedBookArticle";
}

/** An article of which nothing is known but its PMID: every list empty, every field null. */
export function emptyArticle(pmid: string): Article {
  return {
    pmid,
    title: "",
    abstractText: "",
    abstractSections: [],
    authors: [],
    journalInfo: {
      title: null,
      isoAbbreviation: null,
      issn: null,
      eissn: null,
      nlmId: null,
      volume: null,
      issue: null,
      pages: null,
      publicationDate: { year: null, month: null, day: null, medlineDate: null },
    },
    publicationTypes: [],
    keywords: [],
    meshTerms: [],
    grantList: [],
    doi: null,
    pmcid: null,
    articleDates: { edat: null, lr: null, pubmed: null },
    isRetracted: false,
    commentsCorrections: [],
    citationSubsets: [],
    languages: [],
    recordType: "PubmedArticle",
  };
}

export interface ESearchResult {
  count: number;
  retMax: number;
  retStart: number;
  ids: string[];
  queryTranslation: string | null;
  webEnv: string | null;
  queryKey: string | null;
  /** Human-readable warnings/errors NCBI attached (PhraseNotFound, QuotedPhraseNotFound, …). */
  warnings: string[];
}

export interface BriefSummary {
  pmid: string;
  title: string;
  authors: string[];
  source: string;
  pubDate: string;
  doi: string | null;
  /** ESummary's PubType flags; internal, read for notices (src/ncbi/notices.ts). */
  publicationTypes: string[];
  /**
   * ESummary's References: CommentsCorrections links in words ("Retraction in", "Erratum for"),
   * with the linked record's citation; internal, read for notices likewise.
   */
  references: CommentCorrection[];
}

export interface ESummaryResult {
  summaries: BriefSummary[];
  /** uids NCBI answered with a per-uid error (e.g. "cannot get document summary"). */
  errors: { uid: string; message: string }[];
}

export interface ELinkLink {
  pmid: string;
  score: number | null;
}

export interface ELinkResult {
  sourceIds: string[];
  /** One entry per LinkSetDb, keyed by LinkName (e.g. "pubmed_pubmed", "pubmed_pubmed_citedin"). */
  linkSets: { linkName: string; dbTo: string; links: ELinkLink[] }[];
}

export interface EInfoResult {
  dbName: string;
  description: string | null;
  count: number | null;
  lastUpdate: string | null;
  fields: { name: string; fullName: string; description: string }[];
  links: { name: string; menu: string; description: string; dbTo: string }[];
}

export interface ESpellResult {
  original: string;
  corrected: string;
}

export interface ECitMatchLine {
  journal: string;
  year: string;
  volume: string;
  firstPage: string;
  authorName: string;
  key: string;
  /** The raw answer column: digits, "NOT_FOUND", "AMBIGUOUS …" */
  answer: string;
}
