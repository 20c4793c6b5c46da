/**
 * Exports too large for an answer travel as a resource_link to a resource the client reads whole
 * (docs/reviews.md, "Export"): resource://pubmed/review/{review_id}/export/{format}?which=…
 */
import type { ExportFormat, ExportWhich } from "../store/review-types.js";

/** The largest export returned inline (bytes of the export text); larger ones are linked. */
export const INLINE_EXPORT_BYTES = 64 * 1024;

export const EXPORT_MIME: Record<ExportFormat, string> = {
  ris: "application/x-research-info-systems",
  bibtex: "application/x-bibtex",
  csl_json: "application/vnd.citationstyles.csl+json",
  csv: "text/csv",
};

export function exportUri(reviewId: string, format: ExportFormat, which: ExportWhich): string {
  const base = `resource://pubmed/review/${encodeURIComponent(reviewId)}/export/${format}`;
  return which === "included" ? base : `${base}?which=${which}`;
}

const EXTENSION: Record<ExportFormat, string> = {
  ris: "ris",
  bibtex: "bib",
  csl_json: "json",
  csv: "csv",
};

/** The content block that links a large export (`name` is a file name a client may save it as). */
export function exportLinkBlock(uri: string, format: ExportFormat, bytes: number, stem = "review") {
  return {
    type: "resource_link" as const,
    uri,
    name: `${stem}.${EXTENSION[format]}`,
    mimeType: EXPORT_MIME[format],
    size: bytes,
  };
}
