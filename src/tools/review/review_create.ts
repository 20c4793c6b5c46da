import { z } from "zod";
import { createReview } from "../../worker/review-api.js";
import { requiredText } from "../params.js";
import { defineTool } from "../tool.js";

export const reviewCreate = defineTool({
  name: "review_create",
  description:
    "Start a systematic review kept in the local store: a name, the review question (PICO) and " +
    "eligibility criteria, which rank records until your decisions train a model. Then " +
    "review_add, review_screen / review_decide, review_status, review_export. Example: " +
    '{"name": "SGLT2 in HF", "question": "Do SGLT2 inhibitors reduce hospitalisation in adults ' +
    'with heart failure?", "criteria": "RCTs; adults; SGLT2 inhibitor vs placebo"}',
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
