/**
 * The answer of `pubmed_fulltext`, one result per identifier asked for, and its zod schema (the
 * tool's advertised outputSchema). A result holds the article as text (`source` "pmc" or
 * "europepmc"), or for Unpaywall a link to the open-access copy and no text; `tried` lists the
 * tiers that did not give it and why; `error` is set when no tier did.
 */
import { z } from "zod";
import { fulltextArticleSchema } from "./fulltext-types.js";

export const FULLTEXT_SOURCES = ["pmc", "europepmc", "unpaywall"] as const;
export type FulltextSource = (typeof FULLTEXT_SOURCES)[number];

const source = z.enum(FULLTEXT_SOURCES);

export const attemptSchema = z.object({
  source,
  reason: z.string(),
  /** The error code of a service failure (RATE_LIMIT, UPSTREAM, …); absent for "not there". */
  code: z.string().optional(),
  /** The tier was not tried (Unpaywall without UNPAYWALL_EMAIL). */
  skipped: z.literal(true).optional(),
});
export type Attempt = z.output<typeof attemptSchema>;

/** Unpaywall's best open-access location: where to read the paper, not its text. */
export const oaLinkSchema = z.object({
  url: z.string(),
  pdfUrl: z.string().optional(),
  license: z.string().optional(),
  version: z.string().optional(),
  hostType: z.string().optional(),
});
export type OaLink = z.output<typeof oaLinkSchema>;

export const fulltextResultSchema = z.object({
  /** The identifier as asked for (PMID digits, "PMC…", or the DOI). */
  id: z.string(),
  source: source.optional(),
  article: fulltextArticleSchema.optional(),
  link: oaLinkSchema.optional(),
  tried: z.array(attemptSchema).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type FulltextResult = z.output<typeof fulltextResultSchema>;

export const fulltextOutputSchema = z.object({ results: z.array(fulltextResultSchema) });
export type FulltextOutput = z.output<typeof fulltextOutputSchema>;
