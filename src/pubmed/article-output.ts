/**
 * A parsed Article as pubmed_fetch returns it, at a size an agent can afford (issue 10): the
 * field names of docs/reference.md#pubmed_fetch, but a field that is null or empty is left out (no `"orcid": null`, no
 * `"keywords": []`), an unstructured abstract is given once (`abstractText`; `abstractSections`
 * only when NCBI labels the parts), and dates are ISO-8601 (src/ncbi/dates.ts). The parsed
 * Article itself is unchanged: the corpus chunks and hashes it as parsed.
 */
import { dayNumber, isoDateTime, isoDay, monthNumber } from "../ncbi/dates.js";
import type { Article, Author, JournalInfo, MeshTerm } from "../ncbi/types.js";
import type { Notice } from "../ncbi/notices.js";

/** What the caller asked to include beyond the record's core fields. */
export interface ArticleParts {
  citationOnly: boolean;
  meshTerms: boolean;
  grants: boolean;
}

/** Drops null, undefined, "" and [] values, and objects left with no fields. */
function compact<T extends Record<string, unknown>>(obj: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (value === null || value === undefined || value === "") continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (isPlainObject(value) && Object.keys(value).length === 0) continue;
    out[key] = value;
  }
  return out as Partial<T>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function author(a: Author) {
  return compact({ ...a });
}

/**
 * Month and day as two digits ("Sep" → "09", "5" → "05"); a season stays as printed ("Spring"),
 * since ISO-8601 has no seasons, and `medlineDate` keeps NCBI's free text ("1998 Dec-1999 Jan").
 */
function journalInfo(j: JournalInfo) {
  const d = j.publicationDate;
  const publicationDate = compact({
    year: d.year,
    month: monthNumber(d.month) ?? d.month,
    day: dayNumber(d.day) ?? d.day,
    medlineDate: d.medlineDate,
  });
  return compact({ ...j, publicationDate });
}

function meshTerm(m: MeshTerm) {
  return compact({
    descriptorName: m.descriptorName,
    descriptorUi: m.descriptorUi,
    isMajorTopic: m.isMajorTopic,
    qualifiers: m.qualifiers.map((q) => compact({ ...q })),
  });
}

/**
 * Entrez and PubMed dates carry an hour and minute in PubMed's History, so they are date-times;
 * DateRevised (LR) is a calendar day.
 */
function articleDates(a: Article) {
  const { edat, lr, pubmed } = a.articleDates;
  return compact({ edat: isoDateTime(edat), lr: isoDay(lr), pubmed: isoDateTime(pubmed) });
}

/** A structured abstract is one whose parts NCBI labels; otherwise abstractText says it all. */
function isStructured(a: Article): boolean {
  return a.abstractSections.some((s) => s.label !== null || s.nlmCategory !== null);
}

export type ArticleOutput = Record<string, unknown>;

/** `notices` (src/ncbi/notices.ts) are given at every level, citation_data included. */
export function articleOutput(
  a: Article,
  parts: ArticleParts,
  notices: readonly Notice[] = [],
): ArticleOutput {
  const full = !parts.citationOnly;
  // pmid and title are always there, even a title NCBI left empty.
  return {
    pmid: a.pmid,
    title: a.title,
    ...compact({
      abstractText: full ? a.abstractText : null,
      abstractSections:
        full && isStructured(a) ? a.abstractSections.map((s) => compact({ ...s })) : null,
      authors: a.authors.map(author),
      journalInfo: journalInfo(a.journalInfo),
      publicationTypes: a.publicationTypes,
      keywords: full ? a.keywords : null,
      meshTerms: full && parts.meshTerms ? a.meshTerms.map(meshTerm) : null,
      grantList: full && parts.grants ? a.grantList.map((g) => compact({ ...g })) : null,
      doi: a.doi,
      pmcid: a.pmcid,
      articleDates: articleDates(a),
      isRetracted: a.isRetracted,
      notices,
      commentsCorrections: full ? a.commentsCorrections.map((c) => compact({ ...c })) : null,
      citationSubsets: full ? a.citationSubsets : null,
      languages: full ? a.languages : null,
      recordType: full ? a.recordType : null,
    }),
  };
}
