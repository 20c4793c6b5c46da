/**
 * The Kysely `Database` interface: one type per table, mirroring the migrations in ./migrations.
 * Column names are snake_case as in SQL; repositories map rows to camelCase domain objects.
 *
 * jsonb columns take a JSON string on insert/update: node-postgres would send a JS array as a
 * Postgres array literal, not as JSON.
 */
import type { ColumnType, Generated, JSONColumnType } from "kysely";
import type { Notice } from "../ncbi/notices.js";
import type { Decision, ReviewAuthor, ReviewSource, Stage } from "./review-types.js";

/** timestamptz: read as Date (node-postgres parses it), written as ISO-8601 text or Date. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null, Date | string | null>;
export type CreatedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface DocumentsTable {
  pmid: string;
  title: string;
  abstract: string;
  journal: string | null;
  journal_iso: string | null;
  issn: string | null;
  eissn: string | null;
  nlm_id: string | null;
  doi: string | null;
  pmcid: string | null;
  pub_types: JSONColumnType<string[]>;
  mesh: JSONColumnType<string[]>;
  citation_subsets: JSONColumnType<string[]>;
  languages: JSONColumnType<string[]>;
  /** "YYYY", "YYYY-MM", "YYYY-MM-DD", or the MedlineDate text (e.g. "1998 Dec-1999 Jan"). */
  pdat: string | null;
  pdat_year: number | null;
  edat: NullableTimestamp;
  lr: NullableTimestamp;
  is_retracted: boolean;
  quality_design: number;
  quality_recency: number;
  quality_journal: number;
  quality_human: number;
  quality_total: number;
  /** The Article as compressed JSON (../store/record-codec.ts; nothing queries inside it). */
  record: Uint8Array;
  content_hash: string;
  /**
   * The record's integrity notices (src/ncbi/notices.ts, from the record: derived again whenever
   * the record is written); null when it has none, as nearly every row.
   */
  notices: ColumnType<Notice[] | null, string | null, string | null>;
  /** Starts at 1; bumped when the content hash changes or LR advances. */
  version: Generated<number>;
  /** The version last fully indexed into the vector store; null = never. */
  indexed_version: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: CreatedTimestamp;
  updated_at: CreatedTimestamp;
}

export interface ChunksTable {
  /** uuid5(namespace, "<pmid>:<chunk_id>"), computed by the caller so ids are stable. */
  id: string;
  pmid: string;
  chunk_id: string;
  ord: number;
  section: string | null;
  text: string;
  token_count: number;
  version: number;
}

export interface CheckpointsTable {
  query_key: string;
  /** Arrivals: the end of the last create-date (CRDT) window fully stored and indexed. */
  last_edat: NullableTimestamp;
  /** Revisions: the end of the last modification-date (MDAT) window fully stored and indexed. */
  last_mdat: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  updated_at: CreatedTimestamp;
}

export type CheckpointSource = "manual" | "sync";

export interface CheckpointAuditTable {
  /** bigserial: node-postgres returns int8 as a string. */
  id: ColumnType<string, never, never>;
  query_key: string;
  old_edat: NullableTimestamp;
  new_edat: NullableTimestamp;
  old_mdat: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  new_mdat: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  source: CheckpointSource;
  note: string | null;
  at: CreatedTimestamp;
}

/**
 * `partial`: max_records stopped it (call again); `rate_limited`: NCBI asked for a longer pause
 * than a sync waits; `abandoned`: its process died mid-sync (marked when a store next opens).
 */
export type JobStatus =
  "running" | "succeeded" | "failed" | "partial" | "rate_limited" | "abandoned";

export interface SyncJobsTable {
  id: string;
  query_key: string;
  term: string;
  status: JobStatus;
  inserted: Generated<number>;
  updated: Generated<number>;
  skipped: Generated<number>;
  pmids_processed: Generated<number>;
  max_edat_seen: NullableTimestamp;
  warnings: JSONColumnType<string[], string | undefined, string>;
  error: string | null;
  started_at: CreatedTimestamp;
  finished_at: NullableTimestamp;
}

export interface SyncProgressTable {
  query_key: string;
  state: JSONColumnType<object>;
  updated_at: CreatedTimestamp;
}

export interface CorpusMetaTable {
  key: string;
  /** Any JSON value; typed loosely because callers store scalars as well as objects. */
  value: ColumnType<unknown, string, string>;
}

export interface ReviewsTable {
  /** A slug of the name and a random suffix, e.g. "statin-myopathy-k3f9qa" (src/store/reviews.ts). */
  id: string;
  /** Unique case-insensitively (index on lower(name)). */
  name: string;
  question: string;
  criteria: string;
  created_at: CreatedTimestamp;
  /** Bumped by every change to the review's records or decisions: caches compare it. */
  revision: ColumnType<number, number | undefined, number>;
}

type JsonList<T> = ColumnType<T[], string | undefined, string>;
type DecisionColumn = Decision | null;

export interface ReviewRecordsTable {
  review_id: string;
  /** "pmid:<digits>", else "doi:<doi>", "ppr:<id>" or "pmcid:<PMCID>"; stable once given. */
  id: string;
  /** The order added in, per review from 1 (export order). */
  seq: number;
  pmid: string | null;
  doi: string | null;
  pmcid: string | null;
  pprid: string | null;
  title_key: string | null;
  title: string;
  abstract: string;
  journal: string | null;
  year: number | null;
  volume: string | null;
  issue: string | null;
  pages: string | null;
  authors: JsonList<ReviewAuthor>;
  mesh: JsonList<string>;
  pub_types: JsonList<string>;
  /** Null when none is known, as nearly every row. */
  notices: ColumnType<Notice[] | null, string | null, string | null>;
  /** Ids of the record's other versions (CandidateRecord.versionOf); null when none. */
  version_of: ColumnType<string[] | null, string | null, string | null>;
  sources: JsonList<ReviewSource>;
  ta_decision: DecisionColumn;
  ta_reason: string | null;
  ta_at: NullableTimestamp;
  /** The order of the record's first title/abstract decision in its review (stopping rule). */
  ta_order: number | null;
  ft_decision: DecisionColumn;
  ft_reason: string | null;
  ft_at: NullableTimestamp;
  ft_order: number | null;
  fulltext_available: boolean | null;
}

/** Every match key of a review's records: identifiers, title keys and their versions' ids. */
export interface ReviewKeysTable {
  review_id: string;
  /** "pmid:1", "doi:10.1/x", "pmcid:PMC1", "ppr:PPR1" or "title:<title key>" (src/store/review-keys.ts). */
  key: string;
  record_id: string;
}

/** Every hit a source returned: the same (source, hit_key) again is not identified twice. */
export interface ReviewHitsTable {
  review_id: string;
  source: ReviewSource;
  hit_key: string;
  record_id: string;
}

export interface ReviewDecisionsTable {
  /** bigserial: node-postgres returns int8 as a string. */
  id: ColumnType<string, never, never>;
  review_id: string;
  record_id: string;
  stage: Stage;
  decision: Decision;
  /** The decision it replaced; null for the record's first at the stage. */
  previous: DecisionColumn;
  reason: string | null;
  decided_at: CreatedTimestamp;
}

/** Where a long add (a PubMed search past one call) resumes. */
export interface ReviewAddsTable {
  review_id: string;
  source: ReviewSource;
  /** What was added, e.g. the search term. */
  key: string;
  /** Records handed over so far. */
  next: number;
  total: number;
  updated_at: CreatedTimestamp;
}

/** The records each synced query key stored (a sync writes them with each batch). */
export interface QueryDocumentsTable {
  query_key: string;
  pmid: string;
}

/** pubmed_export answers kept for resources/read (src/store/exports.ts). */
export interface ExportsTable {
  id: string;
  format: string;
  body: string;
  created_at: CreatedTimestamp;
}

export interface Database {
  documents: DocumentsTable;
  chunks: ChunksTable;
  checkpoints: CheckpointsTable;
  checkpoint_audit: CheckpointAuditTable;
  sync_jobs: SyncJobsTable;
  sync_progress: SyncProgressTable;
  corpus_meta: CorpusMetaTable;
  reviews: ReviewsTable;
  review_records: ReviewRecordsTable;
  review_keys: ReviewKeysTable;
  review_hits: ReviewHitsTable;
  review_decisions: ReviewDecisionsTable;
  review_adds: ReviewAddsTable;
  query_documents: QueryDocumentsTable;
  exports: ExportsTable;
}

/** Every table this layer owns, in an order safe for TRUNCATE … CASCADE (tests, resets). */
export const STORE_TABLES = [
  "chunks",
  "documents",
  "checkpoint_audit",
  "checkpoints",
  "sync_jobs",
  "sync_progress",
  "corpus_meta",
  "review_hits",
  "review_keys",
  "review_decisions",
  "review_adds",
  "review_records",
  "reviews",
  "query_documents",
  "exports",
] as const satisfies readonly (keyof Database)[];
