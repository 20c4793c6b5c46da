import { z } from "zod";
import { searchCorpus } from "../../corpus/service.js";
import { flag, numeric, requiredText } from "../params.js";
import { defineTool } from "../tool.js";

export const ragSearch = defineTool({
  name: "rag_search",
  description:
    "Search the local evidence corpus (papers synced with pubmed_sync_delta) by meaning and " +
    "keywords: hybrid dense + BM25 retrieval, best passage per paper, boosted by evidence quality " +
    "(study design, recency, journal, human studies) unless quality_bias is false. Retracted papers " +
    "are excluded. Works offline. Returns doc_id, passage text, scores. Follow up with rag_get. " +
    'Example: {"query": "metformin effect on lifespan in humans", "top_k": 5}.',
  annotations: { title: "Search the local corpus", readOnlyHint: true, openWorldHint: false },
  parameters: z.object({
    query: requiredText().describe("What to look for, in plain words."),
    top_k: numeric(z.int().min(1).max(100).default(20)).describe("Papers to return (1–100)."),
    quality_bias: flag(z.boolean().default(true)).describe("Boost higher-quality evidence."),
  }),
  output: z.object({
    results: z.array(
      z.object({
        doc_id: z.string(),
        uuid: z.string(),
        sim: z.number().nullable(),
        bm25: z.number().nullable(),
        quality: z.number(),
        score: z.number(),
        title: z.string(),
        text: z.string(),
      }),
    ),
  }),
  execute: (args, { signal }) => searchCorpus(args.query, args.top_k, args.quality_bias, signal),
});
