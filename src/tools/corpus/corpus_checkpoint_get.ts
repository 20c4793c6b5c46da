import { z } from "zod";
import { readCheckpoint } from "../../worker/corpus-api.js";
import { count } from "../outputs.js";
import { queryKeySchema } from "../params.js";
import { defineTool } from "../tool.js";

export const corpusCheckpointGet = defineTool({
  name: "corpus_checkpoint_get",
  description:
    "Read a saved query's sync checkpoint: last_edat, the end of the last create-date window " +
    "pubmed_sync_delta fully stored and indexed (new arrivals; null before the first sync), " +
    "last_mdat, the same for modification dates (revisions such as retractions), and the last " +
    'sync\'s job and status. Example: {"query_key": "metformin-aging"}.',
  budget: "corpus",
  toolset: "corpus",
  annotations: { title: "Read a sync checkpoint", readOnlyHint: true, openWorldHint: false },
  parameters: z.object({
    query_key: queryKeySchema().describe("The saved query's key."),
  }),
  maxAnswerBytes: 4096,
  output: z.object({
    query_key: z.string(),
    last_edat: z.string().nullable(),
    last_mdat: z.string().nullable(),
    last_sync: z
      .object({
        job_id: z.string(),
        status: z.enum(["running", "succeeded", "partial", "failed", "rate_limited", "abandoned"]),
        started_at: z.string(),
        finished_at: z.string().nullable(),
        pmids_processed: count,
        error: z.string().nullable(),
      })
      .nullable(),
  }),
  execute: (args, { signal }) => readCheckpoint(args.query_key, signal),
});
