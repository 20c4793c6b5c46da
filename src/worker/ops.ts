/**
 * The operations the corpus worker runs, by name: the MCP thread sends { op, args } and gets the
 * result back (client.ts). Each one is a service function of the thread that owns the stores;
 * the context carries what cannot cross the thread boundary (the call's AbortSignal, progress).
 */
import { CompiledQuery } from "kysely";
import type { EutilsClient } from "../ncbi/client.js";
import { getCorpus } from "../state.js";
import { reindexCorpus } from "../corpus/reindex.js";
import { getPaper, readCheckpoint, runSync, searchCorpus, writeCheckpoint } from "../corpus/service.js";
import { corpusSummary, paperVersions, pmidsStartingWith, probe } from "../corpus/service-reads.js";
import type { SyncInput } from "../corpus/sync.js";
import type { PubmedExportInput } from "../review/pubmed-export.js";
import type { AddRequest } from "../review/service.js";
import type { DecisionInput, ExportFormat, ExportWhich, Stage } from "../store/review-types.js";

/** The review operations (docs/reviews.md), loaded with their first call. */
const reviews = () => import("../review/service.js");

export interface OpContext {
  signal: AbortSignal;
  progress?: (done: number, total: number, message: string) => void | Promise<void>;
  /** The E-utilities client for this call's requests (the worker's: they name the call). */
  eutils?: EutilsClient;
}

export const OPS = {
  open: async () => {
    await getCorpus();
  },
  sync: (ctx: OpContext, input: SyncInput) =>
    runSync(input, { signal: ctx.signal, onProgress: ctx.progress, eutils: ctx.eutils }),
  search: (ctx: OpContext, query: string, topK: number, qualityBias: boolean) =>
    searchCorpus(query, topK, qualityBias, ctx.signal),
  paper: (_ctx: OpContext, pmid: string) => getPaper(pmid),
  readCheckpoint: (_ctx: OpContext, queryKey: string) => readCheckpoint(queryKey),
  writeCheckpoint: (_ctx: OpContext, queryKey: string, lastEdat: string) =>
    writeCheckpoint(queryKey, lastEdat),
  reindex: () => reindexCorpus(),
  summary: () => corpusSummary(),
  pmidsStartingWith: (_ctx: OpContext, prefix: string, limit: number) =>
    pmidsStartingWith(prefix, limit),
  paperVersions: (_ctx: OpContext, pmids: string[]) => paperVersions(pmids),
  probe: (_ctx: OpContext, name: Parameters<typeof probe>[0]) => probe(name),
  reviewCreate: async (
    _ctx: OpContext,
    input: { name: string; question: string; criteria: string },
  ) => (await reviews()).createReview(input),
  reviewAdd: async (ctx: OpContext, reviewId: string, req: AddRequest) =>
    (await reviews()).addToReview(ctx, reviewId, req),
  reviewScreen: async (_ctx: OpContext, reviewId: string, stage: Stage, limit: number) =>
    (await reviews()).screenReview(reviewId, stage, limit),
  reviewDecide: async (
    _ctx: OpContext,
    reviewId: string,
    decisions: DecisionInput[],
    stage: Stage,
  ) => (await reviews()).decideReview(reviewId, decisions, stage),
  reviewStatus: async (_ctx: OpContext, reviewId: string | undefined) =>
    (await reviews()).reviewStatus(reviewId),
  exportPubmed: async (ctx: OpContext, input: PubmedExportInput) =>
    (await reviews()).exportPubmedRecords(ctx, input),
  readExport: async (_ctx: OpContext, id: string) => (await reviews()).readStoredExport(id),
  reviewIncludedPmids: async (_ctx: OpContext, reviewId: string) =>
    (await reviews()).includedPmids(reviewId),
  reviewFullText: async (
    _ctx: OpContext,
    reviewId: string,
    entries: { id: string; available: boolean }[],
  ) => (await reviews()).markFullText(reviewId, entries),
  reviewExport: async (
    ctx: OpContext,
    reviewId: string,
    format: ExportFormat,
    which: ExportWhich,
    maxBytes: number,
  ) => (await reviews()).exportReview(ctx, reviewId, format, which, maxBytes),
  /**
   * One SQL statement on the corpus's metadata store: how tests and the bench inspect the store
   * the worker holds (the embedded store admits one opener). Not reachable from MCP. It runs after
   * the housekeeping that follows a call (Store.maintainLater), so it reads what that left.
   */
  query: async (_ctx: OpContext, sql: string, parameters: readonly unknown[]) => {
    const { store } = await getCorpus();
    await store.idle();
    return store.db.executeQuery(CompiledQuery.raw(sql, [...parameters]));
  },
};

export type Ops = typeof OPS;
export type OpName = keyof Ops;
export type OpArgs<K extends OpName> = Ops[K] extends (ctx: OpContext, ...args: infer A) => unknown
  ? A
  : never;
export type OpResult<K extends OpName> = Awaited<ReturnType<Ops[K]>>;
