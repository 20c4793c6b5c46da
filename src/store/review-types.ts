/**
 * The shapes of systematic reviews (docs/reviews.md): a candidate record as the sources give it,
 * a stored review record, decisions, and the screening progress every screening answer carries.
 */
import type { Notice } from "../ncbi/notices.js";

export const REVIEW_SOURCES = ["pubmed", "europepmc", "corpus", "ids", "citations"] as const;
export type ReviewSource = (typeof REVIEW_SOURCES)[number];

export const STAGES = ["title_abstract", "full_text"] as const;
export type Stage = (typeof STAGES)[number];

export const DECISIONS = ["include", "exclude", "maybe"] as const;
export type Decision = (typeof DECISIONS)[number];

export const EXPORT_FORMATS = ["ris", "bibtex", "csl_json", "csv"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_WHICH = ["included", "all", "excluded", "undecided"] as const;
export type ExportWhich = (typeof EXPORT_WHICH)[number];

export interface ReviewAuthor {
  family: string;
  given?: string;
}

/**
 * A record as a source hands it to the store, before deduplication. At least one identifier
 * (pmid, doi, pmcid, pprid) and a title. `hitKey` names the hit within its source (for example
 * "pmid:1" or "ppr:PPR123"): the same hit met again from the same source is not identified twice.
 */
export interface CandidateRecord {
  pmid?: string;
  /** Lower case, without a resolver prefix. */
  doi?: string;
  /** "PMC123". */
  pmcid?: string;
  /** Europe PMC preprint id, "PPR123". */
  pprid?: string;
  title: string;
  abstract: string;
  journal?: string;
  year?: number;
  volume?: string;
  issue?: string;
  pages?: string;
  authors: ReviewAuthor[];
  mesh: string[];
  pubTypes: string[];
  notices: Notice[];
  /**
   * Ids of the other version where the source knows one: a preprint's published version or a
   * published article's preprint ("pmid:…", "doi:…", "ppr:…"). Merged into one record.
   */
  versionOf?: string[];
}

/** A candidate with the key of the hit within its source (review_hits). */
export type Candidate = CandidateRecord & { hitKey: string };

/** A stored review record: the candidate's fields, its id and its decisions. */
export interface ReviewRecord extends CandidateRecord {
  /** "pmid:<digits>", or "doi:<doi>" / "ppr:<id>" for records found only elsewhere. */
  id: string;
  /** The order it was added in (stable export order). */
  seq: number;
  sources: ReviewSource[];
  titleAbstract?: DecisionState;
  fullText?: DecisionState;
  /** Whether a full text was found for it (full-text stage); absent = not checked yet. */
  fullTextAvailable?: boolean;
}

export interface DecisionState {
  decision: Decision;
  reason?: string;
  at: string;
}

export interface DecisionInput {
  id: string;
  decision: Decision;
  reason?: string;
  stage?: Stage;
}

/** PRISMA 2020 flow counts (docs/reviews.md, "PRISMA 2020 counts"). */
export interface PrismaCounts {
  identified: number;
  identified_by_source: Partial<Record<ReviewSource, number>>;
  duplicates_removed: number;
  screened: number;
  excluded_screening: number;
  reports_sought: number;
  reports_not_retrieved: number;
  reports_assessed: number;
  /** Full-text exclusion reason → reports excluded for it (reasons are the reviewer's text). */
  excluded_full_text: Record<string, number>;
  included: number;
}

export interface Progress {
  stage: Stage;
  total: number;
  screened: number;
  included: number;
  excluded: number;
  maybe: number;
  remaining: number;
  estimated_relevant_remaining: number;
  stop_suggested: boolean;
  stop_reason: string;
}
