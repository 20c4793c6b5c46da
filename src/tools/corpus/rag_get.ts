import { z } from "zod";
import { getPaper } from "../../corpus/service.js";
import { defineTool } from "../tool.js";

export const ragGet = defineTool({
  name: "rag_get",
  description:
    "Read one paper of the local corpus by doc_id: title, abstract, journal, publication types, " +
    "dates (publication, Entrez, last revision), PMC id, its quality score with parts, and the " +
    'stored version. Use it after rag_search. Example: {"doc_id": "pmid:31452104"}.',
  annotations: { title: "Read a corpus paper", readOnlyHint: true, openWorldHint: false },
  parameters: z.object({
    doc_id: z
      .string()
      .trim()
      .regex(/^pmid:\d{1,9}$/, { error: 'must look like "pmid:31452104"' })
      .describe('The paper\'s doc_id from rag_search, e.g. "pmid:31452104".'),
  }),
  execute: (args) => getPaper(args.doc_id.slice("pmid:".length)),
});
