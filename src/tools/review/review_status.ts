import { z } from "zod";
import { reviewStatus as statusOf } from "../../worker/review-api.js";
import { REVIEW_SOURCES } from "../../store/review-types.js";
import { count, noticesSchema } from "../outputs.js";
import { defineTool } from "../tool.js";
import { progressSchema } from "./outputs.js";
import { reviewIdSchema } from "./params.js";

const bySource = z.object(Object.fromEntries(REVIEW_SOURCES.map((s) => [s, count.optional()])));

/** The PRISMA diagram of a result, kept beside it for the second content block. */
const diagrams = new WeakMap<object, string>();

export const reviewStatus = defineTool({
  name: "review_status",
  description:
    "A review's PRISMA 2020 counts (identified per source, duplicates removed, screened, " +
    "excluded, reports sought / not retrieved / assessed, excluded at full text by reason, " +
    "included), both stages' progress and the records not excluded that carry retraction or " +
    "correction notices; a second block is the PRISMA flow diagram (SVG). Without review_id: " +
    'every review, briefly. Example: {"review_id": "sglt2-in-hf-k3f9qa"}',
  toolset: "review",
  budget: "corpus",
  annotations: {
    title: "Review status and PRISMA counts",
    readOnlyHint: true,
    openWorldHint: false,
  },
  parameters: z.object({
    review_id: reviewIdSchema.optional().describe("The review; leave out to list every review."),
  }),
  output: z.object({
    reviews: z
      .array(
        z.object({
          review_id: z.string(),
          name: z.string(),
          records: count,
          included: count,
          created_at: z.string(),
        }),
      )
      .optional(),
    review: z
      .object({
        review_id: z.string(),
        name: z.string(),
        question: z.string(),
        criteria: z.string(),
        created_at: z.string(),
      })
      .optional(),
    prisma: z
      .object({
        identified: count,
        identified_by_source: bySource,
        duplicates_removed: count,
        screened: count,
        excluded_screening: count,
        reports_sought: count,
        reports_not_retrieved: count,
        reports_assessed: count,
        excluded_full_text: z.record(z.string(), count),
        included: count,
      })
      .optional(),
    progress: z.object({ title_abstract: progressSchema, full_text: progressSchema }).optional(),
    notices: z
      .array(z.object({ id: z.string(), title: z.string(), notices: noticesSchema }))
      .optional()
      .describe("Records not excluded that carry integrity notices (at most 50)."),
  }),
  execute: async (args, { signal }) => {
    const status = await statusOf(args.review_id, signal);
    if (!("svg" in status)) return status;
    const { svg, ...rest } = status;
    diagrams.set(rest, svg);
    return rest;
  },
  moreContent: (result) => {
    const svg = diagrams.get(result);
    return Promise.resolve(
      svg
        ? [{ type: "image", mimeType: "image/svg+xml", data: Buffer.from(svg).toString("base64") }]
        : [],
    );
  },
});
