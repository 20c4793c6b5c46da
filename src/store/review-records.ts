/**
 * A review's records as the service reads them (docs/reviews.md): by id, for screening, for
 * export in the order added; and the pieces the other review modules share (the review's lock,
 * its revision, bulk rows as array parameters, the final-inclusion rule).
 */
import { sql, type Kysely, type RawBuilder, type Selectable } from "kysely";
import { NotFoundError } from "../errors.js";
import type { Decision, ExportWhich, ReviewRecord, Stage } from "./review-types.js";
import { arrayParam, type ArrayElement } from "./params.js";
import type { Database, ReviewRecordsTable } from "./schema.js";
import { storeCall } from "./store-errors.js";
import { inTransaction } from "./tx.js";

type Db = Kysely<Database>;

/** Rows per bulk statement: one array parameter per column, a few MB of text at most. */
export const ROWS_PER_STATEMENT = 1000;

/**
 * Locks the review's row for the rest of the transaction: adds and decisions on one review run
 * one after the other (the order counters and the dedup lookups need it); other reviews are not
 * held. NotFoundError when there is no such review.
 */
export async function lockReview(trx: Db, reviewId: string): Promise<void> {
  const row = await trx
    .selectFrom("reviews")
    .select("id")
    .where("id", "=", reviewId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) {
    throw new NotFoundError(
      `No review "${reviewId}". review_status without review_id lists the reviews; review_create starts one.`,
      { review_id: reviewId },
    );
  }
}

/**
 * Marks the review changed: caches keyed by its revision (the screener) rebuild. Returns the new
 * revision (under the review's lock, the one before it is this less one).
 */
export async function bumpRevision(trx: Db, reviewId: string): Promise<number> {
  const row = await trx
    .updateTable("reviews")
    .set((eb) => ({ revision: eb("revision", "+", 1) }))
    .where("id", "=", reviewId)
    .returning("revision")
    .executeTakeFirst();
  return row?.revision ?? 0;
}

export interface BulkColumn {
  name: string;
  /** The SQL type of the column; jsonb travels as text and is cast. */
  type: "text" | "integer" | "boolean" | "timestamptz" | "jsonb";
  values: readonly ArrayElement[];
}

/**
 * `unnest(...) as u(<names>)` over one array parameter per column, and the select list of those
 * columns (jsonb cast): many rows in one statement without a parameter per value.
 */
export function unnestRows(cols: readonly BulkColumn[]): {
  from: RawBuilder<unknown>;
  names: RawBuilder<unknown>;
  values: RawBuilder<unknown>;
} {
  const arg = (c: BulkColumn) =>
    sql`${arrayParam(c.values)}::${sql.raw(c.type === "jsonb" ? "text" : c.type)}[]`;
  const names = sql.join(cols.map((c) => sql.ref(c.name)));
  return {
    from: sql`unnest(${sql.join(cols.map(arg))}) as u(${names})`,
    names,
    values: sql.join(
      cols.map((c) =>
        c.type === "jsonb" ? sql`${sql.ref(`u.${c.name}`)}::jsonb` : sql.ref(`u.${c.name}`),
      ),
    ),
  };
}

/** In the full-text stage: included or maybe at title and abstract. */
export const IN_FULL_TEXT = sql<boolean>`ta_decision in ('include', 'maybe')`;

/**
 * Whether a record of `reviewId` is finally included (PRISMA's "studies included"): included at
 * full text once any record of the review has a full-text decision; before that, included at
 * title and abstract (a review screened at one stage only).
 */
export function finallyIncluded(reviewId: RawBuilder<unknown> | string): RawBuilder<boolean> {
  const id = typeof reviewId === "string" ? sql`${reviewId}` : reviewId;
  return sql<boolean>`(case when exists (select 1 from review_records f
      where f.review_id = ${id} and f.ft_order is not null and f.ta_decision in ('include', 'maybe'))
    then ft_decision = 'include' and ${IN_FULL_TEXT} else ta_decision = 'include' end)`;
}

const optional = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

export function rowToRecord(r: Selectable<ReviewRecordsTable>): ReviewRecord {
  const state = (decision: Decision | null, reason: string | null, at: Date | null) =>
    decision && at
      ? { decision, ...(reason !== null && { reason }), at: at.toISOString() }
      : undefined;
  const rec: ReviewRecord = {
    id: r.id,
    seq: r.seq,
    pmid: optional(r.pmid),
    doi: optional(r.doi),
    pmcid: optional(r.pmcid),
    pprid: optional(r.pprid),
    title: r.title,
    abstract: r.abstract,
    journal: optional(r.journal),
    year: optional(r.year),
    volume: optional(r.volume),
    issue: optional(r.issue),
    pages: optional(r.pages),
    authors: r.authors,
    mesh: r.mesh,
    pubTypes: r.pub_types,
    notices: r.notices ?? [],
    versionOf: optional(r.version_of),
    sources: r.sources,
    titleAbstract: state(r.ta_decision, r.ta_reason, r.ta_at),
    fullText: state(r.ft_decision, r.ft_reason, r.ft_at),
    fullTextAvailable: optional(r.fulltext_available),
  };
  // Absent rather than undefined, so results compare and serialise as written.
  for (const k of Object.keys(rec) as (keyof ReviewRecord)[]) {
    if (rec[k] === undefined) delete rec[k];
  }
  return rec;
}

/** The review's records among `ids`, in the order asked; unknown ids are left out. */
export async function getRecords(
  db: Db,
  reviewId: string,
  ids: readonly string[],
): Promise<ReviewRecord[]> {
  if (ids.length === 0) return [];
  const rows = await storeCall("reading review records", () =>
    db
      .selectFrom("review_records")
      .selectAll()
      .where("review_id", "=", reviewId)
      .where("id", "=", sql<string>`any(${arrayParam([...new Set(ids)])}::text[])`)
      .execute(),
  );
  const byId = new Map(rows.map((r) => [r.id, rowToRecord(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export interface ScreeningDoc {
  id: string;
  title: string;
  abstract: string;
  mesh: string[];
  pubTypes: string[];
  decision?: Decision;
}

/**
 * The records to screen at `stage`, in the order added, with their decision there: every record
 * at title and abstract; at full text only those included (or maybe) at title and abstract.
 */
export async function screeningDocs(
  db: Db,
  reviewId: string,
  stage: Stage,
): Promise<ScreeningDoc[]> {
  const column = stage === "title_abstract" ? "ta_decision" : "ft_decision";
  const rows = await storeCall("reading records to screen", () =>
    db
      .selectFrom("review_records")
      .select(["id", "title", "abstract", "mesh", "pub_types", `${column} as decision`])
      .where("review_id", "=", reviewId)
      .$if(stage === "full_text", (q) => q.where(IN_FULL_TEXT))
      .orderBy("seq")
      .execute(),
  );
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    abstract: r.abstract,
    mesh: r.mesh,
    pubTypes: r.pub_types,
    ...(r.decision !== null && { decision: r.decision }),
  }));
}

/** A record of a stage's pool without its text: its decision there and when it was first made. */
export interface PoolEntry {
  id: string;
  decision?: Decision;
  /** The order of its first decision at the stage (the stopping rule reads decisions in it). */
  order?: number;
}

/**
 * The records screenable at `stage` with their decisions, without their text: what a screener
 * that already holds the records needs after a decision, and what progress is counted from
 * (src/review/screen.ts).
 */
export async function screeningPool(db: Db, reviewId: string, stage: Stage): Promise<PoolEntry[]> {
  const p = stage === "title_abstract" ? "ta" : "ft";
  const rows = await storeCall("reading decisions", () =>
    db
      .selectFrom("review_records")
      .select(["id", `${p}_decision as decision`, `${p}_order as order`])
      .where("review_id", "=", reviewId)
      .$if(stage === "full_text", (q) => q.where(IN_FULL_TEXT))
      .orderBy("seq")
      .execute(),
  );
  return rows.map((r) =>
    r.decision !== null && r.order !== null
      ? { id: r.id, decision: r.decision, order: r.order }
      : { id: r.id },
  );
}

/** The filter of an export (docs/reviews.md, "Exporting"). */
function exportFilter(reviewId: string, which: ExportWhich): RawBuilder<boolean> {
  switch (which) {
    case "all":
      return sql<boolean>`true`;
    case "included":
      return finallyIncluded(reviewId);
    case "excluded":
      return sql<boolean>`(ta_decision = 'exclude' or ft_decision = 'exclude')`;
    case "undecided":
      return sql<boolean>`ta_decision is null`;
  }
}

/** Up to `limit` records of the export after `afterSeq` (0 for the first page), in seq order. */
export async function exportPage(
  db: Db,
  reviewId: string,
  which: ExportWhich,
  afterSeq: number,
  limit: number,
): Promise<ReviewRecord[]> {
  const rows = await storeCall("reading records to export", () =>
    db
      .selectFrom("review_records")
      .selectAll()
      .where("review_id", "=", reviewId)
      .where("seq", ">", afterSeq)
      .where(exportFilter(reviewId, which))
      .orderBy("seq")
      .limit(limit)
      .execute(),
  );
  return rows.map(rowToRecord);
}

/**
 * The review's records that carry integrity notices and are not excluded at either stage, in the
 * order added, at most `limit` (review_status lists them: a retracted include must be seen).
 */
export async function noticedRecords(
  db: Db,
  reviewId: string,
  limit: number,
): Promise<Array<Pick<ReviewRecord, "id" | "title" | "notices">>> {
  const rows = await storeCall("reading records with notices", () =>
    db
      .selectFrom("review_records")
      .select(["id", "title", "notices"])
      .where("review_id", "=", reviewId)
      .where("notices", "is not", null)
      .where(
        sql<boolean>`coalesce(ta_decision, '') <> 'exclude' and coalesce(ft_decision, '') <> 'exclude'`,
      )
      .orderBy("seq")
      .limit(limit)
      .execute(),
  );
  return rows.map((r) => ({ id: r.id, title: r.title, notices: r.notices ?? [] }));
}

/** The PMIDs of the records finally included (citation searching starts from them). */
export async function includedPmids(db: Db, reviewId: string): Promise<string[]> {
  const rows = await storeCall("reading included records", () =>
    db
      .selectFrom("review_records")
      .select("pmid")
      .where("review_id", "=", reviewId)
      .where("pmid", "is not", null)
      .where(finallyIncluded(reviewId))
      .orderBy("seq")
      .execute(),
  );
  return rows.flatMap((r) => r.pmid ?? []);
}

export async function countExport(db: Db, reviewId: string, which: ExportWhich): Promise<number> {
  const row = await storeCall("counting records to export", () =>
    db
      .selectFrom("review_records")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("review_id", "=", reviewId)
      .where(exportFilter(reviewId, which))
      .executeTakeFirstOrThrow(),
  );
  return Number(row.n);
}

/** Records whether a full text was found for each record; unknown ids are ignored. */
export async function setFullTextAvailability(
  db: Db,
  reviewId: string,
  entries: ReadonlyArray<{ id: string; available: boolean }>,
): Promise<void> {
  // The last entry of an id wins (an update meets each row once).
  const byId = new Map(entries.map((e) => [e.id, e.available]));
  if (byId.size === 0) return;
  await storeCall("recording full-text availability", () =>
    inTransaction(db, async (trx) => {
      const u = unnestRows([
        { name: "id", type: "text", values: [...byId.keys()] },
        { name: "available", type: "boolean", values: [...byId.values()] },
      ]);
      const r = await sql`update review_records r set fulltext_available = u.available
        from ${u.from}
        where r.review_id = ${reviewId} and r.id = u.id
          and r.fulltext_available is distinct from u.available`.execute(trx);
      if (Number(r.numAffectedRows ?? 0) > 0) await bumpRevision(trx, reviewId);
    }),
  );
}
