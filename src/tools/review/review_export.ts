import { z } from "zod";
import { exportReview } from "../../worker/review-api.js";
import { exportLinkBlock, exportUri, INLINE_EXPORT_BYTES } from "../../review/links.js";
import { EXPORT_FORMATS, EXPORT_WHICH } from "../../store/review-types.js";
import { count } from "../outputs.js";
import { defineTool } from "../tool.js";
import { reviewIdSchema } from "./params.js";

export const exportOutput = z.object({
  format: z.enum(EXPORT_FORMATS),
  records: count,
  bytes: count,
  text: z.string().optional().describe("The export, when it fits inline."),
  uri: z
    .string()
    .optional()
    .describe("A resource to read the whole export from, when it does not."),
});

export const reviewExport = defineTool({
  name: "review_export",
  description:
    "Export a review's records for a reference manager or a spreadsheet: RIS or BibTeX " +
    "(Zotero, EndNote, Mendeley), CSL-JSON, or CSV with decisions, reasons and integrity " +
    "notices. which: included (default: the final inclusions), all, excluded or undecided. An " +
    `export up to ${INLINE_EXPORT_BYTES / 1024} KiB comes inline in text; a larger one as a ` +
    "resource_link (uri) that resources/read returns whole. Example: " +
    '{"review_id": "sglt2-in-hf-k3f9qa", "format": "ris", "which": "included"}.',
  toolset: "review",
  budget: "corpus",
  annotations: { title: "Export a review", readOnlyHint: true, openWorldHint: false },
  parameters: z.object({
    review_id: reviewIdSchema,
    format: z.enum(EXPORT_FORMATS).describe("ris, bibtex, csl_json or csv."),
    which: z.enum(EXPORT_WHICH).default("included").describe("Which records to export."),
  }),
  output: exportOutput,
  execute: async (args, { signal }) => {
    const r = await exportReview(
      args.review_id,
      args.format,
      args.which,
      INLINE_EXPORT_BYTES,
      signal,
    );
    const base = { format: args.format, records: r.count, bytes: r.bytes };
    return r.text !== undefined
      ? { ...base, text: r.text }
      : { ...base, uri: exportUri(args.review_id, args.format, args.which) };
  },
  moreContent: (result) =>
    Promise.resolve(result.uri ? [exportLinkBlock(result.uri, result.format, result.bytes)] : []),
});
