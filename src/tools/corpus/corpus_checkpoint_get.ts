import { z } from "zod";
import { readCheckpoint } from "../../corpus/api.js";
import { requiredText } from "../params.js";
import { defineTool } from "../tool.js";

export const corpusCheckpointGet = defineTool({
  name: "corpus_checkpoint_get",
  description:
    "Read a saved query's sync checkpoint: the Entrez date up to which pubmed_sync_delta has fully " +
    "stored and indexed its records (null before the first sync). Example: " +
    '{"query_key": "metformin-aging"}.',
  annotations: { title: "Read a sync checkpoint", readOnlyHint: true, openWorldHint: false },
  parameters: z.object({
    query_key: requiredText().describe("The saved query's key."),
  }),
  output: z.object({ query_key: z.string(), last_edat: z.string().nullable() }),
  execute: (args, { signal }) => readCheckpoint(args.query_key, signal),
});
