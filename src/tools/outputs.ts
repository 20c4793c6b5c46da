/**
 * Output-schema pieces shared by several tools. These are advertised in tools/list as each tool's
 * `outputSchema`, so they stay terse: field names and types only (the tool descriptions and the
 * help resource say what the fields mean). __tests__/tools/output-schemas.test.ts checks every
 * tool's real replies against them.
 */
import { z } from "zod";
import { noticeSchema } from "../ncbi/notices.js";

export const nullableText = z.string().nullable();
export const count = z.int().min(0);

/**
 * Integrity notices on a record (src/ncbi/notices.ts). Tools leave the field out when none is
 * known (`noticesSchema.optional()`): absent means none known.
 */
export const noticesSchema = z.array(noticeSchema);

export const briefSummarySchema = z.object({
  pmid: z.string(),
  title: z.string(),
  authors: z.array(z.string()),
  source: z.string(),
  pubDate: z.string(),
  doi: nullableText,
  notices: noticesSchema.optional(),
});

/** pubmed_fetch leaves out every null or empty field (src/pubmed/article-output.ts). */
const text = z.string().optional();
const texts = z.array(z.string()).optional();

const authorSchema = z.object({
  lastName: text,
  firstName: text,
  initials: text,
  collectiveName: text,
  orcid: text,
  affiliations: texts,
});

const journalInfoSchema = z.object({
  title: text,
  isoAbbreviation: text,
  issn: text,
  eissn: text,
  nlmId: text,
  volume: text,
  issue: text,
  pages: text,
  publicationDate: z.object({ year: text, month: text, day: text, medlineDate: text }).optional(),
});

const meshTermSchema = z.object({
  descriptorName: z.string(),
  descriptorUi: text,
  isMajorTopic: z.boolean(),
  qualifiers: z
    .array(z.object({ name: z.string(), ui: text, isMajorTopic: z.boolean() }))
    .optional(),
});

/**
 * A parsed PubMed record: pmid, title and isRetracted always, any other field only when it has a
 * value; `detailLevel: "citation_data"` leaves out abstracts, indexing terms and grants.
 */
export const articleSchema = z.object({
  pmid: z.string(),
  title: z.string(),
  abstractText: text,
  abstractSections: z
    .array(z.object({ label: text, nlmCategory: text, text: z.string() }))
    .optional(),
  authors: z.array(authorSchema).optional(),
  journalInfo: journalInfoSchema.optional(),
  publicationTypes: texts,
  keywords: texts,
  meshTerms: z.array(meshTermSchema).optional(),
  grantList: z
    .array(z.object({ grantId: text, acronym: text, agency: text, country: text }))
    .optional(),
  doi: text,
  pmcid: text,
  articleDates: z.object({ edat: text, lr: text, pubmed: text }).optional(),
  isRetracted: z.boolean(),
  notices: noticesSchema.optional(),
  commentsCorrections: z
    .array(z.object({ refType: z.string(), pmid: text, refSource: z.string().optional() }))
    .optional(),
  citationSubsets: texts,
  languages: texts,
  recordType: z.enum(["PubmedArticle", "PubmedBookArticle"]).optional(),
});
