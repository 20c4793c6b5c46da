/**
 * resource://pubmed/review/{review_id}/export/{format}{?which} — a review's export, whole (the
 * resource_link review_export answers with when an export does not fit inline), and
 * resource://pubmed/export/{export_id} — a pubmed_export kept for a day (docs/reviews.md).
 */
import { NotFoundError } from "../errors.js";
import { exportReview, readStoredExport } from "../worker/review-api.js";
import { EXPORT_MIME } from "../review/links.js";
import {
  EXPORT_FORMATS,
  EXPORT_WHICH,
  type ExportFormat,
  type ExportWhich,
} from "../store/review-types.js";
import { defineResourceTemplate } from "./resource.js";

/** The most bytes a review export read as a resource holds (10,000 records run to ~25 MB). */
const MAX_RESOURCE_BYTES = 64 * 1024 * 1024;

const oneOf = <T extends string>(values: readonly T[], v: string | undefined): v is T =>
  v !== undefined && (values as readonly string[]).includes(v);

export const reviewExportResource = defineResourceTemplate({
  uriTemplate: "resource://pubmed/review/{review_id}/export/{format}",
  name: "review-export",
  description:
    "A review's records, whole, as RIS, BibTeX, CSL-JSON or CSV (format: ris, bibtex, " +
    "csl_json, csv); add ?which=all, excluded or undecided (default: the included records).",
  mimeType: "text/plain",
  toolset: "review",
  query: ["which"],
  arguments: [
    { name: "review_id", description: "The review, from review_create or review_status." },
    { name: "format", description: "ris, bibtex, csl_json or csv." },
  ],
  read: async ({ review_id = "", format, which = "included" }) => {
    const uri = `resource://pubmed/review/${review_id}/export/${format}`;
    if (!oneOf<ExportFormat>(EXPORT_FORMATS, format) || !oneOf<ExportWhich>(EXPORT_WHICH, which)) {
      throw new NotFoundError(
        `Resource ${uri} not found: {format} is one of ${EXPORT_FORMATS.join(", ")} and ` +
          `?which= one of ${EXPORT_WHICH.join(", ")}.`,
      );
    }
    const r = await exportReview(review_id, format, which, MAX_RESOURCE_BYTES);
    if (r.text === undefined) {
      throw new NotFoundError(
        `Resource ${uri} is ${r.bytes} bytes, past ${MAX_RESOURCE_BYTES}: export fewer records ` +
          "(which=included) or another format.",
      );
    }
    return { text: r.text, mimeType: EXPORT_MIME[format] };
  },
});

export const pubmedExportResource = defineResourceTemplate({
  uriTemplate: "resource://pubmed/export/{export_id}",
  name: "pubmed-export",
  description:
    "An export pubmed_export wrote (when it was too large to answer inline), whole; kept for a day.",
  mimeType: "text/plain",
  toolset: "review",
  arguments: [{ name: "export_id", description: "The id in pubmed_export's uri." }],
  read: async ({ export_id = "" }) => {
    const found = /^ex-[a-z0-9]{12}$/.test(export_id) ? await readStoredExport(export_id) : null;
    if (!found) {
      throw new NotFoundError(
        `Resource resource://pubmed/export/${export_id} not found: exports are kept for a day ` +
          "after pubmed_export wrote them; call pubmed_export again.",
      );
    }
    return {
      text: found.body,
      mimeType: EXPORT_MIME[found.format as ExportFormat] ?? "text/plain",
    };
  },
});
