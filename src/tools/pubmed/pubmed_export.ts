import { z } from "zod";
import { ValidationError } from "../../errors.js";
import { exportPubmed } from "../../worker/review-api.js";
import { exportLinkBlock, INLINE_EXPORT_BYTES } from "../../review/links.js";
import { EXPORT_FORMATS } from "../../store/review-types.js";
import { count } from "../outputs.js";
import { MAX_QUERY_CHARS, numeric, pmidListSchema, requiredText } from "../params.js";
import { defineTool } from "../tool.js";

/** The most records one export holds (PubMed's history server hands out 10,000). */
const MAX_EXPORT_RECORDS = 10_000;

export const pubmedExport = defineTool({
  name: "pubmed_export",
  description:
    "Export every record of a PubMed search (term, through NCBI's history server) or of a " +
    "PMID list, for a reference manager or a spreadsheet: RIS or BibTeX (Zotero, EndNote, " +
    "Mendeley), CSL-JSON, or CSV with integrity notices; up to 10,000 records. An export up to " +
    `${INLINE_EXPORT_BYTES / 1024} KiB comes inline in text; a larger one as a resource_link ` +
    "(uri) that resources/read returns whole for a day. Reports progress. Example: " +
    '{"term": "sglt2 inhibitors AND heart failure AND randomized controlled trial[pt]", "format": "ris"}.',
  toolset: "review",
  noDeadline: true,
  annotations: { title: "Export PubMed records", readOnlyHint: true, openWorldHint: true },
  parameters: z.object({
    term: requiredText(MAX_QUERY_CHARS)
      .optional()
      .describe("A PubMed query: every record it finds."),
    pmids: pmidListSchema(MAX_EXPORT_RECORDS)
      .optional()
      .describe("PMIDs to export, instead of term."),
    format: z.enum(EXPORT_FORMATS).describe("ris, bibtex, csl_json or csv."),
    max_records: numeric(
      z.int().min(1).max(MAX_EXPORT_RECORDS).default(MAX_EXPORT_RECORDS),
    ).describe("Most records of the search to export."),
  }),
  output: z.object({
    format: z.enum(EXPORT_FORMATS),
    records: count,
    remaining: count.optional().describe("Records the search has beyond max_records."),
    bytes: count,
    text: z.string().optional().describe("The export, when it fits inline."),
    uri: z
      .string()
      .optional()
      .describe("A resource to read the whole export from, when it does not."),
  }),
  execute: async (args, { signal, reportProgress }) => {
    if (!args.term === !args.pmids) {
      throw new ValidationError(
        'Give either term (a PubMed query) or pmids, e.g. {"term": "asthma AND montelukast", "format": "ris"}.',
      );
    }
    const r = await exportPubmed(
      {
        ...(args.term ? { term: args.term } : { pmids: args.pmids }),
        format: args.format,
        maxRecords: args.max_records,
        inlineBytes: INLINE_EXPORT_BYTES,
      },
      { signal, onProgress: (done, total, message) => reportProgress(done, total, message) },
    );
    const { exportId, ...rest } = r;
    return exportId
      ? { format: args.format, ...rest, uri: `resource://pubmed/export/${exportId}` }
      : { format: args.format, ...rest };
  },
  moreContent: (result) =>
    Promise.resolve(
      result.uri ? [exportLinkBlock(result.uri, result.format, result.bytes, "pubmed-export")] : [],
    ),
});
