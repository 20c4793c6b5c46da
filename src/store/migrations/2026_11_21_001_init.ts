/**
 * Initial metadata schema (the evidence corpus: docs/architecture.md#the-parts). Vector and BM25 tables belong to the vector
 * adapters and are created there.
 */
import { sql, type Kysely } from "kysely";

// Migrations are frozen history: they take Kysely<any>, never the evolving Database interface.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const now = sql`now()`;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("documents")
    .addColumn("pmid", "text", (c) => c.primaryKey())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("abstract", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("journal", "text")
    .addColumn("journal_iso", "text")
    .addColumn("issn", "text")
    .addColumn("eissn", "text")
    .addColumn("nlm_id", "text")
    .addColumn("doi", "text")
    .addColumn("pmcid", "text")
    .addColumn("pub_types", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("mesh", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("citation_subsets", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("languages", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("pdat", "text")
    .addColumn("pdat_year", "integer")
    .addColumn("edat", "timestamptz")
    .addColumn("lr", "timestamptz")
    .addColumn("is_retracted", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("quality_design", "smallint", (c) => c.notNull().defaultTo(0))
    .addColumn("quality_recency", "smallint", (c) => c.notNull().defaultTo(0))
    .addColumn("quality_journal", "smallint", (c) => c.notNull().defaultTo(0))
    .addColumn("quality_human", "smallint", (c) => c.notNull().defaultTo(0))
    .addColumn("quality_total", "smallint", (c) => c.notNull().defaultTo(0))
    .addColumn("record", "jsonb", (c) => c.notNull())
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("indexed_version", "integer")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema.createIndex("documents_edat_idx").on("documents").column("edat").execute();
  // listUnindexed filters on exactly this predicate, so the partial index stays tiny once synced.
  await db.schema
    .createIndex("documents_unindexed_idx")
    .on("documents")
    .column("updated_at")
    .where(sql.ref("indexed_version"), "is distinct from", sql.ref("version"))
    .execute();

  await db.schema
    .createTable("chunks")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("pmid", "text", (c) => c.notNull().references("documents.pmid").onDelete("cascade"))
    .addColumn("chunk_id", "text", (c) => c.notNull())
    .addColumn("ord", "integer", (c) => c.notNull())
    .addColumn("section", "text")
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("token_count", "integer", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addUniqueConstraint("chunks_pmid_chunk_id_key", ["pmid", "chunk_id"])
    .execute();

  await db.schema
    .createTable("checkpoints")
    .addColumn("query_key", "text", (c) => c.primaryKey())
    .addColumn("last_edat", "timestamptz")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable("checkpoint_audit")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("query_key", "text", (c) => c.notNull())
    .addColumn("old_edat", "timestamptz")
    .addColumn("new_edat", "timestamptz")
    .addColumn("source", "text", (c) => c.notNull().check(sql`source in ('manual', 'sync')`))
    .addColumn("note", "text")
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex("checkpoint_audit_key_idx")
    .on("checkpoint_audit")
    .columns(["query_key", "id"])
    .execute();

  await db.schema
    .createTable("sync_jobs")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("query_key", "text", (c) => c.notNull())
    .addColumn("term", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) =>
      c.notNull().check(sql`status in ('running', 'succeeded', 'failed', 'partial')`),
    )
    .addColumn("inserted", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("skipped", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("pmids_processed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_edat_seen", "timestamptz")
    .addColumn("warnings", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("error", "text")
    .addColumn("started_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("finished_at", "timestamptz")
    .execute();
  await db.schema
    .createIndex("sync_jobs_key_started_idx")
    .on("sync_jobs")
    .columns(["query_key", "started_at"])
    .execute();

  await db.schema
    .createTable("sync_progress")
    .addColumn("query_key", "text", (c) => c.primaryKey())
    .addColumn("state", "jsonb", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable("corpus_meta")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "jsonb", (c) => c.notNull())
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of [
    "corpus_meta",
    "sync_progress",
    "sync_jobs",
    "checkpoint_audit",
    "checkpoints",
    "chunks",
    "documents",
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
