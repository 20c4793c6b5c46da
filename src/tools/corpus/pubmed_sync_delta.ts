import { z } from "zod";
import { runSync } from "../../worker/corpus-api.js";
import { count } from "../outputs.js";
import { MAX_QUERY_CHARS, numeric, queryKeySchema, requiredText } from "../params.js";
import { defineTool } from "../tool.js";

export const pubmedSyncDelta = defineTool({
  name: "pubmed_sync_delta",
  description:
    "Sync the PubMed records of a query into the local evidence corpus: the first call stores " +
    "every matching record; later calls fetch what was created (new arrivals, by create date) or " +
    "modified (revisions: retractions, corrections, new MeSH) since the query's checkpoint minus " +
    "overlap_days. Records are chunked, embedded and indexed for rag_search; a newly retracted " +
    "paper leaves rag_search at once. Idempotent; one call processes at most max_records, and the " +
    "next call continues. Reports progress. If NCBI rate-limits it, it stops with RATE_LIMIT " +
    "saying when to call again, keeping what it stored. Example: " +
    '{"query_key": "metformin-aging", "term": "metformin AND aging", "overlap_days": 5}.',
  toolset: "corpus",
  annotations: {
    title: "Sync a query into the local corpus",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  noDeadline: true,
  parameters: z.object({
    query_key: queryKeySchema().describe(
      'Your name for this saved query; its checkpoint is kept under it, e.g. "metformin-aging". Use a new one for a new term.',
    ),
    term: requiredText(MAX_QUERY_CHARS).describe("PubMed query to sync."),
    overlap_days: numeric(z.int().min(0).max(3650).default(5)).describe(
      "Re-read this many days before the checkpoint, to catch late-indexed records.",
    ),
    max_records: numeric(z.int().min(1).max(1_000_000).default(50_000)).describe(
      "Most records this call processes; call again to continue.",
    ),
  }),
  narrower: "Sync a narrower term.",
  output: z.object({
    job_id: z.string(),
    inserted: count,
    updated: count,
    skipped: count,
    pmids_processed: count,
    max_edat_seen: z.string().nullable(),
    warnings: z.array(z.string()),
  }),
  execute: (args, { signal, reportProgress }) =>
    runSync(
      {
        queryKey: args.query_key,
        term: args.term,
        overlapDays: args.overlap_days,
        maxRecords: args.max_records,
      },
      { signal, onProgress: (done, total, message) => reportProgress(done, total, message) },
    ),
});
