/**
 * The Kysely `Database` interface: one type per table, mirroring the migrations in ./migrations.
 * Column names are snake_case as in SQL; repositories map rows to camelCase domain objects.
 *
 * jsonb columns take a JSON string on insert/update: node-postgres would send a JS array as a
 * Postgres array literal, not as JSON.
 */
import type { ColumnType, Generated, JSONColumnType } from "kysely";
import type { Notice } from "../eutils/notices.js";

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
   * The record's integrity notices (src/eutils/notices.ts, from the record: derived again whenever
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

export interface Database {
  documents: DocumentsTable;
  chunks: ChunksTable;
  checkpoints: CheckpointsTable;
  checkpoint_audit: CheckpointAuditTable;
  sync_jobs: SyncJobsTable;
  sync_progress: SyncProgressTable;
  corpus_meta: CorpusMetaTable;
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
] as const satisfies readonly (keyof Database)[];
