/**
 * Output-schema pieces shared by several tools. These are advertised in tools/list as each tool's
 * `outputSchema`, so they stay terse: field names and types only (the tool descriptions and the
 * help resource say what the fields mean). __tests__/tools/output-schemas.test.ts checks every
 * tool's real replies against them.
 */
import { z } from "zod";

export const nullableText = z.string().nullable();
export const count = z.int().min(0);

export const briefSummarySchema = z.object({
  pmid: z.string(),
  title: z.string(),
  authors: z.array(z.string()),
  source: z.string(),
  pubDate: z.string(),
  doi: nullableText,
});

const authorSchema = z.object({
  lastName: nullableText,
  firstName: nullableText,
  initials: nullableText,
  collectiveName: nullableText,
  orcid: nullableText,
  affiliations: z.array(z.string()),
});

const journalInfoSchema = z.object({
  title: nullableText,
  isoAbbreviation: nullableText,
  issn: nullableText,
  eissn: nullableText,
  nlmId: nullableText,
  volume: nullableText,
  issue: nullableText,
  pages: nullableText,
  publicationDate: z.object({
    year: nullableText,
    month: nullableText,
    day: nullableText,
    medlineDate: nullableText,
  }),
});

const meshTermSchema = z.object({
  descriptorName: z.string(),
  descriptorUi: nullableText,
  isMajorTopic: z.boolean(),
  qualifiers: z.array(z.object({ name: z.string(), ui: nullableText, isMajorTopic: z.boolean() })),
});

/**
 * A parsed PubMed record. The fields `detailLevel: "citation_data"` leaves out are optional; the
 * rest are always present.
 */
export const articleSchema = z.object({
  pmid: z.string(),
  title: z.string(),
  abstractText: z.string().optional(),
  abstractSections: z
    .array(z.object({ label: nullableText, nlmCategory: nullableText, text: z.string() }))
    .optional(),
  authors: z.array(authorSchema),
  journalInfo: journalInfoSchema,
  publicationTypes: z.array(z.string()),
  keywords: z.array(z.string()).optional(),
  meshTerms: z.array(meshTermSchema).optional(),
  grantList: z
    .array(
      z.object({
        grantId: nullableText,
        acronym: nullableText,
        agency: nullableText,
        country: nullableText,
      }),
    )
    .optional(),
  doi: nullableText,
  pmcid: nullableText,
  articleDates: z.object({ edat: nullableText, lr: nullableText, pubmed: nullableText }),
  isRetracted: z.boolean(),
  commentsCorrections: z.array(z.object({ refType: z.string(), pmid: nullableText })).optional(),
  citationSubsets: z.array(z.string()).optional(),
  languages: z.array(z.string()).optional(),
  recordType: z.enum(["PubmedArticle", "PubmedBookArticle"]).optional(),
});
