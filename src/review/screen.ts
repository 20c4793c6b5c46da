/**
 * Screening in the corpus worker (docs/reviews.md, "Screening" and "When to stop"): the review's
 * undecided records best first, from a Screener (src/review/screener.ts) kept per review and
 * stage while the review's revision is unchanged, and the progress with the stopping rule.
 */
import type { Kysely } from "kysely";
import { NotFoundError } from "../errors.js";
import type { Database } from "../store/schema.js";
import {
  getRecords,
  getReview,
  screeningDocs,
  screeningPool,
  type PoolEntry,
  type ReviewRow,
} from "../store/reviews.js";
import { Screener } from "./screener.js";
import { stopDecision } from "./stop.js";
import {
  STAGES,
  type Decision,
  type DecisionInput,
  type Progress,
  type ReviewRecord,
  type Stage,
} from "../store/review-types.js";

/** Characters of an abstract in review_screen's answer. */
export const SCREEN_ABSTRACT_CHARS = 1_500;

interface Cached {
  revision: number;
  screener: Screener;
  /** Record ids the screener holds (new records since are added to it). */
  ids: Set<string>;
  labels: Map<string, boolean>;
  decided: Map<string, Decision>;
  /** The stage's records and decisions at `revision`: progress is counted from it. */
  pool: PoolEntry[];
}

/**
 * One screener per review and stage: its features and weights survive between calls, so a call
 * after a few decisions retrains incrementally instead of from nothing. Bounded: the least
 * recently used review is dropped past MAX_CACHED.
 */
const cache = new Map<string, Cached>();
const MAX_CACHED = 8;

export async function requireReview(db: Kysely<Database>, reviewId: string): Promise<ReviewRow> {
  const review = await getReview(db, reviewId);
  if (!review) {
    throw new NotFoundError(
      `No review "${reviewId}". review_status without review_id lists the reviews; ` +
        "review_create starts one.",
    );
  }
  return review;
}

/**
 * The review's screener for `stage`, up to date: after decisions only their ids and values are
 * read (the screener keeps the records' features); records added since are read and featurised.
 */
async function screenerFor(db: Kysely<Database>, review: ReviewRow, stage: Stage) {
  const key = `${review.id}\u0000${stage}`;
  let entry = cache.get(key);
  cache.delete(key);
  if (!entry || entry.revision !== review.revision) {
    const screener = entry?.screener ?? new Screener(review.question, review.criteria);
    const ids = entry?.ids ?? new Set<string>();
    const pool = await screeningPool(db, review.id, stage);
    if (pool.some((d) => !ids.has(d.id))) {
      const fresh = (await screeningDocs(db, review.id, stage)).filter((d) => !ids.has(d.id));
      screener.add(fresh);
      for (const d of fresh) ids.add(d.id);
    }
    const labels = new Map<string, boolean>();
    const decided = new Map<string, Decision>();
    for (const d of pool) {
      if (!d.decision) continue;
      decided.set(d.id, d.decision);
      // A "maybe" is kept for the next stage and counted relevant by the model: a reviewer unsure
      // at title and abstract usually means "could be included".
      labels.set(d.id, d.decision !== "exclude");
    }
    // Records that left the stage (a title/abstract decision changed to exclude) stay in the
    // screener but are never proposed: they count as decided.
    const inPool = new Set(pool.map((d) => d.id));
    for (const id of ids) if (!inPool.has(id)) decided.set(id, "exclude");
    entry = { revision: review.revision, screener, ids, labels, decided, pool };
  }
  cache.set(key, entry);
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  return entry;
}

/**
 * After this worker recorded `decisions`, taking the review to `revision`: the cached screeners
 * that were current just before take them in place of reading the stage again (a cache a step or
 * more behind, or one a title/abstract change reshapes — the full-text pool — is dropped).
 * Returns the stage's progress when its cache is current, for review_decide to answer with.
 */
export function applyDecisions(
  reviewId: string,
  decisions: ReadonlyArray<DecisionInput & { stage: Stage }>,
  revision: number,
  shown: Stage,
): Progress | undefined {
  const reshaped = decisions.some((d) => d.stage === "title_abstract");
  for (const stage of STAGES) {
    const key = `${reviewId}\u0000${stage}`;
    const entry = cache.get(key);
    if (!entry) continue;
    if (entry.revision !== revision - 1 || (stage === "full_text" && reshaped)) {
      cache.delete(key);
      continue;
    }
    const at = new Map(entry.pool.map((p, i) => [p.id, i]));
    // As the store numbers them: a record's first decision at the stage takes the next number.
    let last = entry.pool.reduce((m, p) => Math.max(m, p.order ?? 0), 0);
    let missing = false;
    for (const d of decisions) {
      if (d.stage !== stage) continue;
      const i = at.get(d.id);
      const cur = i === undefined ? undefined : entry.pool[i];
      if (i === undefined || !cur) {
        missing = true;
        break;
      }
      entry.pool[i] = { id: d.id, decision: d.decision, order: cur.order ?? ++last };
      entry.labels.set(d.id, d.decision !== "exclude");
      entry.decided.set(d.id, d.decision);
    }
    if (missing) cache.delete(key);
    else entry.revision = revision;
  }
  const current = cache.get(`${reviewId}\u0000${shown}`);
  return current?.revision === revision ? progressFrom(current.pool, shown) : undefined;
}

export async function progressOf(
  db: Kysely<Database>,
  reviewId: string,
  stage: Stage,
): Promise<Progress> {
  return progressFrom(await screeningPool(db, reviewId, stage), stage);
}

/** A stage's progress and the stopping rule's verdict, from its records and their decisions. */
export function progressFrom(pool: readonly PoolEntry[], stage: Stage): Progress {
  const counts = { total: pool.length, screened: 0, included: 0, excluded: 0, maybe: 0 };
  const decided: PoolEntry[] = [];
  for (const r of pool) {
    if (!r.decision) continue;
    counts.screened++;
    counts[
      r.decision === "include" ? "included" : r.decision === "exclude" ? "excluded" : "maybe"
    ]++;
    decided.push(r);
  }
  decided.sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  const rule = stopDecision(
    decided.map((d) => d.decision !== "exclude"),
    counts.total,
  );
  const remaining = counts.total - counts.screened;
  return {
    stage,
    ...counts,
    remaining,
    estimated_relevant_remaining: Math.min(remaining, rule.estimatedRemaining),
    stop_suggested: remaining > 0 && rule.stop,
    stop_reason:
      remaining === 0
        ? "Every record at this stage has a decision: screening is complete."
        : rule.reason,
  };
}

export interface ScreenRecord {
  id: string;
  title: string;
  abstract?: string;
  journal?: string;
  year?: number;
  publication_types: string[];
  score: number;
  notices: ReviewRecord["notices"];
  /** At the full-text stage: the identifiers to read it by, and whether it was found. */
  pmcid?: string;
  doi?: string;
  full_text_available?: boolean;
}

const cut = (text: string, chars: number) =>
  text.length <= chars
    ? text
    : `${text.slice(0, text.lastIndexOf(" ", chars) + 1 || chars).trimEnd()}…`;

export async function screen(
  db: Kysely<Database>,
  reviewId: string,
  stage: Stage,
  limit: number,
): Promise<{ records: ScreenRecord[]; progress: Progress; ranking: "relevance" | "model" }> {
  const review = await requireReview(db, reviewId);
  const entry = await screenerFor(db, review, stage);
  const { ranked, mode } = entry.screener.rank(rankLabels(entry), limit);
  const records = await getRecords(
    db,
    reviewId,
    ranked.map((r) => r.id),
  );
  const score = new Map(ranked.map((r) => [r.id, r.score]));
  return {
    records: records.map((r) => ({
      id: r.id,
      title: r.title,
      ...(r.abstract ? { abstract: cut(r.abstract, SCREEN_ABSTRACT_CHARS) } : {}),
      ...(r.journal ? { journal: r.journal } : {}),
      ...(r.year ? { year: r.year } : {}),
      publication_types: r.pubTypes,
      score: Math.round((score.get(r.id) ?? 0) * 1000) / 1000,
      notices: r.notices,
      ...(stage === "full_text" ? fullTextIds(r) : {}),
    })),
    progress: progressFrom(entry.pool, stage),
    ranking: mode,
  };
}

/**
 * The labels the screener trains on; records decided outside the stage's pool (excluded at title
 * and abstract, at the full-text stage) are passed as excluded so they are never proposed.
 */
function rankLabels(entry: Cached): Map<string, boolean> {
  const labels = new Map(entry.labels);
  for (const [id, decision] of entry.decided) {
    if (!labels.has(id)) labels.set(id, decision !== "exclude");
  }
  return labels;
}

function fullTextIds(r: ReviewRecord) {
  return {
    ...(r.pmcid ? { pmcid: r.pmcid } : {}),
    ...(r.doi ? { doi: r.doi } : {}),
    ...(r.fullTextAvailable !== undefined ? { full_text_available: r.fullTextAvailable } : {}),
  };
}
