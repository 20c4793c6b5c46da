/**
 * EFetch PubMed XML (PubmedArticleSet, pubmed_*.dtd 2013–2025) → Article[], field names as
 * pubmed_fetch returns them (docs/reference.md#pubmed_fetch). Journal articles and book articles (PubmedBookArticle) both map to Article.
 * Any optional element may be missing in a real record and then reads as null or []; only a body
 * that is not a PubmedArticleSet throws (UpstreamError, or EntrezError for NCBI's <ERROR>).
 */
import { UpstreamError } from "../../errors.js";
import type {
  AbstractSection,
  Article,
  ArticleDates,
  Author,
  CommentCorrection,
  Grant,
  MeshTerm,
  PublicationDate,
} from "../types.js";
import { monthNumber, utcMinute } from "../dates.js";
import { entrezError } from "./common.js";
import { attr, descend, element, elements, text, texts, type XmlNode } from "./xml.js";
import { readOrderedXml, type Cut } from "./xml-reader.js";

const UTILITY = "EFetch";

/**
 * Reference lists (every cited work: most of a recent record's bytes) are never read: the DTD puts
 * ReferenceList* last in PubmedData and in BookDocument, so ./xml-reader.ts skips each run of them
 * up to that closing tag as it reads, with no copy of a reply of megabytes, which about doubles
 * throughput. A body truncated inside a reference list has no closing tag to stop at; the reader
 * then rejects it.
 */
const REFERENCE_CUT: Cut = { from: "ReferenceList", parents: ["PubmedData", "BookDocument"] };

/**
 * EFetch's PubMed XML as articles, through ./xml-reader.ts: the tree xml2js builds with
 * ./xml.ts's ordered options, so the same articles and errors as an xml2js parse
 * (./efetch-xml2js.ts, which __tests__/eutils/parse runs beside it: on every recorded set they
 * agree), about ten times faster. The one EFetch parser of the product: the live tools read with
 * it (src/ncbi/articles.ts), the corpus sync and the reviews record by record (readEFetchArticles).
 */
export function parseEFetch(xml: string): Article[] {
  const articles: Article[] = [];
  readEFetchArticles(xml, (a) => articles.push(a));
  return articles;
}

/**
 * parseEFetch record by record: `each` gets every article as soon as its record is read, so
 * one record's tree is alive at a time rather than the reply's (a 500-record reply's tree is some
 * 150,000 objects, all of which the garbage collector would otherwise copy). A malformed body
 * still throws, after `each` has seen the records before the fault.
 */
export function readEFetchArticles(
  xml: string | Uint8Array,
  each: (article: Article) => void,
): void {
  const eachRecord = (record: XmlNode, set: XmlNode): boolean => {
    if (set["#name"] !== "PubmedArticleSet") return false;
    const article = articleOf(record);
    if (article) each(article);
    return true;
  };
  const root = readOrderedXml(xml, UTILITY, eachRecord, REFERENCE_CUT);
  if (root["#name"] !== "PubmedArticleSet") throw notAnArticleSet(root);
}

/** The articles of a whole PubmedArticleSet tree (./efetch-xml2js.ts reads one with xml2js). */
export function articlesOf(root: XmlNode): Article[] {
  if (root["#name"] !== "PubmedArticleSet") throw notAnArticleSet(root);
  return (root.$$ ?? []).flatMap((record) => articleOf(record) ?? []);
}

function articleOf(record: XmlNode): Article | undefined {
  if (record["#name"] === "PubmedArticle") return journalArticle(record);
  if (record["#name"] === "PubmedBookArticle") return bookArticle(record);
  return undefined;
}

/** <eFetchResult><ERROR>…</ERROR></eFetchResult> (or a bare <ERROR>) is NCBI refusing the request. */
function notAnArticleSet(root: XmlNode): Error {
  const name = root["#name"];
  const errors = name === "ERROR" ? [text(root) ?? ""] : texts(root, "ERROR");
  if (errors.length > 0 || name === "eFetchResult") return entrezError(UTILITY, errors);
  return new UpstreamError(
    `NCBI returned an unexpected ${UTILITY} reply (root <${name}>, expected <PubmedArticleSet>); retry the call.`,
    { utility: UTILITY, root: name },
  );
}

function journalArticle(record: XmlNode): Article {
  const citation = element(record, "MedlineCitation");
  const article = element(citation, "Article");
  const journal = element(article, "Journal");
  const issue = element(journal, "JournalIssue");
  const data = element(record, "PubmedData");
  const publicationTypes = texts(element(article, "PublicationTypeList"), "PublicationType");
  const commentsCorrections = elements(
    element(citation, "CommentsCorrectionsList"),
    "CommentsCorrections",
  ).flatMap(commentCorrection);
  const issns = elements(journal, "ISSN");
  const eissn = issnOf(issns, "Electronic");
  // A lone ISSN of unknown type is most likely the print one.
  const issn =
    issnOf(issns, "Print") ?? (issns.length === 1 && eissn === null ? text(issns[0]) : null);
  const idList = element(data, "ArticleIdList");
  return {
    pmid: text(element(citation, "PMID")) ?? "",
    title:
      text(element(article, "ArticleTitle")) ?? text(element(article, "VernacularTitle")) ?? "",
    ...abstractOf(element(article, "Abstract")),
    authors: authorsOf(element(article, "AuthorList"), text(element(article, "Affiliation"))),
    journalInfo: {
      title: text(element(journal, "Title")),
      isoAbbreviation: text(element(journal, "ISOAbbreviation")),
      issn,
      eissn,
      nlmId: text(descend(citation, "MedlineJournalInfo", "NlmUniqueID")),
      volume: text(element(issue, "Volume")),
      issue: text(element(issue, "Issue")),
      pages: pagesOf(element(article, "Pagination")),
      publicationDate: publicationDateOf(element(issue, "PubDate")),
    },
    publicationTypes,
    keywords: elements(citation, "KeywordList").flatMap((list) => texts(list, "Keyword")),
    meshTerms: elements(element(citation, "MeshHeadingList"), "MeshHeading").flatMap(meshTerm),
    grantList: grantsOf(element(article, "GrantList")),
    doi: articleId(idList, "doi") ?? elocationDoi(elements(article, "ELocationID")),
    pmcid: pmcidOf(idList),
    articleDates: articleDatesOf(element(data, "History"), element(citation, "DateRevised")),
    isRetracted:
      publicationTypes.includes("Retracted Publication") ||
      commentsCorrections.some((c) => c.refType === "RetractionIn"),
    commentsCorrections,
    citationSubsets: texts(citation, "CitationSubset"),
    languages: texts(article, "Language"),
    recordType: "PubmedArticle",
  };
}

function issnOf(issns: XmlNode[], type: string): string | null {
  return text(issns.find((i) => attr(i, "IssnType") === type));
}

/**
 * A book or book chapter (NCBI Bookshelf). There is no journal: journalInfo.title carries the
 * book title and its publisher ("GeneReviews®. Seattle (WA): University of Washington, Seattle"),
 * volume and date come from <Book>, pages from the chapter's <Pagination>.
 */
function bookArticle(record: XmlNode): Article {
  const doc = element(record, "BookDocument");
  const book = element(doc, "Book");
  const data = element(record, "PubmedBookData");
  const bookTitle = text(element(book, "BookTitle"));
  const publisher = element(book, "Publisher");
  const publisherText = [
    element(publisher, "PublisherLocation"),
    element(publisher, "PublisherName"),
  ]
    .map(text)
    .filter((t): t is string => t !== null)
    .join(": ");
  const containerTitle = [bookTitle, publisherText]
    .filter((t) => t !== null && t !== "")
    .join(". ");
  const publicationTypes = texts(doc, "PublicationType");
  // Editors are listed in <Book>; a whole-book record may name its authors only there.
  const authorLists = (node: XmlNode | undefined) =>
    elements(node, "AuthorList").filter((l) => attr(l, "Type") !== "editors");
  const lists = authorLists(doc).length > 0 ? authorLists(doc) : authorLists(book);
  return {
    pmid: text(element(doc, "PMID")) ?? "",
    title:
      text(element(doc, "ArticleTitle")) ??
      text(element(doc, "VernacularTitle")) ??
      bookTitle ??
      "",
    ...abstractOf(element(doc, "Abstract")),
    authors: lists.flatMap((list) => authorsOf(list, null)),
    journalInfo: {
      title: containerTitle === "" ? null : containerTitle,
      isoAbbreviation: null,
      issn: null,
      eissn: null,
      nlmId: null,
      volume: text(element(book, "Volume")),
      issue: null,
      pages: pagesOf(element(doc, "Pagination")),
      publicationDate: publicationDateOf(element(book, "PubDate")),
    },
    publicationTypes,
    keywords: elements(doc, "KeywordList").flatMap((list) => texts(list, "Keyword")),
    meshTerms: [],
    grantList: grantsOf(element(doc, "GrantList")),
    doi:
      articleId(element(doc, "ArticleIdList"), "doi") ??
      articleId(element(data, "ArticleIdList"), "doi") ??
      elocationDoi(elements(book, "ELocationID")),
    pmcid: pmcidOf(element(doc, "ArticleIdList")) ?? pmcidOf(element(data, "ArticleIdList")),
    articleDates: articleDatesOf(element(data, "History"), element(doc, "DateRevised")),
    isRetracted: publicationTypes.includes("Retracted Publication"),
    commentsCorrections: [],
    citationSubsets: [],
    languages: texts(doc, "Language"),
    recordType: "PubmedBookArticle",
  };
}

/** Sections keep NCBI's labels; abstractText is "LABEL: text" paragraphs joined by a blank line. */
function abstractOf(abstract: XmlNode | undefined): {
  abstractText: string;
  abstractSections: AbstractSection[];
} {
  const abstractSections: AbstractSection[] = [];
  for (const node of elements(abstract, "AbstractText")) {
    const body = text(node);
    if (body === null) continue;
    abstractSections.push({
      label: attr(node, "Label") || null,
      nlmCategory: attr(node, "NlmCategory") || null,
      text: body,
    });
  }
  const abstractText = abstractSections
    .map((s) => (s.label === null ? s.text : `${s.label}: ${s.text}`))
    .join("\n\n");
  return { abstractText, abstractSections };
}

/**
 * Authors with ValidYN="N" are names NLM found misspelt or wrongly listed (usually after an
 * erratum) and keeps only for searching; the corrected name is in the list too, so they are left
 * out. Records made before 2014 carry one Article-level <Affiliation>: the first author's.
 */
function authorsOf(list: XmlNode | undefined, articleAffiliation: string | null): Author[] {
  const authors = elements(list, "Author")
    .filter((a) => attr(a, "ValidYN") !== "N")
    .map(authorOf);
  const first = authors[0];
  if (first && articleAffiliation !== null && first.affiliations.length === 0) {
    first.affiliations.push(articleAffiliation);
  }
  return authors;
}

function authorOf(node: XmlNode): Author {
  const orcid = elements(node, "Identifier").find(
    (i) => attr(i, "Source")?.toUpperCase() === "ORCID",
  );
  return {
    lastName: text(element(node, "LastName")),
    firstName: text(element(node, "ForeName")),
    initials: text(element(node, "Initials")),
    collectiveName: text(element(node, "CollectiveName")),
    orcid: normalizeOrcid(text(orcid)),
    affiliations: [
      ...texts(node, "Affiliation"), // 2013-era DTDs put it directly under <Author>
      ...elements(node, "AffiliationInfo").flatMap((info) => texts(info, "Affiliation")),
    ],
  };
}

/** "https://orcid.org/0000-0002-1825-009x", "0000000218250097" → "0000-0002-1825-0097" form. */
function normalizeOrcid(raw: string | null): string | null {
  const match = raw?.match(/(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dXx])\s*$/);
  return match ? `${match[1]}-${match[2]}-${match[3]}-${match[4]?.toUpperCase()}` : null;
}

function pagesOf(pagination: XmlNode | undefined): string | null {
  const medlinePgn = text(element(pagination, "MedlinePgn"));
  if (medlinePgn !== null) return medlinePgn;
  const start = text(element(pagination, "StartPage"));
  const end = text(element(pagination, "EndPage"));
  return start !== null && end !== null && end !== start ? `${start}-${end}` : start;
}

/**
 * Month and day as printed (Month may be "Sep" or "09"); a Season stands in for a missing Month.
 * With only a MedlineDate ("1998 Dec-1999 Jan"), year is its first four-digit run.
 */
function publicationDateOf(pubDate: XmlNode | undefined): PublicationDate {
  const medlineDate = text(element(pubDate, "MedlineDate"));
  return {
    year: text(element(pubDate, "Year")) ?? medlineDate?.match(/\b\d{4}\b/)?.[0] ?? null,
    month: text(element(pubDate, "Month")) ?? text(element(pubDate, "Season")),
    day: text(element(pubDate, "Day")),
    medlineDate,
  };
}

function meshTerm(heading: XmlNode): MeshTerm[] {
  const descriptor = element(heading, "DescriptorName");
  const descriptorName = text(descriptor);
  if (descriptorName === null) return [];
  const qualifiers = elements(heading, "QualifierName").flatMap((q) => {
    const name = text(q);
    return name === null ? [] : [{ name, ui: attr(q, "UI"), isMajorTopic: isYes(q) }];
  });
  return [
    {
      descriptorName,
      descriptorUi: attr(descriptor, "UI"),
      isMajorTopic: isYes(descriptor),
      qualifiers,
    },
  ];
}

function isYes(node: XmlNode | undefined): boolean {
  return attr(node, "MajorTopicYN") === "Y";
}

function grantsOf(list: XmlNode | undefined): Grant[] {
  return elements(list, "Grant").map((g) => ({
    grantId: text(element(g, "GrantID")),
    acronym: text(element(g, "Acronym")),
    agency: text(element(g, "Agency")),
    country: text(element(g, "Country")),
  }));
}

/** The links of integrity notices, both ways (src/ncbi/notices.ts reads them). */
const NOTICE_LINK =
  /^(?:Retraction|RetractedandRepublished|Erratum|CorrectedandRepublished|ExpressionOfConcern)(?:In|Of|For|From)$/;

function commentCorrection(node: XmlNode): CommentCorrection[] {
  const refType = attr(node, "RefType");
  if (refType === null) return [];
  const link: CommentCorrection = { refType, pmid: text(element(node, "PMID")) };
  // Only notices' links keep their citation: the hundreds of "Cites" links of a record do not.
  const refSource = NOTICE_LINK.test(refType) ? text(element(node, "RefSource")) : null;
  if (refSource !== null) link.refSource = refSource;
  return [link];
}

/** ArticleId of the record itself; ArticleIdLists inside ReferenceList are other papers'. */
function articleId(list: XmlNode | undefined, idType: string): string | null {
  return text(elements(list, "ArticleId").find((id) => attr(id, "IdType") === idType));
}

function elocationDoi(elocations: XmlNode[]): string | null {
  const doi = elocations.find((e) => attr(e, "EIdType") === "doi" && attr(e, "ValidYN") !== "N");
  return text(doi);
}

/** IdType="pmc" holds "PMC1234567"; a bare number gets its "PMC" prefix. */
function pmcidOf(list: XmlNode | undefined): string | null {
  const raw = articleId(list, "pmc") ?? articleId(list, "pmcid");
  const digits = raw?.match(/^(?:PMC)?(\d+)$/i)?.[1] ?? raw?.match(/PMC(\d+)/i)?.[1];
  return digits === undefined ? null : `PMC${digits}`;
}

function articleDatesOf(
  history: XmlNode | undefined,
  dateRevised: XmlNode | undefined,
): ArticleDates {
  const dates = elements(history, "PubMedPubDate");
  return {
    edat: isoUtc(pubMedPubDate(dates, "entrez")),
    lr: isoUtc(dateRevised),
    pubmed: isoUtc(pubMedPubDate(dates, "pubmed")),
  };
}

function pubMedPubDate(dates: XmlNode[], status: string): XmlNode | undefined {
  return dates.find((d) => attr(d, "PubStatus") === status);
}

/**
 * Year/Month/Day[/Hour/Minute] → "YYYY-MM-DDTHH:MM:00Z". NCBI states no time zone; these dates
 * are reported as UTC (docs/reference.md#conventions) so they sort and compare as instants. Null when absent or not a real
 * date (30 February is null, not 2 March).
 */
function isoUtc(date: XmlNode | undefined): string | null {
  return utcMinute(
    Number(text(element(date, "Year"))),
    Number(monthNumber(text(element(date, "Month")) ?? "1") ?? NaN),
    Number(text(element(date, "Day")) ?? "1"),
    Number(text(element(date, "Hour")) ?? "0"),
    Number(text(element(date, "Minute")) ?? "0"),
  );
}
