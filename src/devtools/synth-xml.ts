/**
 * PubMed XML for synthetic records, shaped like EFetch's 2025 output (pubmed_250101.dtd): one
 * line per set, elements in DTD order, no indentation. Plain string building — the benchmarks
 * generate tens of megabytes. The other utilities' replies live in synth-replies.ts and are
 * re-exported here.
 */
import { MONTH_ABBR, utcParts, pad2 } from "./synth-core.js";
import { esc, escAttr } from "./synth-text.js";
import type { SynthAuthor, SynthRecord } from "./synth-types.js";

export {
  ecitmatchText,
  einfoXml,
  elinkXml,
  entrezErrorXml,
  esearchXml,
  espellXml,
  esummaryXml,
} from "./synth-replies.js";

export const PUBMED_DOCTYPE =
  '<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">';

const el = (name: string, text: string) => `<${name}>${text}</${name}>`;

/** DateCompleted/DateRevised style: zero-padded month and day. */
function ymdPadded(name: string, ms: number, attrs = ""): string {
  const d = utcParts(ms);
  return `<${name}${attrs}><Year>${d.year}</Year><Month>${pad2(d.month)}</Month><Day>${pad2(d.day)}</Day></${name}>`;
}

/** History style: unpadded numbers, with the time for the statuses NCBI stamps. */
function pubMedPubDate(status: string, ms: number, withTime: boolean): string {
  const d = utcParts(ms);
  const time = withTime ? `<Hour>${d.hour}</Hour><Minute>${d.minute}</Minute>` : "";
  return `<PubMedPubDate PubStatus="${status}"><Year>${d.year}</Year><Month>${d.month}</Month><Day>${d.day}</Day>${time}</PubMedPubDate>`;
}

function journalXml(r: SynthRecord): string {
  const c = r.citation;
  const j = c.journal;
  const printFirst = j.pubModel === "Print" || j.pubModel === "Print-Electronic";
  const issn =
    printFirst && j.issnPrint !== null
      ? `<ISSN IssnType="Print">${j.issnPrint}</ISSN>`
      : j.issnElectronic !== null
        ? `<ISSN IssnType="Electronic">${j.issnElectronic}</ISSN>`
        : "";
  const p = c.pubDate;
  let date: string;
  if (p.medlineDate !== null) date = el("MedlineDate", p.medlineDate);
  else if (p.season !== null) date = `<Year>${p.year}</Year><Season>${p.season}</Season>`;
  else {
    date = `<Year>${p.year}</Year>`;
    if (p.month !== null) date += el("Month", MONTH_ABBR[p.month - 1] ?? "");
    if (p.month !== null && p.day !== null) date += el("Day", pad2(p.day));
  }
  const issue = c.issue === null ? "" : el("Issue", c.issue);
  const medium = printFirst ? "Print" : "Internet";
  return `<Journal>${issn}<JournalIssue CitedMedium="${medium}"><Volume>${c.volume}</Volume>${issue}<PubDate>${date}</PubDate></JournalIssue><Title>${esc(j.title)}</Title><ISOAbbreviation>${esc(j.iso)}</ISOAbbreviation></Journal>`;
}

function authorXml(a: SynthAuthor, urlOrcid: boolean): string {
  let out = '<Author ValidYN="Y">';
  if (a.collectiveName !== null) out += el("CollectiveName", esc(a.collectiveName));
  else {
    out += el("LastName", esc(a.lastName ?? ""));
    if (a.foreName !== null) out += el("ForeName", esc(a.foreName));
    if (a.initials !== null) out += el("Initials", esc(a.initials));
  }
  if (a.orcid !== null) {
    const id = urlOrcid ? `https://orcid.org/${a.orcid}` : a.orcid;
    out += `<Identifier Source="ORCID">${id}</Identifier>`;
  }
  for (const aff of a.affiliations)
    out += `<AffiliationInfo>${el("Affiliation", esc(aff))}</AffiliationInfo>`;
  return `${out}</Author>`;
}

function articleElement(r: SynthRecord): string {
  const c = r.citation;
  const parts: string[] = [`<Article PubModel="${c.journal.pubModel}">`, journalXml(r)];
  parts.push(el("ArticleTitle", r.titleMarkup));
  const end = c.endPage === null ? "" : el("EndPage", c.endPage);
  parts.push(
    `<Pagination><StartPage>${c.startPage}</StartPage>${end}<MedlinePgn>${c.medlinePgn}</MedlinePgn></Pagination>`,
  );
  if (r.doi !== null)
    parts.push(`<ELocationID EIdType="doi" ValidYN="Y">${esc(r.doi)}</ELocationID>`);
  if (r.abstract.length > 0) {
    parts.push("<Abstract>");
    for (const s of r.abstract) {
      const label = s.label === null ? "" : ` Label="${escAttr(s.label)}"`;
      const category = s.nlmCategory === null ? "" : ` NlmCategory="${s.nlmCategory}"`;
      parts.push(`<AbstractText${label}${category}>${s.markup}</AbstractText>`);
    }
    parts.push("</Abstract>");
  }
  if (r.authors.length > 0) {
    const urlOrcid = r.index % 3 === 0; // NCBI prints both forms; parsers must read both
    parts.push(
      '<AuthorList CompleteYN="Y">',
      ...r.authors.map((a) => authorXml(a, urlOrcid)),
      "</AuthorList>",
    );
  }
  for (const lang of r.languages) parts.push(el("Language", lang));
  if (r.grants.length > 0) {
    parts.push('<GrantList CompleteYN="Y">');
    for (const g of r.grants) {
      const id = g.grantId === null ? "" : el("GrantID", esc(g.grantId));
      const acronym = g.acronym === null ? "" : el("Acronym", esc(g.acronym));
      parts.push(
        `<Grant>${id}${acronym}${el("Agency", esc(g.agency))}${el("Country", esc(g.country))}</Grant>`,
      );
    }
    parts.push("</GrantList>");
  }
  parts.push("<PublicationTypeList>");
  for (const t of r.publicationTypes)
    parts.push(`<PublicationType UI="${t.ui}">${esc(t.name)}</PublicationType>`);
  parts.push("</PublicationTypeList>");
  if (c.epubDate !== null)
    parts.push(ymdPadded("ArticleDate", c.epubDate, ' DateType="Electronic"'));
  parts.push("</Article>");
  return parts.join("");
}

function medlineCitation(r: SynthRecord): string {
  const j = r.citation.journal;
  const indexing =
    r.status === "MEDLINE" ? ` IndexingMethod="${r.index % 4 === 0 ? "Manual" : "Automated"}"` : "";
  const parts: string[] = [`<MedlineCitation Status="${r.status}" Owner="NLM"${indexing}>`];
  parts.push(`<PMID Version="1">${r.pmid}</PMID>`);
  if (r.dateCompleted !== null) parts.push(ymdPadded("DateCompleted", r.dateCompleted));
  parts.push(ymdPadded("DateRevised", r.lr), articleElement(r));
  const linking = j.issnPrint ?? j.issnElectronic;
  parts.push(
    `<MedlineJournalInfo><Country>${esc(j.country)}</Country><MedlineTA>${esc(j.iso)}</MedlineTA><NlmUniqueID>${j.nlmId}</NlmUniqueID>${linking === null ? "" : el("ISSNLinking", linking)}</MedlineJournalInfo>`,
  );
  for (const subset of r.citationSubsets) parts.push(el("CitationSubset", subset));
  if (r.retraction !== null) {
    parts.push(
      `<CommentsCorrectionsList><CommentsCorrections RefType="RetractionIn"><RefSource>${esc(r.retraction.refSource)}</RefSource><PMID Version="1">${r.retraction.pmid}</PMID></CommentsCorrections></CommentsCorrectionsList>`,
    );
  }
  if (r.mesh.length > 0) {
    parts.push("<MeshHeadingList>");
    for (const h of r.mesh) {
      parts.push(
        `<MeshHeading><DescriptorName UI="${h.ui}" MajorTopicYN="${h.major ? "Y" : "N"}">${esc(h.name)}</DescriptorName>`,
      );
      for (const q of h.qualifiers) {
        parts.push(
          `<QualifierName UI="${q.ui}" MajorTopicYN="${q.major ? "Y" : "N"}">${esc(q.name)}</QualifierName>`,
        );
      }
      parts.push("</MeshHeading>");
    }
    parts.push("</MeshHeadingList>");
  }
  if (r.keywords.length > 0) {
    parts.push('<KeywordList Owner="NOTNLM">');
    for (const k of r.keywords) parts.push(`<Keyword MajorTopicYN="N">${esc(k)}</Keyword>`);
    parts.push("</KeywordList>");
  }
  parts.push("</MedlineCitation>");
  return parts.join("");
}

function pubmedData(r: SynthRecord): string {
  const parts: string[] = ["<PubmedData><History>"];
  if (r.received !== null) parts.push(pubMedPubDate("received", r.received, false));
  if (r.accepted !== null) parts.push(pubMedPubDate("accepted", r.accepted, false));
  parts.push(pubMedPubDate("pubmed", r.pubmedDate, true));
  if (r.medlineDate !== null) parts.push(pubMedPubDate("medline", r.medlineDate, true));
  parts.push(pubMedPubDate("entrez", r.edat, true));
  if (r.pmcid !== null)
    parts.push(pubMedPubDate("pmc-release", r.citation.epubDate ?? r.edat, false));
  parts.push("</History>", el("PublicationStatus", r.publicationStatus), "<ArticleIdList>");
  parts.push(`<ArticleId IdType="pubmed">${r.pmid}</ArticleId>`);
  if (r.pmcid !== null) parts.push(`<ArticleId IdType="pmc">${r.pmcid}</ArticleId>`);
  if (r.doi !== null) parts.push(`<ArticleId IdType="doi">${esc(r.doi)}</ArticleId>`);
  parts.push("</ArticleIdList>");
  if (r.references.length > 0) {
    parts.push("<ReferenceList>");
    for (const ref of r.references) {
      parts.push(
        `<Reference><Citation>${esc(ref.citation)}</Citation><ArticleIdList><ArticleId IdType="pubmed">${ref.pmid}</ArticleId></ArticleIdList></Reference>`,
      );
    }
    parts.push("</ReferenceList>");
  }
  parts.push("</PubmedData>");
  return parts.join("");
}

/** One <PubmedArticle>. */
export function articleXml(record: SynthRecord): string {
  return `<PubmedArticle>${medlineCitation(record)}${pubmedData(record)}</PubmedArticle>`;
}

/**
 * A whole EFetch reply. An empty list gives the empty set NCBI sends for unknown ids (not valid
 * against the DTD, which wants one or more articles, but what arrives).
 */
export function articleSetXml(records: Iterable<SynthRecord>): string {
  const articles: string[] = [];
  for (const r of records) articles.push(articleXml(r));
  return articleSetOf(articles);
}

/** An EFetch reply around `<PubmedArticle>` elements already rendered (see articleXml). */
export function articleSetOf(articles: readonly string[]): string {
  const head = `<?xml version="1.0" ?>\n${PUBMED_DOCTYPE}\n<PubmedArticleSet>\n`;
  return `${head}${articles.join("")}</PubmedArticleSet>`;
}
