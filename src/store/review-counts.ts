/**
 * The counts of a review: hits per source and the PRISMA 2020 flow diagram's figures (a stage's
 * progress is counted from its pool: src/review/screen.ts).
 */
import { sql, type Kysely } from "kysely";
import type { PrismaCounts, ReviewSource } from "./review-types.js";
import { finallyIncluded, IN_FULL_TEXT } from "./review-records.js";
import type { Database } from "./schema.js";
import { storeCall } from "./store-errors.js";

type Db = Kysely<Database>;

/** Hits per source (PRISMA's records identified from each). */
export async function identifiedBySource(
  db: Db,
  reviewId: string,
): Promise<Partial<Record<ReviewSource, number>>> {
  const rows = await storeCall("counting a review's hits", () =>
    db
      .selectFrom("review_hits")
      .select(["source", (eb) => eb.fn.countAll<string>().as("n")])
      .where("review_id", "=", reviewId)
      .groupBy("source")
      .orderBy("source")
      .execute(),
  );
  return Object.fromEntries(rows.map((r) => [r.source, Number(r.n)]));
}

/** The reason a full-text exclusion is counted under when it has none. */
export const NO_REASON = "no reason given";

/**
 * The PRISMA 2020 flow diagram's figures:
 * - identified: hits, all sources (by source: identified_by_source); duplicates_removed: hits
 *   less records (each record is one hit kept, every other hit of it a duplicate);
 * - screened: records decided at title_abstract; excluded_screening: excluded there;
 * - reports_sought: included or maybe at title_abstract (the full-text stage);
 *   reports_not_retrieved: of those, full text not found and no full-text decision;
 *   reports_assessed: of those, decided at full_text; excluded_full_text: excluded there, by
 *   reason (NO_REASON when none was given);
 * - included: included at full_text; while no record has a full-text decision (a review screened
 *   at title and abstract only), included at title_abstract instead.
 */
export async function prismaCounts(db: Db, reviewId: string): Promise<PrismaCounts> {
  return storeCall("counting the PRISMA figures", async () => {
    const bySource = await identifiedBySource(db, reviewId);
    const identified = Object.values(bySource).reduce((a, b) => a + b, 0);
    const { rows } = await sql<{
      records: number;
      screened: number;
      excluded_screening: number;
      reports_sought: number;
      reports_not_retrieved: number;
      reports_assessed: number;
      included: number;
    }>`select count(*)::int as records,
        count(ta_decision)::int as screened,
        count(*) filter (where ta_decision = 'exclude')::int as excluded_screening,
        count(*) filter (where ${IN_FULL_TEXT})::int as reports_sought,
        count(*) filter (where ${IN_FULL_TEXT} and fulltext_available = false
          and ft_decision is null)::int as reports_not_retrieved,
        count(*) filter (where ${IN_FULL_TEXT} and ft_decision is not null)::int as reports_assessed,
        count(*) filter (where ${finallyIncluded(reviewId)})::int as included
      from review_records where review_id = ${reviewId}`.execute(db);
    const c = rows[0]!;
    const reasons = await sql<{ reason: string; n: number }>`select
        coalesce(nullif(btrim(ft_reason), ''), ${NO_REASON}) as reason, count(*)::int as n
      from review_records
      where review_id = ${reviewId} and ft_decision = 'exclude' and ${IN_FULL_TEXT}
      group by 1 order by 2 desc, 1`.execute(db);
    return {
      identified,
      identified_by_source: bySource,
      duplicates_removed: identified - c.records,
      screened: c.screened,
      excluded_screening: c.excluded_screening,
      reports_sought: c.reports_sought,
      reports_not_retrieved: c.reports_not_retrieved,
      reports_assessed: c.reports_assessed,
      excluded_full_text: Object.fromEntries(reasons.rows.map((r) => [r.reason, r.n])),
      included: c.included,
    };
  });
}
