import { z } from "zod";
import { decideReview } from "../../worker/review-api.js";
import { STAGES } from "../../store/review-types.js";
import { count } from "../outputs.js";
import { maxChars } from "../params.js";
import { defineTool } from "../tool.js";
import { progressSchema } from "./outputs.js";
import { decisionSchema, recordIdSchema, reviewIdSchema, stageSchema } from "./params.js";

export const reviewDecide = defineTool({
  name: "review_decide",
  description:
    "Record decisions (include, exclude, maybe) on a review's records, with an optional reason " +
    "(at full text, the exclusion reason PRISMA counts). Every change is audited; deciding a " +
    "record again changes it. Returns the stage's progress. Example: " +
    '{"review_id": "sglt2-in-hf-k3f9qa", "decisions": [{"id": "pmid:31452104", "decision": "include"}, ' +
    '{"id": "pmid:30000219", "decision": "exclude", "reason": "not an RCT"}]}',
  toolset: "review",
  budget: "corpus",
  annotations: {
    title: "Record screening decisions",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  parameters: z.object({
    review_id: reviewIdSchema,
    decisions: z
      .array(
        z.object({
          id: recordIdSchema,
          decision: decisionSchema,
          reason: z
            .string()
            .max(500, maxChars(500))
            .trim()
            .optional()
            .describe("Why (an exclusion reason at full text)."),
          stage: z.enum(STAGES).optional().describe("This decision's stage, if not the call's."),
        }),
      )
      .min(1, { error: "must hold at least one decision" })
      .max(500, { error: "must hold at most 500 decisions; split them" })
      .describe("Decisions on record ids from review_screen."),
    stage: stageSchema,
  }),
  output: z.object({ recorded: count, unchanged: count, progress: progressSchema }),
  execute: (args, { signal }) =>
    decideReview(
      args.review_id,
      args.decisions.map((d) => ({
        id: d.id,
        decision: d.decision,
        ...(d.reason ? { reason: d.reason } : {}),
        ...(d.stage ? { stage: d.stage } : {}),
      })),
      args.stage,
      signal,
    ),
});
