import { z } from "zod";
import { ValidationError } from "../../errors.js";
import { addToReview, includedPmids } from "../../worker/review-api.js";
import { citationPmids, europePmcCandidates, pmidsOfIds } from "../../review/gather.js";
import type { AddRequest } from "../../review/service.js";
import { getEuropePmc, getEutils } from "../../state.js";
import { REVIEW_SOURCES } from "../../store/review-types.js";
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
    "Add records to a review, one source per call: pubmed (term: every record, through NCBI's " +
    "history server, which hands out the first 9,999; a call NCBI stops keeps what it stored " +
    "and resumes when repeated), europepmc (query, preprints included), corpus (a synced " +
    "query_key), ids (PMIDs, PMCIDs, DOIs) or citations (direction backward = references, " +
    "forward = citing papers, of the included records). Records met again (same PMID/DOI/PMCID, " +
    "title+year+first author, preprint of a published one) are stored once and counted as " +
    'duplicates. Example: {"review_id": "sglt2-in-hf-k3f9qa", "source": "pubmed", "term": "sglt2 AND heart failure"}',
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
          .max(MAX_IDS, {
            error: `must list at most ${MAX_IDS.toLocaleString("en-US")} identifiers; split the list`,
          }),
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
    const all = [...unmatched, ...(result.unmatched ?? [])];
    return all.length > 0 ? { ...result, unmatched: all } : result;
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
        getEuropePmc(),
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
      const { pmids, unmatched, searched } = await pmidsOfIds(getEutils(), args.ids, ctx.signal);
      return { request: { source: "ids", pmids, dois: searched }, unmatched };
    }
    case "citations": {
      if (!args.direction) throw needs("citations", "direction", '"direction": "backward"');
      const included = await includedPmids(args.review_id, ctx.signal);
      const pmids = await citationPmids(
        getEutils(),
        getEuropePmc(),
        included,
        args.direction,
        ctx.signal,
      );
      return { request: { source: "citations", pmids }, ...none };
    }
  }
}
