import { z } from "zod";
import { ValidationError } from "../../errors.js";
import { addToReview, includedPmids } from "../../review/api.js";
import { citationPmids, europePmcCandidates, pmidsOfIds } from "../../review/gather.js";
import type { AddRequest } from "../../review/service.js";
import { REVIEW_SOURCES } from "../../review/types.js";
import { count } from "../outputs.js";
import {
  MAX_ID_CHARS,
  MAX_QUERY_CHARS,
  maxChars,
  numeric,
  queryKeySchema,
  requiredText,
} from "../params.js";
import { defineTool, type ToolContext } from "../tool.js";
import { reviewIdSchema } from "./params.js";

/** Most identifiers one call takes (the converter is asked 200 at a time). */
const MAX_IDS = 2_000;

const bySourceSchema = z.object(
  Object.fromEntries(REVIEW_SOURCES.map((s) => [s, count.optional()])),
);

export const reviewAdd = defineTool({
  name: "review_add",
  description:
    'Add candidate records to a review from one source per call. source "pubmed": every ' +
    "record of a PubMed search (term), fetched through NCBI's history server, up to max_records " +
    "(NCBI hands out the first 9,999 of a search: split larger ones by years); a call stopped by NCBI keeps what it " +
    'stored and the same call again resumes. "europepmc": a Europe PMC query, preprints ' +
    'included. "corpus": the records synced under a query_key. "ids": PMIDs, PMCIDs or DOIs. ' +
    '"citations": the references (direction "backward") or citing papers ("forward") of the ' +
    "records included so far. A record met again (same PMID, DOI or PMCID; same title, year and " +
    "first author; a preprint and its published version) is stored once and counted in " +
    "duplicates. Reports progress. Example: " +
    '{"review_id": "rv-ab12cd34", "source": "pubmed", "term": "sglt2 inhibitors AND heart failure AND randomized controlled trial[pt]"}.',
  toolset: "review",
  noDeadline: true,
  annotations: {
    title: "Add records to a review",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  parameters: z.object({
    review_id: reviewIdSchema,
    source: z.enum(REVIEW_SOURCES).describe("Where the records come from (see the description)."),
    term: requiredText(MAX_QUERY_CHARS).optional().describe('source "pubmed": the PubMed query.'),
    query: requiredText(MAX_QUERY_CHARS)
      .optional()
      .describe('source "europepmc": the Europe PMC query (its syntax).'),
    query_key: queryKeySchema().optional().describe('source "corpus": a synced query_key.'),
    ids: z
      .preprocess(
        (v) =>
          typeof v === "string"
            ? v.split(/[\s,;]+/).filter(Boolean)
            : typeof v === "number"
              ? [v]
              : v,
        z
          .array(
            z.preprocess(
              (v) => (typeof v === "number" ? String(v) : v),
              z.string().max(MAX_ID_CHARS, maxChars(MAX_ID_CHARS)).trim().min(1),
            ),
          )
          .min(1, { error: "must list at least one identifier" })
          .max(MAX_IDS, { error: `must list at most ${MAX_IDS} identifiers; split the list` }),
      )
      .optional()
      .describe('source "ids": PMIDs, PMCIDs or DOIs.'),
    direction: z
      .enum(["backward", "forward"])
      .optional()
      .describe('source "citations": "backward" = references, "forward" = citing papers.'),
    max_records: numeric(z.int().min(1).max(10_000).default(10_000)).describe(
      "Most records this call adds (pubmed, europepmc, corpus).",
    ),
  }),
  narrower: "Add fewer records per call.",
  output: z.object({
    added: count,
    duplicates: count,
    identified: count,
    by_source: bySourceSchema,
    remaining: count.optional(),
    unmatched: z.array(z.string()).optional(),
    warnings: z.array(z.string()).optional(),
  }),
  execute: async (args, ctx) => {
    const { request, unmatched } = await requestOf(args, ctx);
    const result = await addToReview(args.review_id, request, {
      signal: ctx.signal,
      onProgress: (done, total, message) => ctx.reportProgress(done, total, message),
    });
    return unmatched.length > 0 ? { ...result, unmatched } : result;
  },
});

type Args = z.output<typeof reviewAdd.parameters>;

const needs = (source: string, param: string, example: string) =>
  new ValidationError(`source "${source}" needs ${param}, e.g. ${example}.`);

/** The worker's request for one source; the sources read on this thread are read here. */
async function requestOf(
  args: Args,
  ctx: ToolContext,
): Promise<{ request: AddRequest; unmatched: string[] }> {
  const none = { unmatched: [] as string[] };
  switch (args.source) {
    case "pubmed":
      if (!args.term) throw needs("pubmed", "term", '"term": "asthma AND montelukast"');
      return {
        request: { source: "pubmed", term: args.term, maxRecords: args.max_records },
        ...none,
      };
    case "corpus":
      if (!args.query_key) throw needs("corpus", "query_key", '"query_key": "metformin-aging"');
      return {
        request: { source: "corpus", queryKey: args.query_key, maxRecords: args.max_records },
        ...none,
      };
    case "europepmc": {
      if (!args.query) throw needs("europepmc", "query", '"query": "long covid AND SRC:PPR"');
      const { candidates } = await europePmcCandidates(
        args.query,
        args.max_records,
        ctx.signal,
        (done, total) =>
          ctx.reportProgress(done, total, `read ${done} of ${total} Europe PMC results`),
      );
      return { request: { source: "europepmc", candidates }, ...none };
    }
    case "ids": {
      if (!args.ids)
        throw needs("ids", "ids", '"ids": ["31452104", "PMC3040717", "10.1038/ng.590"]');
      const { pmids, unmatched } = await pmidsOfIds(args.ids, ctx.signal);
      return { request: { source: "ids", pmids, candidates: [] }, unmatched };
    }
    case "citations": {
      if (!args.direction) throw needs("citations", "direction", '"direction": "backward"');
      const included = await includedPmids(args.review_id, ctx.signal);
      const { pmids } = await citationPmids(included, args.direction, ctx.signal);
      return { request: { source: "citations", pmids, candidates: [] }, ...none };
    }
  }
}
