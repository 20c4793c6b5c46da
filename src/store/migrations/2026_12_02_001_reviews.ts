/**
 * Systematic reviews (docs/reviews.md): a review, its deduplicated records with their screening
 * decisions, every hit each source returned (PRISMA's "identified"), the decisions' audit, the
 * resume points of long adds; and query_documents, the records each synced query key stored (the
 * review source "corpus").
 *
 * Deduplication looks a candidate up by each of its keys ("pmid:1", "doi:10.1/x", "pmcid:PMC1",
 * "ppr:PPR1", "title:<title key>") in review_keys, one indexed probe per key and one statement
 * per batch of candidates, instead of an index per identifier column: the ids of a record's other
 * versions (a preprint's published article) are keys of the record too, which no column holds.
 * review_keys and review_hits (three to four rows a record) have no foreign keys: the checks took
 * about a third of an add's writes on PGlite. deleteReview (src/store/reviews.ts) removes them.
 */
import { sql, type Kysely } from "kysely";

// Migrations are frozen history: they take Kysely<any>, never the evolving Database interface.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const now = sql`now()`;
const emptyList = sql`'[]'::jsonb`;
const decision = (c: string) => sql`${sql.ref(c)} in ('include', 'exclude', 'maybe')`;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("reviews")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("question", "text", (c) => c.notNull())
    .addColumn("criteria", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("revision", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`create unique index reviews_name_key on reviews (lower(name))`.execute(db);

  await db.schema
    .createTable("review_records")
    .addColumn("review_id", "text", (c) => c.notNull().references("reviews.id").onDelete("cascade"))
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("pmid", "text")
    .addColumn("doi", "text")
    .addColumn("pmcid", "text")
    .addColumn("pprid", "text")
    .addColumn("title_key", "text")
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("abstract", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("journal", "text")
    .addColumn("year", "integer")
    .addColumn("volume", "text")
    .addColumn("issue", "text")
    .addColumn("pages", "text")
    .addColumn("authors", "jsonb", (c) => c.notNull().defaultTo(emptyList))
    .addColumn("mesh", "jsonb", (c) => c.notNull().defaultTo(emptyList))
    .addColumn("pub_types", "jsonb", (c) => c.notNull().defaultTo(emptyList))
    .addColumn("notices", "jsonb")
    .addColumn("version_of", "jsonb")
    .addColumn("sources", "jsonb", (c) => c.notNull().defaultTo(emptyList))
    .addColumn("ta_decision", "text", (c) => c.check(decision("ta_decision")))
    .addColumn("ta_reason", "text")
    .addColumn("ta_at", "timestamptz")
    .addColumn("ta_order", "integer")
    .addColumn("ft_decision", "text", (c) => c.check(decision("ft_decision")))
    .addColumn("ft_reason", "text")
    .addColumn("ft_at", "timestamptz")
    .addColumn("ft_order", "integer")
    .addColumn("fulltext_available", "boolean")
    .addPrimaryKeyConstraint("review_records_pkey", ["review_id", "id"])
    .addUniqueConstraint("review_records_seq_key", ["review_id", "seq"])
    .execute();
  // decisionOrder reads these in order; a decide takes the next order from their maximum.
  for (const stage of ["ta", "ft"]) {
    await db.schema
      .createIndex(`review_records_${stage}_order_idx`)
      .on("review_records")
      .columns(["review_id", `${stage}_order`])
      .where(sql.ref(`${stage}_order`), "is not", null)
      .execute();
  }

  await db.schema
    .createTable("review_keys")
    .addColumn("review_id", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("record_id", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("review_keys_pkey", ["review_id", "key"])
    .execute();

  await db.schema
    .createTable("review_hits")
    .addColumn("review_id", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("hit_key", "text", (c) => c.notNull())
    .addColumn("record_id", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("review_hits_pkey", ["review_id", "source", "hit_key"])
    .execute();

  await db.schema
    .createTable("review_decisions")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("review_id", "text", (c) => c.notNull().references("reviews.id").onDelete("cascade"))
    .addColumn("record_id", "text", (c) => c.notNull())
    .addColumn("stage", "text", (c) =>
      c.notNull().check(sql`stage in ('title_abstract', 'full_text')`),
    )
    .addColumn("decision", "text", (c) => c.notNull().check(decision("decision")))
    .addColumn("previous", "text", (c) => c.check(decision("previous")))
    .addColumn("reason", "text")
    .addColumn("decided_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex("review_decisions_record_idx")
    .on("review_decisions")
    .columns(["review_id", "record_id", "id"])
    .execute();

  await db.schema
    .createTable("review_adds")
    .addColumn("review_id", "text", (c) => c.notNull().references("reviews.id").onDelete("cascade"))
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("next", "integer", (c) => c.notNull())
    .addColumn("total", "integer", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint("review_adds_pkey", ["review_id", "source", "key"])
    .execute();

  await db.schema
    .createTable("query_documents")
    .addColumn("query_key", "text", (c) => c.notNull())
    .addColumn("pmid", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("query_documents_pkey", ["query_key", "pmid"])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of [
    "query_documents",
    "review_adds",
    "review_decisions",
    "review_hits",
    "review_keys",
    "review_records",
    "reviews",
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
