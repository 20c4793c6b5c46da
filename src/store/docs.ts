/**
 * Documents and their chunks. A document's `version` starts at 1 and increases when its content
 * hash changes or its last-revision date (LR) advances (docs/architecture.md#a-sync-pubmed_sync_delta); otherwise a re-sync writes
 * nothing. `indexed_version` records the version last fully indexed into the vector store.
 */
import { sql, type Kysely, type Selectable } from "kysely";
import type { Article } from "../ncbi/types.js";
import type { Notice } from "../ncbi/notices.js";
import { arrayParam, packBytes, utf8, type ArrayElement } from "./params.js";
import { decodeRecord, encodeRecord } from "./record-codec.js";
import type { Database, DocumentsTable } from "./schema.js";
import { storeCall } from "./store-errors.js";
import { inTransaction } from "./tx.js";

/** The evidence-quality score of a document (computed by src/corpus/quality.ts; docs/corpus.md). */
export interface Quality {
  design: number;
  recency: number;
  journal: number;
  human: number;
  total: number;
}

/** Everything the caller computes from an Article (src/corpus/document.ts builds it). */
export interface DocumentInput {
  pmid: string;
  title: string;
  abstract: string;
  journal: string | null;
  journalIso: string | null;
  issn: string | null;
  eissn: string | null;
  nlmId: string | null;
  doi: string | null;
  pmcid: string | null;
  pubTypes: string[];
  /** MeSH descriptor names. */
  mesh: string[];
  citationSubsets: string[];
  languages: string[];
  pdat: string | null;
  pdatYear: number | null;
  /** ISO-8601 UTC. */
  edat: string | null;
  /** ISO-8601 UTC. */
  lr: string | null;
  isRetracted: boolean;
  /** Integrity notices the record carries (noticesFromArticle); empty for nearly every record. */
  notices: Notice[];
  quality: Quality;
  record: Article;
  contentHash: string;
}

/**
 * A document to write with its record as JSON (a sync's prepared batch). The writer compresses it
 * (encodeRecord): the sync's prepare thread is the busier of the two (bench/JOURNAL.md).
 */
export type PreparedDocument = Omit<DocumentInput, "record"> & { recordJson: string };

/** What an upsert takes: the record as an Article, or as its JSON. */
export type DocumentWrite = DocumentInput | PreparedDocument;

export interface StoredDocument extends DocumentInput {
  version: number;
  indexedVersion: number | null;
  createdAt: string;
  updatedAt: string;
}

export type UpsertOutcome = "inserted" | "updated" | "skipped";

export interface UpsertResult {
  pmid: string;
  outcome: UpsertOutcome;
  version: number;
}

export {
  countChunks,
  deleteChunksOf,
  getChunks,
  getDocumentChunks,
  replaceChunks,
  replaceChunksOf,
  rowToChunk,
  type ChunkInput,
  type StoredChunk,
} from "./chunks.js";

type Db = Kysely<Database>;

/** Documents per INSERT: one array parameter per column, so only memory bounds it. */
const ROWS_PER_STATEMENT = 500;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function rowToDocument(r: Selectable<DocumentsTable>): StoredDocument {
  return {
    pmid: r.pmid,
    title: r.title,
    abstract: r.abstract,
    journal: r.journal,
    journalIso: r.journal_iso,
    issn: r.issn,
    eissn: r.eissn,
    nlmId: r.nlm_id,
    doi: r.doi,
    pmcid: r.pmcid,
    pubTypes: r.pub_types,
    mesh: r.mesh,
    citationSubsets: r.citation_subsets,
    languages: r.languages,
    pdat: r.pdat,
    pdatYear: r.pdat_year,
    edat: iso(r.edat),
    lr: iso(r.lr),
    isRetracted: r.is_retracted,
    notices: r.notices ?? [],
    quality: {
      design: r.quality_design,
      recency: r.quality_recency,
      journal: r.quality_journal,
      human: r.quality_human,
      total: r.quality_total,
    },
    record: decodeRecord(r.record),
    contentHash: r.content_hash,
    version: r.version,
    indexedVersion: r.indexed_version,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** The content columns an upsert writes (all but pmid and the bookkeeping ones). */
const CONTENT = [
  "title",
  "abstract",
  "journal",
  "journal_iso",
  "issn",
  "eissn",
  "nlm_id",
  "doi",
  "pmcid",
  "pub_types",
  "mesh",
  "citation_subsets",
  "languages",
  "pdat",
  "pdat_year",
  "edat",
  "lr",
  "is_retracted",
  "quality_design",
  "quality_recency",
  "quality_journal",
  "quality_human",
  "quality_total",
  "record",
  "content_hash",
  "notices",
] as const;

/** The notices column's value: null for none (nearly every record), so the row stays small. */
function noticesJson(d: Pick<DocumentInput, "notices">): string | null {
  return d.notices.length > 0 ? JSON.stringify(d.notices) : null;
}

/** The record as stored, from its JSON (prepared) or the Article. */
function storedRecord(d: DocumentWrite): Uint8Array {
  return encodeRecord("recordJson" in d ? d.recordJson : JSON.stringify(d.record));
}

/**
 * One statement for up to ROWS_PER_STATEMENT documents: a column per array parameter, the three
 * bulky ones (title, abstract, the compressed record: about 3 KB a record) as one blob each cut
 * apart in SQL (see params.ts). 33 parameters a statement instead of 27 a row: Postgres parses and
 * binds a few arrays rather than thousands of values, and the driver encodes no string of them.
 * `indexed`: each written row is marked indexed at its new version in the same write.
 */
function upsertStatement(docs: DocumentWrite[], indexed: boolean) {
  const col = (f: (d: DocumentWrite) => ArrayElement): string => arrayParam(docs.map(f));
  const titles = packBytes(docs.map((d) => utf8(d.title)));
  const abstracts = packBytes(docs.map((d) => utf8(d.abstract)));
  const records = packBytes(docs.map(storedRecord));
  const cut = (blob: Buffer, start: string, length: string) =>
    sql`convert_from(substring(${blob}::bytea from ${sql.ref(start)} for ${sql.ref(length)}), 'UTF8')`;
  const update = sql.join(CONTENT.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`));
  // An insert is version 1; an update's new version is documents.version + 1.
  const mark = indexed
    ? {
        column: sql`indexed_version, `,
        value: sql`1, `,
        update: sql`, indexed_version = documents.version + 1`,
      }
    : { column: sql``, value: sql``, update: sql`` };
  return sql<{ pmid: string; version: number }>`insert into documents
      (pmid, ${mark.column}${sql.join(CONTENT.map((c) => sql.ref(c)))})
    select pmid, ${mark.value}${cut(titles.blob, "t_start", "t_length")}, ${cut(abstracts.blob, "a_start", "a_length")},
      journal, journal_iso, issn, eissn, nlm_id, doi, pmcid,
      pub_types::jsonb, mesh::jsonb, citation_subsets::jsonb, languages::jsonb,
      pdat, pdat_year, edat, lr, is_retracted,
      quality_design, quality_recency, quality_journal, quality_human, quality_total,
      substring(${records.blob}::bytea from r_start for r_length), content_hash, notices::jsonb
    from unnest(${col((d) => d.pmid)}::text[],
      ${arrayParam(titles.starts)}::int[], ${arrayParam(titles.lengths)}::int[],
      ${arrayParam(abstracts.starts)}::int[], ${arrayParam(abstracts.lengths)}::int[],
      ${col((d) => d.journal)}::text[], ${col((d) => d.journalIso)}::text[],
      ${col((d) => d.issn)}::text[], ${col((d) => d.eissn)}::text[],
      ${col((d) => d.nlmId)}::text[], ${col((d) => d.doi)}::text[], ${col((d) => d.pmcid)}::text[],
      ${col((d) => JSON.stringify(d.pubTypes))}::text[], ${col((d) => JSON.stringify(d.mesh))}::text[],
      ${col((d) => JSON.stringify(d.citationSubsets))}::text[],
      ${col((d) => JSON.stringify(d.languages))}::text[],
      ${col((d) => d.pdat)}::text[], ${col((d) => d.pdatYear)}::int[],
      ${col((d) => d.edat)}::timestamptz[], ${col((d) => d.lr)}::timestamptz[],
      ${col((d) => d.isRetracted)}::boolean[],
      ${col((d) => d.quality.design)}::smallint[], ${col((d) => d.quality.recency)}::smallint[],
      ${col((d) => d.quality.journal)}::smallint[], ${col((d) => d.quality.human)}::smallint[],
      ${col((d) => d.quality.total)}::smallint[],
      ${arrayParam(records.starts)}::int[], ${arrayParam(records.lengths)}::int[],
      ${col((d) => d.contentHash)}::text[], ${col(noticesJson)}::text[])
      as u(pmid, t_start, t_length, a_start, a_length, journal, journal_iso, issn, eissn, nlm_id,
        doi, pmcid, pub_types, mesh, citation_subsets, languages, pdat, pdat_year, edat, lr,
        is_retracted, quality_design, quality_recency, quality_journal, quality_human,
        quality_total, r_start, r_length, content_hash, notices)
    on conflict (pmid) do update set ${update}, version = documents.version + 1, updated_at = now()${mark.update}
      -- The versioning rule; when false Postgres writes nothing and returns no row.
      where documents.content_hash <> excluded.content_hash
        or (excluded.lr is not null and (documents.lr is null or excluded.lr > documents.lr))
    returning pmid, version`;
}

/**
 * Inserts new documents and updates changed ones in one transaction. Unchanged documents (same
 * hash, LR not later than stored) are skipped without a write. One result per distinct pmid, in
 * input order; for a pmid given twice the last occurrence wins. With `indexed`, only inside a
 * transaction that also writes the documents' chunks and vectors, the written rows are marked
 * indexed at once (no second row version, as markIndexed would write).
 */
export async function upsertDocuments(
  db: Db,
  docs: DocumentWrite[],
  opts: { indexed?: boolean } = {},
): Promise<UpsertResult[]> {
  const byPmid = new Map(docs.map((d) => [d.pmid, d]));
  if (byPmid.size === 0) return [];
  const unique = [...byPmid.values()];
  return storeCall("saving documents", () =>
    inTransaction(db, async (trx) => {
      const written = new Map<string, number>();
      for (let i = 0; i < unique.length; i += ROWS_PER_STATEMENT) {
        // An update overwrites the content columns; version, created_at stay, and so does
        // indexed_version unless `indexed` sets it.
        const slice = unique.slice(i, i + ROWS_PER_STATEMENT);
        const { rows } = await upsertStatement(slice, opts.indexed === true).execute(trx);
        for (const r of rows) written.set(r.pmid, r.version);
      }
      const skipped = unique.map((d) => d.pmid).filter((p) => !written.has(p));
      const kept = new Map<string, number>();
      if (skipped.length > 0) {
        const rows = await trx
          .selectFrom("documents")
          .select(["pmid", "version"])
          .where("pmid", "in", skipped)
          .execute();
        for (const r of rows) kept.set(r.pmid, r.version);
      }
      return unique.map(({ pmid }): UpsertResult => {
        const v = written.get(pmid);
        // An insert always yields version 1 and an update always more, so 1 means inserted.
        if (v !== undefined) return { pmid, outcome: v === 1 ? "inserted" : "updated", version: v };
        return { pmid, outcome: "skipped", version: kept.get(pmid) ?? 0 };
      });
    }),
  );
}

export async function getDocument(db: Db, pmid: string): Promise<StoredDocument | null> {
  const row = await storeCall("reading a document", () =>
    db.selectFrom("documents").selectAll().where("pmid", "=", pmid).executeTakeFirst(),
  );
  return row ? rowToDocument(row) : null;
}

/** Stored documents among `pmids`, in the order asked; unknown pmids are left out. */
export async function getDocuments(db: Db, pmids: string[]): Promise<StoredDocument[]> {
  if (pmids.length === 0) return [];
  const rows = await storeCall("reading documents", () =>
    db.selectFrom("documents").selectAll().where("pmid", "in", pmids).execute(),
  );
  const byPmid = new Map(rows.map((r) => [r.pmid, rowToDocument(r)]));
  return pmids.flatMap((p) => byPmid.get(p) ?? []);
}

/**
 * The integrity notices of those of `pmids` that have any (rag_search reads them here for the
 * results whose payload has none: Qdrant points written before payloads carried them).
 */
export async function getNotices(db: Db, pmids: string[]): Promise<Map<string, Notice[]>> {
  if (pmids.length === 0) return new Map();
  const rows = await storeCall("reading notices", () =>
    db
      .selectFrom("documents")
      .select(["pmid", "notices"])
      .where("pmid", "in", pmids)
      .where("notices", "is not", null)
      .execute(),
  );
  return new Map(rows.map((r) => [r.pmid, r.notices ?? []]));
}

/** Documents whose current version is not yet indexed, oldest change first. */
export async function listUnindexed(
  db: Db,
  limit: number,
): Promise<{ pmid: string; version: number }[]> {
  return storeCall("listing documents to index", () =>
    db
      .selectFrom("documents")
      .select(["pmid", "version"])
      // Same predicate as documents_unindexed_idx, so the partial index serves it.
      .where(sql.ref("indexed_version"), "is distinct from", sql.ref("version"))
      .orderBy("updated_at")
      .orderBy("pmid")
      .limit(limit)
      .execute(),
  );
}

/** Those of `pmids` stored with their current version not yet indexed (a light read: no record). */
export async function listUnindexedOf(db: Db, pmids: string[]): Promise<string[]> {
  if (pmids.length === 0) return [];
  const rows = await storeCall("listing documents to index", () =>
    db
      .selectFrom("documents")
      .select("pmid")
      .where("pmid", "in", pmids)
      .where(sql.ref("indexed_version"), "is distinct from", sql.ref("version"))
      .execute(),
  );
  return rows.map((r) => r.pmid);
}

/**
 * Records that these versions are indexed. A document re-versioned meanwhile stays unindexed:
 * only rows whose version still equals the indexed one are marked. Returns the rows marked.
 */
export async function markIndexed(
  db: Db,
  items: { pmid: string; version: number }[],
): Promise<number> {
  const byVersion = new Map<number, string[]>();
  for (const { pmid, version } of items) {
    const pmids = byVersion.get(version);
    if (pmids) pmids.push(pmid);
    else byVersion.set(version, [pmid]);
  }
  const mark = async (trx: Db): Promise<number> => {
    let marked = 0;
    for (const [version, pmids] of byVersion) {
      const r = await trx
        .updateTable("documents")
        .set({ indexed_version: version })
        .where("pmid", "in", pmids)
        .where("version", "=", version)
        .executeTakeFirst();
      marked += Number(r.numUpdatedRows);
    }
    return marked;
  };
  // One statement (a sync's batch: all versions alike) is atomic by itself: no begin/commit.
  return storeCall("marking documents indexed", () =>
    byVersion.size === 1 ? mark(db) : inTransaction(db, mark),
  );
}

export async function countDocuments(db: Db): Promise<number> {
  const r = await storeCall("counting documents", () =>
    db
      .selectFrom("documents")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow(),
  );
  return Number(r.n);
}

/**
 * Marks every document unindexed, so the indexer rebuilds all vectors (reindex, or a vector store
 * found empty). Returns how many were marked indexed before.
 */
export async function markAllUnindexed(db: Db): Promise<number> {
  const r = await storeCall("marking documents for reindexing", () =>
    db
      .updateTable("documents")
      .set({ indexed_version: null })
      .where("indexed_version", "is not", null)
      .executeTakeFirst(),
  );
  return Number(r.numUpdatedRows);
}
