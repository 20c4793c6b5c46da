/**
 * Systematic reviews in the metadata store (docs/reviews.md; tables in
 * migrations/2026_12_02_001_reviews.ts). This module holds the reviews themselves and the resume
 * points of long adds, and is the one door to the rest: adding records (./review-add.ts), reading
 * and exporting them (./review-records.ts), decisions (./review-decisions.ts), counts
 * (./review-counts.ts), a synced query key's records (./query-documents.ts).
 */
import { randomBytes } from "node:crypto";
import { sql, type Kysely } from "kysely";
import { ValidationError } from "../errors.js";
import { normaliseText } from "./review-keys.js";
import type { ReviewSource } from "./review-types.js";
import { finallyIncluded } from "./review-records.js";
import type { Database } from "./schema.js";
import { sqlState, storeCall } from "./store-errors.js";
import { inTransaction } from "./tx.js";

export { addCandidates, type AddOutcome, type Candidate } from "./review-add.js";
export {
  countExport,
  exportPage,
  getRecords,
  includedPmids,
  noticedRecords,
  screeningPool,
  type PoolEntry,
  screeningDocs,
  setFullTextAvailability,
  type ScreeningDoc,
} from "./review-records.js";
export { decide, decisionHistory } from "./review-decisions.js";
export { identifiedBySource, NO_REASON, prismaCounts } from "./review-counts.js";
export { candidatesFromCorpus, recordQueryDocuments } from "./query-documents.js";

type Db = Kysely<Database>;

export interface ReviewRow {
  id: string;
  name: string;
  question: string;
  criteria: string;
  /** ISO-8601 UTC. */
  created_at: string;
  /** Bumped by every change to the review's records or decisions. */
  revision: number;
}

/** Characters of the name kept in a review's id. */
const SLUG_CHARS = 32;
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

function randomSuffix(length: number): string {
  return [...randomBytes(length)].map((b) => BASE32[b % 32]).join("");
}

/**
 * A readable id: the name as a slug and a random suffix ("statin-myopathy-k3f9qa"), or "rv-" and
 * eight random characters for a name with no letter or digit in it.
 */
export function reviewId(name: string): string {
  const slug = normaliseText(name)
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, SLUG_CHARS)
    .replace(/^-+|-+$/g, "");
  return slug ? `${slug}-${randomSuffix(6)}` : `rv-${randomSuffix(8)}`;
}

const toRow = (r: {
  id: string;
  name: string;
  question: string;
  criteria: string;
  created_at: Date;
  revision: number;
}): ReviewRow => ({
  id: r.id,
  name: r.name,
  question: r.question,
  criteria: r.criteria,
  created_at: r.created_at.toISOString(),
  revision: r.revision,
});

async function reviewNamed(db: Db, name: string): Promise<{ id: string } | undefined> {
  return db
    .selectFrom("reviews")
    .select("id")
    .where(sql`lower(name)`, "=", name.toLowerCase())
    .executeTakeFirst();
}

const nameTaken = (name: string, id: string) =>
  new ValidationError(
    `A review named "${name}" exists already (review_id "${id}"). Continue it with that id, or choose another name.`,
    { review_id: id },
  );

/** Starts a review. ValidationError when the name is empty or taken (case-insensitively). */
export async function createReview(
  db: Db,
  input: { name: string; question: string; criteria: string },
  now: Date = new Date(),
): Promise<ReviewRow> {
  const name = input.name.trim();
  if (!name) throw new ValidationError("A review needs a name.");
  return storeCall("creating a review", async () => {
    const existing = await reviewNamed(db, name);
    if (existing) throw nameTaken(name, existing.id);
    try {
      const row = await db
        .insertInto("reviews")
        .values({
          id: reviewId(name),
          name,
          question: input.question,
          criteria: input.criteria,
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRow(row);
    } catch (err) {
      // Another client took the name in between.
      const other = sqlState(err) === "23505" ? await reviewNamed(db, name) : undefined;
      if (other) throw nameTaken(name, other.id);
      throw err;
    }
  });
}

export async function getReview(db: Db, id: string): Promise<ReviewRow | null> {
  const row = await storeCall("reading a review", () =>
    db.selectFrom("reviews").selectAll().where("id", "=", id).executeTakeFirst(),
  );
  return row ? toRow(row) : null;
}

/** Every review, oldest first, with its records and those finally included. */
export async function listReviews(
  db: Db,
): Promise<Array<ReviewRow & { records: number; included: number }>> {
  const { rows } = await storeCall("listing reviews", () =>
    sql<{
      id: string;
      name: string;
      question: string;
      criteria: string;
      created_at: Date;
      revision: number;
      records: number;
      included: number;
    }>`select r.*,
        (select count(*)::int from review_records x where x.review_id = r.id) as records,
        (select count(*)::int from review_records x
          where x.review_id = r.id and ${finallyIncluded(sql`r.id`)}) as included
      from reviews r order by r.created_at, r.id`.execute(db),
  );
  return rows.map((r) => ({ ...toRow(r), records: r.records, included: r.included }));
}

/**
 * Deletes a review with everything it holds; false when there was none. Its hits and keys first:
 * they have no foreign key to cascade from (migrations/2026_12_02_001_reviews.ts).
 */
export async function deleteReview(db: Db, id: string): Promise<boolean> {
  return storeCall("deleting a review", () =>
    inTransaction(db, async (trx) => {
      await trx.deleteFrom("review_hits").where("review_id", "=", id).execute();
      await trx.deleteFrom("review_keys").where("review_id", "=", id).execute();
      const r = await trx.deleteFrom("reviews").where("id", "=", id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    }),
  );
}

/** Where an add of `key` (e.g. a search term) from `source` resumes; null before the first. */
export async function getAddState(
  db: Db,
  reviewId: string,
  source: ReviewSource,
  key: string,
): Promise<{ next: number; total: number } | null> {
  const row = await storeCall("reading where an add resumes", () =>
    db
      .selectFrom("review_adds")
      .select(["next", "total"])
      .where("review_id", "=", reviewId)
      .where("source", "=", source)
      .where("key", "=", key)
      .executeTakeFirst(),
  );
  return row ?? null;
}

export async function setAddState(
  db: Db,
  reviewId: string,
  source: ReviewSource,
  key: string,
  state: { next: number; total: number },
): Promise<void> {
  await storeCall("recording where an add resumes", () =>
    db
      .insertInto("review_adds")
      .values({ review_id: reviewId, source, key, next: state.next, total: state.total })
      .onConflict((oc) =>
        oc
          .columns(["review_id", "source", "key"])
          .doUpdateSet({ next: state.next, total: state.total, updated_at: new Date() }),
      )
      .execute(),
  );
}
