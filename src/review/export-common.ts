/**
 * What the export writers share (./export.ts, ./export-bibtex.ts): the writer's shape and the
 * record's text as every format writes it.
 */
import type { Notice } from "../ncbi/notices.js";
import type { DecisionState, ReviewRecord } from "../store/review-types.js";

export interface ExportWriter {
  /** Written once, before the first batch. */
  header(): string;
  /** One batch, in order; the writer keeps what later batches depend on (BibTeX keys, commas). */
  write(records: readonly ReviewRecord[]): string;
  /** Written once, after the last batch. */
  footer(): string;
  mime: string;
  /** The file name's extension, without the dot. */
  extension: string;
}

export const isPreprint = (r: ReviewRecord): boolean =>
  r.id.startsWith("ppr:") || r.pubTypes.some((t) => /^preprint$/i.test(t.trim()));

/** One line: runs of whitespace (newlines, tabs) become one space. */
export const oneLine = (s: string | number | undefined): string =>
  String(s ?? "")
    .replace(/\s+/g, " ")
    .trim();

/** The record's landing page: PubMed, else the DOI, else Europe PMC's preprint page. */
export function urlOf(r: ReviewRecord): string | undefined {
  if (r.pmid) return `https://pubmed.ncbi.nlm.nih.gov/${r.pmid}/`;
  if (r.doi) return `https://doi.org/${r.doi}`;
  return r.pprid ? `https://europepmc.org/article/PPR/${r.pprid}` : undefined;
}

/**
 * The first range of a MEDLINE page string, expanded ("1032-48" → ["1032", "1048"]; "e123" →
 * ["e123", undefined]); CSL and the reference managers want full ranges.
 */
export function pageRange(pages: string | undefined): [string | undefined, string | undefined] {
  const first = (pages ?? "").split(/\s*,\s*/)[0]?.trim() ?? "";
  const m = /^(\w+)\s*[-–]\s*(\w+)$/.exec(first);
  if (!m?.[1] || !m[2]) return [first || undefined, undefined];
  const [start, end] = [m[1], m[2]];
  const short = /^\d+$/.test(start) && /^\d+$/.test(end) && end.length < start.length;
  return [start, short ? start.slice(0, start.length - end.length) + end : end];
}

export const noticeText = (n: Notice): string => {
  const ref = n.notice_pmid ? `PMID ${n.notice_pmid}` : n.notice_doi ? `DOI ${n.notice_doi}` : "";
  const type = n.type.replace(/_/g, " ");
  return `${type}${ref ? `: ${ref}` : ""}${n.date ? ` (${n.date})` : ""}`;
};

const decisionText = (label: string, d: DecisionState | undefined): string[] =>
  d ? [`${label}: ${d.decision}${d.reason ? ` (${oneLine(d.reason)})` : ""}`] : [];

/** Notices, then decisions: RIS N1 lines, BibTeX annote, CSL note. */
export function notes(r: ReviewRecord): string[] {
  return [
    ...r.notices.map((n) => `Notice: ${noticeText(n)}`),
    ...decisionText("Title/abstract screening", r.titleAbstract),
    ...decisionText("Full-text screening", r.fullText),
  ];
}
