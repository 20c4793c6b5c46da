import { z } from "zod";
import { createReview } from "../../review/api.js";
import { requiredText } from "../params.js";
import { defineTool } from "../tool.js";

export const reviewCreate = defineTool({
  name: "review_create",
  description:
    "Start a systematic review: a named, persistent set of candidate records with screening " +
    "decisions, kept in the local store across restarts. Give the review question (e.g. PICO) " +
    "and the eligibility criteria: screening ranks records by them until your first decisions " +
    "train a model. Then add records with review_add, screen with review_screen and " +
    "review_decide, count with review_status, export with review_export. Example: " +
    '{"name": "SGLT2 heart failure", "question": "In adults with heart failure, do SGLT2 ' +
    'inhibitors reduce hospitalisation compared with placebo?", "criteria": "RCTs; adults; ' +
    'heart failure; SGLT2 inhibitor vs placebo; outcome hospitalisation"}.',
  toolset: "review",
  budget: "corpus",
  annotations: {
    title: "Start a systematic review",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  parameters: z.object({
    name: requiredText(200).describe("A short name, unique among your reviews."),
    question: requiredText(4_000).describe("The review question, e.g. in PICO form."),
    criteria: z
      .string()
      .max(8_000, { error: "must be at most 8,000 characters" })
      .trim()
      .default("")
      .describe("Eligibility criteria (inclusion and exclusion), free text."),
  }),
  output: z.object({ review_id: z.string(), name: z.string(), created_at: z.string() }),
  execute: (args, { signal }) => createReview(args, signal),
});
