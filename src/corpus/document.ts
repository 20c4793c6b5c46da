/**
 * Article → stored document: the fields rag_get returns, the quality score, the integrity notices,
 * and a content hash over what a reader sees (so a re-sync of an unchanged record writes nothing;
 * a record that gains a notice link is a changed record, and its notices are written with it).
 */
import { hash as digest } from "node:crypto";
import { monthNumber } from "../ncbi/dates.js";
import type { Article } from "../ncbi/types.js";
import type { DocumentInput } from "../store/docs.js";
import { noticesFromArticle } from "../ncbi/notices.js";
import { computeQuality, publicationYear } from "./quality.js";

/** "YYYY", "YYYY-MM" or "YYYY-MM-DD" from PubDate, else the MedlineDate text. */
export function publicationDateText(article: Article): string | null {
  const d = article.journalInfo.publicationDate;
  if (!d.year) return d.medlineDate;
  const month = monthNumber(d.month);
  if (!month) return d.year;
  const day = d.day ? `-${d.day.padStart(2, "0")}` : "";
  return `${d.year}-${month}${day}`;
}

/** Hash of the record minus bookkeeping dates: LR is compared on its own (docs/architecture.md#a-sync-pubmed_sync_delta). */
export function contentHash(article: Article): string {
  return hashAndJson(article).hash;
}

/**
 * The content hash and the record's JSON from one serialisation: the JSON of the record minus its
 * dates (what the hash covers) with the dates appended as its last member.
 */
function hashAndJson(article: Article): { hash: string; json: string } {
  const { articleDates, ...content } = article;
  const text = JSON.stringify(content);
  const hash = digest("sha256", text, "hex");
  return { hash, json: `${text.slice(0, -1)},"articleDates":${JSON.stringify(articleDates)}}` };
}

export function documentInputFromArticle(
  article: Article,
  now: Date = new Date(),
): DocumentInput & { recordJson: string } {
  const j = article.journalInfo;
  const { hash, json } = hashAndJson(article);
  return {
    pmid: article.pmid,
    title: article.title,
    abstract: article.abstractText,
    journal: j.title,
    journalIso: j.isoAbbreviation,
    issn: j.issn,
    eissn: j.eissn,
    nlmId: j.nlmId,
    doi: article.doi,
    pmcid: article.pmcid,
    pubTypes: article.publicationTypes,
    mesh: article.meshTerms.map((m) => m.descriptorName),
    citationSubsets: article.citationSubsets,
    languages: article.languages,
    pdat: publicationDateText(article),
    pdatYear: publicationYear(article),
    edat: article.articleDates.edat,
    lr: article.articleDates.lr,
    isRetracted: article.isRetracted,
    notices: noticesFromArticle(article),
    quality: computeQuality(article, now),
    record: article,
    recordJson: json,
    contentHash: hash,
  };
}
