/** Parameters the review tools share (docs/reviews.md). */
import { z } from "zod";
import { DECISIONS, STAGES } from "../../store/review-types.js";
import { maxChars, textOrNumber } from "../params.js";

export const reviewIdSchema = z
  .string()
  .max(64, maxChars(64))
  .trim()
  .min(1, { error: "must not be empty" })
  .describe('The review_id review_create returned, e.g. "sglt2-in-hf-k3f9qa".');

export const stageSchema = z
  .enum(STAGES)
  .default("title_abstract")
  .describe('"title_abstract" (first screening) or "full_text" (eligibility of the reports).');

/** Record ids as review_screen gives them; a bare PMID (digits or a number) means "pmid:<digits>". */
export const recordIdSchema = textOrNumber(
  z
    .string()
    .max(300, maxChars(300))
    .trim()
    .transform((v) =>
      /^\d{1,9}$/.test(v)
        ? `pmid:${v}`
        : v.replace(/^(pmid|doi|ppr):\s*/i, (_m, p: string) => `${p.toLowerCase()}:`),
    )
    .refine((v) => /^(pmid:\d{1,9}|doi:10\.\S+|ppr:\S+)$/.test(v), {
      error:
        'must be a record id from review_screen, e.g. "pmid:31452104", "doi:10.1101/2020.01.01.123" or "ppr:PPR123"',
    }),
);

export const decisionSchema = z.enum(DECISIONS);
