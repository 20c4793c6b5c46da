import { z } from "zod";
import { getPaper } from "../../worker/corpus-api.js";
import { noticesSchema, nullableText } from "../outputs.js";
import { defineTool } from "../tool.js";

/** A bare PMID (digits, or a number) is taken as its doc_id: 31452104 → "pmid:31452104"; "PMID: 1" too. */
function asDocId(value: unknown): unknown {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0)
    return `pmid:${value}`;
  if (typeof value !== "string") return value;
  const digits = /^\s*(?:pmid:\s*)?(\d{1,9})\s*$/i.exec(value)?.[1];
  return digits ? `pmid:${digits}` : value.trim();
}

export const ragGet = defineTool({
  name: "rag_get",
  description:
    "Read one paper of the local corpus by doc_id: title, abstract, journal, publication types, " +
    "dates (publication, Entrez, last revision), PMC id, its quality score with parts, the " +
    "stored version and, where any is known as of the last sync, its notices (retraction, " +
    'correction, expression of concern). Use it after rag_search. Example: {"doc_id": "pmid:31452104"}.',
  budget: "corpus",
  toolset: "corpus",
  annotations: { title: "Read a corpus paper", readOnlyHint: true, openWorldHint: false },
  parameters: z.object({
    doc_id: z
      .preprocess(
        asDocId,
        z.string().regex(/^pmid:\d{1,9}$/, { error: 'must look like "pmid:31452104"' }),
      )
      .describe('The paper\'s doc_id from rag_search, e.g. "pmid:31452104".'),
  }),
  narrower: "Read the paper in parts with pubmed_fulltext instead.",
  output: z.object({
    doc_id: z.string(),
    title: z.string(),
    abstract: z.string(),
    journal: nullableText,
    pub_types: z.array(z.string()),
    pdat: nullableText,
    edat: nullableText,
    lr: nullableText,
    pmcid: nullableText,
    quality: z.object({
      design: z.number(),
      recency: z.number(),
      journal: z.number(),
      human: z.number(),
      total: z.number(),
    }),
    version: z.int(),
    notices: noticesSchema.optional(),
  }),
  execute: (args, { signal }) => getPaper(args.doc_id.slice("pmid:".length), signal),
});
