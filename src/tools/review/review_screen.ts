import { z } from "zod";
import { markFullText, screenReview } from "../../worker/review-api.js";
import { fullTextAvailability } from "../../review/fulltext-check.js";
import { numeric } from "../params.js";
import { defineTool } from "../tool.js";
import { progressSchema, screenRecordSchema } from "./outputs.js";
import { reviewIdSchema, stageSchema } from "./params.js";

export const reviewScreen = defineTool({
  name: "review_screen",
  description:
    "The undecided records of a review most likely to be included, best first: by relevance " +
    "to the question until there is an include and an exclude, then by a model trained on every " +
    "decision (decide them with review_decide, then ask again). Abstracts cut at 1,500 " +
    "characters; notices; score = estimated probability of inclusion. progress says what is " +
    "left and whether stopping is now safe (stop_suggested, stop_reason). stage full_text: the " +
    'records included at title/abstract, with full_text_available. Example: {"review_id": "sglt2-in-hf-k3f9qa"}',
  toolset: "review",
  annotations: { title: "Screen a review's records", readOnlyHint: true, openWorldHint: true },
  parameters: z.object({
    review_id: reviewIdSchema,
    stage: stageSchema,
    limit: numeric(z.int().min(1).max(50).default(10)).describe("Records to return (1–50)."),
  }),
  output: z.object({
    records: z.array(screenRecordSchema),
    progress: progressSchema,
    ranking: z
      .enum(["relevance", "model"])
      .describe("relevance to the question (no include and exclude yet), or the trained model"),
  }),
  execute: async (args, { signal }) => {
    const result = await screenReview(args.review_id, args.stage, args.limit, signal);
    if (args.stage !== "full_text") return result;
    // Each report is looked for once; what was found is kept for PRISMA's "not retrieved".
    const unchecked = result.records.filter((r) => r.full_text_available === undefined);
    const found = await fullTextAvailability(
      unchecked.map((r) => ({ id: r.id, pmid: /^pmid:(\d+)$/.exec(r.id)?.[1], doi: r.doi })),
      signal,
    );
    if (found.length === 0) return result;
    await markFullText(
      args.review_id,
      found.map(({ id, available }) => ({ id, available })),
      signal,
    );
    const byId = new Map(found.map((f) => [f.id, f.available]));
    return {
      ...result,
      records: result.records.map((r) =>
        byId.has(r.id) ? { ...r, full_text_available: byId.get(r.id)! } : r,
      ),
    };
  },
});
