import { z } from "zod";
import { SEARCH_NOTES, searchCorpus } from "../../worker/corpus-api.js";
import type { RagResult } from "../../corpus/search.js";
import { noticesSchema } from "../outputs.js";
import { flag, numeric, requiredText } from "../params.js";
import { defineTool } from "../tool.js";

/** Four significant digits: a reader compares scores, not their last bits (ranking is exact). */
const round = (x: number): number => Number(x.toPrecision(4));

/** The passage without the title every stored chunk starts with (src/corpus/chunk.ts). */
function passage(r: RagResult): string {
  const title = r.title.trim();
  if (r.text === title) return ""; // a record with no abstract is indexed by its title alone
  return r.text.startsWith(`${title}\n`) ? r.text.slice(title.length + 1) : r.text;
}

/**
 * A result as the tool returns it (issue 10, "Outputs an agent can afford"): the title once, not
 * again at the head of the passage (the index keeps it there, so a chunk reads and embeds on its
 * own), and the chunk's point id only when asked for: doc_id is what rag_get takes.
 */
function shape(r: RagResult, includeUuid: boolean) {
  return {
    doc_id: r.doc_id,
    ...(includeUuid && { uuid: r.uuid }),
    sim: r.sim === null ? null : round(r.sim),
    bm25: r.bm25 === null ? null : round(r.bm25),
    quality: r.quality,
    score: round(r.score),
    title: r.title,
    text: passage(r),
    ...(r.notices.length > 0 && { notices: r.notices }),
  };
}

export const ragSearch = defineTool({
  name: "rag_search",
  description:
    "Search the local evidence corpus (papers synced with pubmed_sync_delta) by keywords (BM25; " +
    "hybrid with meaning when an embedding model is set), best passage per paper, boosted by evidence quality " +
    "(study design, recency, journal, human studies) unless quality_bias is false. Retracted papers " +
    "are excluded. Works offline. Returns per paper doc_id, title, the passage text (without the " +
    "title) and scores to 4 significant digits; notices (corrections, expressions of concern) " +
    "where a paper has any; the chunk uuid only with include_uuid. Follow up with " +
    'rag_get. Example: {"query": "metformin effect on lifespan in humans", "top_k": 5}.',
  budget: "corpus",
  toolset: "corpus",
  annotations: { title: "Search the local corpus", readOnlyHint: true, openWorldHint: false },
  parameters: z.object({
    query: requiredText().describe("What to look for, in plain words."),
    top_k: numeric(z.int().min(1).max(100).default(10)).describe("Papers to return (1–100)."),
    quality_bias: flag(z.boolean().default(true)).describe("Boost higher-quality evidence."),
    include_uuid: flag(z.boolean().default(false)).describe(
      "Also return each passage's chunk uuid (its vector-store point id).",
    ),
  }),
  narrower: "Ask for a smaller top_k.",
  output: z.object({
    results: z.array(
      z.object({
        doc_id: z.string(),
        uuid: z.string().optional(),
        sim: z.number().nullable(),
        bm25: z.number().nullable(),
        quality: z.number(),
        score: z.number(),
        title: z.string(),
        text: z.string(),
        notices: noticesSchema.optional(),
      }),
    ),
    /** Only with no result: when the corpus holds no paper, or the query no searchable word. */
    note: z.string().optional(),
  }),
  execute: async (args, { signal }) => {
    const out = await searchCorpus(args.query, args.top_k, args.quality_bias, signal);
    return {
      results: out.results.map((r) => shape(r, args.include_uuid)),
      ...(out.why && { note: SEARCH_NOTES[out.why] }),
    };
  },
});
