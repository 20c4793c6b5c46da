/**
 * Screening decisions (docs/reviews.md, "Screening"): the current decision of each record at each
 * stage on the record's row, every change in review_decisions (the audit), and the counts the
 * progress and the PRISMA flow diagram report.
 *
 * The full-text stage holds the records included (or maybe) at title and abstract; a record whose
 * title/abstract decision later changes to exclude keeps its full-text decision, but it is counted
 * at no full-text figure while it is out of the stage.
 */
import { sql, type Kysely } from "kysely";
import { NotFoundError, ValidationError } from "../errors.js";
import type { Decision, DecisionInput, Stage } from "./review-types.js";
import { arrayParam } from "./params.js";
import { bumpRevision, lockReview, ROWS_PER_STATEMENT, unnestRows } from "./review-records.js";
import type { Database } from "./schema.js";
import { storeCall } from "./store-errors.js";
import { inTransaction } from "./tx.js";

type Db = Kysely<Database>;

/** The column prefix of each stage on review_records. */
const PREFIX: Record<Stage, "ta" | "ft"> = { title_abstract: "ta", full_text: "ft" };

interface StageState {
  decision: Decision | null;
  reason: string | null;
  at: Date | null;
  order: number | null;
}

type RecordState = Record<Stage, StageState> & { changed: boolean };

const listIds = (ids: readonly string[]) =>
  ids
    .slice(0, 5)
    .map((id) => `"${id}"`)
    .join(", ") + (ids.length > 5 ? ` and ${ids.length - 5} more` : "");

/**
 * Records decisions in one transaction, in the order given. Nothing is written when an id is not
 * a record of the review (NotFoundError naming up to five) or a full-text decision is on a record
 * not included (or maybe) at title and abstract by then (ValidationError). The same decision and
 * reason again is `unchanged` and writes no audit row. The review's row is locked first, so two
 * calls on one review run one after the other: each change is audited with the decision it
 * replaced, and the record ends with the later call's.
 */
export async function decide(
  db: Db,
  reviewId: string,
  decisions: ReadonlyArray<DecisionInput & { stage: Stage }>,
  now: Date = new Date(),
): Promise<{ recorded: number; unchanged: number; revision?: number }> {
  if (decisions.length === 0) return { recorded: 0, unchanged: 0 };
  return storeCall("recording screening decisions", () =>
    inTransaction(db, async (trx) => {
      await lockReview(trx, reviewId);
      const ids = [...new Set(decisions.map((d) => d.id))];
      const rows = await trx
        .selectFrom("review_records")
        .select([
          "id",
          "ta_decision",
          "ta_reason",
          "ta_at",
          "ta_order",
          "ft_decision",
          "ft_reason",
          "ft_at",
          "ft_order",
        ])
        .where("review_id", "=", reviewId)
        .where("id", "=", sql<string>`any(${arrayParam(ids)}::text[])`)
        .forUpdate()
        .execute();
      const state = new Map<string, RecordState>(
        rows.map((r) => [
          r.id,
          {
            title_abstract: {
              decision: r.ta_decision,
              reason: r.ta_reason,
              at: r.ta_at,
              order: r.ta_order,
            },
            full_text: {
              decision: r.ft_decision,
              reason: r.ft_reason,
              at: r.ft_at,
              order: r.ft_order,
            },
            changed: false,
          },
        ]),
      );
      const missing = ids.filter((id) => !state.has(id));
      if (missing.length > 0) {
        throw new NotFoundError(
          `${missing.length === 1 ? "No record" : `No records`} ${listIds(missing)} in review "${reviewId}": nothing was recorded. ` +
            "Use the ids review_screen or review_export returns.",
          { missing: missing.slice(0, 5) },
        );
      }
      const { ta, ft } = await trx
        .selectFrom("review_records")
        .select((eb) => [eb.fn.max("ta_order").as("ta"), eb.fn.max("ft_order").as("ft")])
        .where("review_id", "=", reviewId)
        .executeTakeFirstOrThrow();
      const last: Record<Stage, number> = { title_abstract: ta ?? 0, full_text: ft ?? 0 };
      const audit: {
        id: string;
        stage: Stage;
        decision: Decision;
        previous: Decision | null;
        reason: string | null;
      }[] = [];
      const notInStage: string[] = [];
      let unchanged = 0;
      for (const d of decisions) {
        const s = state.get(d.id)!;
        const screened = s.title_abstract.decision;
        if (d.stage === "full_text" && screened !== "include" && screened !== "maybe") {
          notInStage.push(d.id);
          continue;
        }
        const cur = s[d.stage];
        const reason = d.reason?.trim() || null;
        if (cur.decision === d.decision && cur.reason === reason) {
          unchanged++;
          continue;
        }
        audit.push({
          id: d.id,
          stage: d.stage,
          decision: d.decision,
          previous: cur.decision,
          reason,
        });
        s[d.stage] = { decision: d.decision, reason, at: now, order: cur.order ?? ++last[d.stage] };
        s.changed = true;
      }
      if (notInStage.length > 0) {
        throw new ValidationError(
          `A full-text decision needs the record included (or maybe) at title_abstract first; ` +
            `${listIds([...new Set(notInStage)])} ${notInStage.length === 1 ? "is" : "are"} not. Nothing was recorded.`,
          { not_in_stage: [...new Set(notInStage)].slice(0, 5) },
        );
      }
      const changed = [...state].filter(([, s]) => s.changed);
      for (let i = 0; i < changed.length; i += ROWS_PER_STATEMENT) {
        const slice = changed.slice(i, i + ROWS_PER_STATEMENT);
        const cols = (["title_abstract", "full_text"] as const).flatMap((stage) => {
          const p = PREFIX[stage];
          return [
            {
              name: `${p}_decision`,
              type: "text",
              values: slice.map(([, s]) => s[stage].decision),
            },
            { name: `${p}_reason`, type: "text", values: slice.map(([, s]) => s[stage].reason) },
            {
              name: `${p}_at`,
              type: "timestamptz",
              values: slice.map(([, s]) => s[stage].at?.toISOString() ?? null),
            },
            { name: `${p}_order`, type: "integer", values: slice.map(([, s]) => s[stage].order) },
          ] as const;
        });
        const u = unnestRows([
          { name: "id", type: "text", values: slice.map(([id]) => id) },
          ...cols,
        ]);
        const set = sql.join(cols.map((c) => sql`${sql.ref(c.name)} = ${sql.ref(`u.${c.name}`)}`));
        await sql`update review_records r set ${set} from ${u.from}
          where r.review_id = ${reviewId} and r.id = u.id`.execute(trx);
      }
      for (let i = 0; i < audit.length; i += ROWS_PER_STATEMENT) {
        const slice = audit.slice(i, i + ROWS_PER_STATEMENT);
        const u = unnestRows([
          { name: "record_id", type: "text", values: slice.map((a) => a.id) },
          { name: "stage", type: "text", values: slice.map((a) => a.stage) },
          { name: "decision", type: "text", values: slice.map((a) => a.decision) },
          { name: "previous", type: "text", values: slice.map((a) => a.previous) },
          { name: "reason", type: "text", values: slice.map((a) => a.reason) },
        ]);
        // unnest yields its rows in array order: the audit's ids follow the decisions' order.
        await sql`insert into review_decisions (review_id, ${u.names}, decided_at)
          select ${reviewId}::text, ${u.values}, ${now.toISOString()}::timestamptz
          from ${u.from}`.execute(trx);
      }
      // The revision this call made, so the caller may update its caches instead of reloading.
      if (audit.length === 0) return { recorded: 0, unchanged };
      return { recorded: audit.length, unchanged, revision: await bumpRevision(trx, reviewId) };
    }),
  );
}

/** The decisions of one record, oldest first. */
export async function decisionHistory(
  db: Db,
  reviewId: string,
  recordId: string,
): Promise<
  Array<{
    stage: Stage;
    decision: Decision;
    previous: Decision | null;
    reason: string | null;
    at: string;
  }>
> {
  const rows = await storeCall("reading a record's decisions", () =>
    db
      .selectFrom("review_decisions")
      .select(["stage", "decision", "previous", "reason", "decided_at"])
      .where("review_id", "=", reviewId)
      .where("record_id", "=", recordId)
      .orderBy("id")
      .execute(),
  );
  return rows.map((r) => ({
    stage: r.stage,
    decision: r.decision,
    previous: r.previous,
    reason: r.reason,
    at: r.decided_at.toISOString(),
  }));
}
