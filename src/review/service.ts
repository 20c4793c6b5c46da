/**
 * The review operations as the corpus worker runs them (src/worker/ops.ts), on the corpus stores
 * it passes in: each checks the review exists and delegates to the repository
 * (src/store/reviews.ts), the adders (./add.ts), the screener (./screen.ts) and the writers
 * (./export.ts, ./prisma.ts).
 */
import type { Corpus } from "../corpus/runtime.js";
import type { Eutils } from "../ncbi/eutils.js";
import { readExport } from "../store/exports.js";
import {
  countExport,
  createReview as insertReview,
  decide as recordDecisions,
  exportPage,
  includedPmids as includedRecordPmids,
  listReviews,
  noticedRecords,
  prismaCounts,
  setFullTextAvailability,
} from "../store/reviews.js";
import {
  addFromCorpus,
  addGathered,
  addPmids,
  addPubmedSearch,
  type AddContext,
  type AddResult,
} from "./add.js";
import { exportWriter } from "./export.js";
import { exportPubmed, type PubmedExportInput } from "./pubmed-export.js";
import { prismaSvg } from "./prisma.js";
import { applyDecisions, progressOf, requireReview, screen } from "./screen.js";
import type {
  Candidate,
  DecisionInput,
  ExportFormat,
  ExportWhich,
  Progress,
  Stage,
} from "../store/review-types.js";

export interface ReviewOpContext {
  signal: AbortSignal;
  progress?: AddContext["progress"];
  /** The open stores of the thread running the operation. */
  corpus: Corpus;
  /** The client for the operation's requests (the worker's for this call). */
  eutils: Eutils;
}

/** The metadata store of the open corpus. */
const db = (corpus: Pick<Corpus, "store">) => corpus.store.db;

function addContext(ctx: ReviewOpContext): AddContext {
  const { corpus, eutils, signal, progress } = ctx;
  return { store: corpus.store, eutils, signal, progress };
}

export async function createReview(
  corpus: Corpus,
  input: { name: string; question: string; criteria: string },
) {
  const review = await insertReview(db(corpus), input);
  return { review_id: review.id, name: review.name, created_at: review.created_at };
}

export type AddRequest =
  | { source: "pubmed"; term: string; maxRecords: number }
  | { source: "corpus"; queryKey: string; maxRecords: number }
  | { source: "ids" | "citations"; pmids: string[]; dois?: string[] }
  | { source: "europepmc"; candidates: Candidate[] };

export async function addToReview(
  ctx: ReviewOpContext,
  reviewId: string,
  req: AddRequest,
): Promise<AddResult> {
  await requireReview(db(ctx.corpus), reviewId);
  const add = addContext(ctx);
  switch (req.source) {
    case "pubmed":
      return addPubmedSearch(add, reviewId, req.term, req.maxRecords);
    case "corpus":
      return addFromCorpus(add, reviewId, req.queryKey, req.maxRecords);
    case "ids":
    case "citations":
      return addPmids(add, reviewId, req.source, req.pmids, req.dois);
    case "europepmc":
      return addGathered(add, reviewId, "europepmc", req.candidates);
  }
}

export async function exportPubmedRecords(ctx: ReviewOpContext, input: PubmedExportInput) {
  return exportPubmed(addContext(ctx), input);
}

export async function readStoredExport(corpus: Corpus, id: string) {
  return readExport(db(corpus), id);
}

export async function screenReview(corpus: Corpus, reviewId: string, stage: Stage, limit: number) {
  return screen(db(corpus), reviewId, stage, limit);
}

export async function decideReview(
  corpus: Corpus,
  reviewId: string,
  decisions: readonly DecisionInput[],
  stage: Stage,
): Promise<{ recorded: number; unchanged: number; progress: Progress }> {
  const store = db(corpus);
  await requireReview(store, reviewId);
  const withStage = decisions.map((d) => ({ ...d, stage: d.stage ?? stage }));
  const stages = new Set(withStage.map((d) => d.stage));
  const { revision, ...r } = await recordDecisions(store, reviewId, withStage);
  // The progress of the stage decided (the call's stage, when a call mixes stages).
  const shown = stages.size === 1 ? [...stages][0]! : stage;
  const cached =
    revision === undefined ? undefined : applyDecisions(reviewId, withStage, revision, shown);
  return { ...r, progress: cached ?? (await progressOf(store, reviewId, shown)) };
}

export async function reviewStatus(corpus: Corpus, reviewId: string | undefined) {
  const store = db(corpus);
  if (reviewId === undefined) {
    const reviews = await listReviews(store);
    return {
      reviews: reviews.map((r) => ({
        review_id: r.id,
        name: r.name,
        records: r.records,
        included: r.included,
        created_at: r.created_at,
      })),
    };
  }
  const review = await requireReview(store, reviewId);
  const prisma = await prismaCounts(store, reviewId);
  const notices = await noticedRecords(store, reviewId, MAX_NOTICED);
  return {
    review: {
      review_id: review.id,
      name: review.name,
      question: review.question,
      criteria: review.criteria,
      created_at: review.created_at,
    },
    prisma,
    progress: {
      title_abstract: await progressOf(store, reviewId, "title_abstract"),
      full_text: await progressOf(store, reviewId, "full_text"),
    },
    ...(notices.length > 0 ? { notices } : {}),
    svg: prismaSvg(prisma, review.name),
  };
}

export async function markFullText(
  corpus: Corpus,
  reviewId: string,
  entries: ReadonlyArray<{ id: string; available: boolean }>,
) {
  const store = db(corpus);
  await requireReview(store, reviewId);
  await setFullTextAvailability(store, reviewId, entries);
}

/** Records with integrity notices shown by review_status, at most. */
const MAX_NOTICED = 50;

/** The PMIDs of the review's included records (citation searching starts from them). */
export async function includedPmids(corpus: Corpus, reviewId: string): Promise<string[]> {
  const store = db(corpus);
  await requireReview(store, reviewId);
  return includedRecordPmids(store, reviewId);
}

/** Records per page read while writing an export. */
const EXPORT_PAGE = 1_000;

/**
 * A review's export, whole, or refused past `maxBytes` (the caller then links the resource,
 * which reads it without that bound up to MAX_EXPORT_RECORDS).
 */
export async function exportReview(
  ctx: Pick<ReviewOpContext, "signal" | "corpus">,
  reviewId: string,
  format: ExportFormat,
  which: ExportWhich,
  maxBytes: number,
): Promise<{ count: number; bytes: number; text?: string }> {
  const store = db(ctx.corpus);
  await requireReview(store, reviewId);
  const count = await countExport(store, reviewId, which);
  const writer = exportWriter(format);
  const parts = [writer.header()];
  let bytes = Buffer.byteLength(parts[0]!);
  for (let after = -1; ;) {
    ctx.signal.throwIfAborted();
    const page = await exportPage(store, reviewId, which, after, EXPORT_PAGE);
    if (page.length === 0) break;
    const text = writer.write(page);
    bytes += Buffer.byteLength(text);
    if (bytes > maxBytes) return { count, bytes };
    parts.push(text);
    after = page[page.length - 1]!.seq;
  }
  const footer = writer.footer();
  bytes += Buffer.byteLength(footer);
  if (bytes > maxBytes) return { count, bytes };
  parts.push(footer);
  return { count, bytes, text: parts.join("") };
}
