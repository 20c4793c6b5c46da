import { z } from "zod";
import { writeCheckpoint } from "../../worker/corpus-api.js";
import { maxChars, queryKeySchema } from "../params.js";
import { defineTool } from "../tool.js";

export const corpusCheckpointSet = defineTool({
  name: "corpus_checkpoint_set",
  description:
    "Set a saved query's sync checkpoint by hand, e.g. back in time to backfill: both marks " +
    "(last_edat for arrivals, last_mdat for revisions) move there, so the next pubmed_sync_delta " +
    "re-reads records created since then and revisions made since then. Every manual set is " +
    "recorded in an audit trail. " +
    'Example: {"query_key": "metformin-aging", "last_edat": "2024-01-01T00:00:00Z"}.',
  budget: "corpus",
  toolset: "corpus",
  annotations: {
    title: "Set a sync checkpoint",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  parameters: z.object({
    query_key: queryKeySchema().describe("The saved query's key."),
    last_edat: z
      .string()
      .max(40, maxChars(40))
      .trim()
      .pipe(
        z.iso.datetime({
          offset: true,
          error: 'must be an ISO-8601 date-time, e.g. "2024-01-01T00:00:00Z"',
        }),
      )
      .describe('New checkpoint, ISO-8601, e.g. "2024-01-01T00:00:00Z".'),
  }),
  maxAnswerBytes: 4096,
  output: z.object({ ok: z.boolean() }),
  execute: (args, { signal }) => writeCheckpoint(args.query_key, args.last_edat, signal),
});
