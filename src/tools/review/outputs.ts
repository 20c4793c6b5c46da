/** Output pieces the review tools share (docs/reviews.md). */
import { z } from "zod";
import { count, noticesSchema } from "../outputs.js";

export const progressSchema = z.object({
  stage: z.enum(["title_abstract", "full_text"]),
  total: count,
  screened: count,
  included: count,
  excluded: count,
  maybe: count,
  remaining: count,
  estimated_relevant_remaining: count,
  stop_suggested: z.boolean(),
  stop_reason: z.string(),
});

export const screenRecordSchema = z.object({
  id: z.string(),
  title: z.string(),
  abstract: z.string().optional(),
  journal: z.string().optional(),
  year: z.int().optional(),
  publication_types: z.array(z.string()),
  score: z.number(),
  notices: noticesSchema,
  pmcid: z.string().optional(),
  doi: z.string().optional(),
  full_text_available: z
    .boolean()
    .optional()
    .describe("full_text stage: whether PMC, Europe PMC or Unpaywall has it"),
});
