/**
 * The operations the corpus worker runs, by name: the MCP thread sends { op, args } and gets the
 * result back (client.ts). Each one is a service function of the thread that owns the stores;
 * the context carries that thread's open stores and E-utilities client, and what cannot cross the
 * thread boundary (the call's AbortSignal, progress).
 */
import { CompiledQuery } from "kysely";
import type { Corpus } from "../corpus/runtime.js";
import type { Eutils } from "../ncbi/eutils.js";
import { reindexCorpus } from "../corpus/reindex.js";
import {
  getPaper,
  readCheckpoint,
  runSync,
  searchCorpus,
  writeCheckpoint,
} from "../corpus/service.js";
import { corpusSummary, paperVersions, pmidsStartingWith, probe } from "../corpus/service-reads.js";
import type { SyncInput } from "../corpus/sync.js";
import type { PubmedExportInput } from "../review/pubmed-export.js";
import type { AddRequest } from "../review/service.js";
import type { DecisionInput, ExportFormat, ExportWhich, Stage } from "../store/review-types.js";
import type { CorpusStores } from "./stores.js";

/** The review operations (docs/reviews.md), loaded with their first call. */
const reviews = () => import("../review/service.js");

export interface OpContext {
  signal: AbortSignal;
  progress?: (done: number, total: number, message: string) => void | Promise<void>;
  /** The stores of the thread running the operation, open (runOp opens them first). */
  corpus: Corpus;
  /** The E-utilities client for this call's requests (the worker's: they name the call). */
  eutils: Eutils;
}

export const OPS = {
  /** Opens the stores: runOp has done that before any operation runs. */
  open: async () => {},
  sync: (ctx: OpContext, input: SyncInput) =>
    runSync(ctx.corpus, input, {
      signal: ctx.signal,
      onProgress: ctx.progress,
      eutils: ctx.eutils,
    }),
  search: (ctx: OpContext, query: string, topK: number, qualityBias: boolean) =>
    searchCorpus(ctx.corpus, query, topK, qualityBias, ctx.signal),
  paper: (ctx: OpContext, pmid: string) => getPaper(ctx.corpus, pmid),
  readCheckpoint: (ctx: OpContext, queryKey: string) => readCheckpoint(ctx.corpus, queryKey),
  writeCheckpoint: (ctx: OpContext, queryKey: string, lastEdat: string) =>
    writeCheckpoint(ctx.corpus, queryKey, lastEdat),
  reindex: (ctx: OpContext) => reindexCorpus(ctx.corpus),
  summary: (ctx: OpContext) => corpusSummary(ctx.corpus),
  pmidsStartingWith: (ctx: OpContext, prefix: string, limit: number) =>
    pmidsStartingWith(ctx.corpus, prefix, limit),
  paperVersions: (ctx: OpContext, pmids: string[]) => paperVersions(ctx.corpus, pmids),
  probe: (ctx: OpContext, name: Parameters<typeof probe>[1]) => probe(ctx.corpus, name),
  reviewCreate: async (
    ctx: OpContext,
    input: { name: string; question: string; criteria: string },
  ) => (await reviews()).createReview(ctx.corpus, input),
  reviewAdd: async (ctx: OpContext, reviewId: string, req: AddRequest) =>
    (await reviews()).addToReview(ctx, reviewId, req),
  reviewScreen: async (ctx: OpContext, reviewId: string, stage: Stage, limit: number) =>
    (await reviews()).screenReview(ctx.corpus, reviewId, stage, limit),
  reviewDecide: async (
    ctx: OpContext,
    reviewId: string,
    decisions: DecisionInput[],
    stage: Stage,
  ) => (await reviews()).decideReview(ctx.corpus, reviewId, decisions, stage),
  reviewStatus: async (ctx: OpContext, reviewId: string | undefined) =>
    (await reviews()).reviewStatus(ctx.corpus, reviewId),
  exportPubmed: async (ctx: OpContext, input: PubmedExportInput) =>
    (await reviews()).exportPubmedRecords(ctx, input),
  readExport: async (ctx: OpContext, id: string) =>
    (await reviews()).readStoredExport(ctx.corpus, id),
  reviewIncludedPmids: async (ctx: OpContext, reviewId: string) =>
    (await reviews()).includedPmids(ctx.corpus, reviewId),
  reviewFullText: async (
    ctx: OpContext,
    reviewId: string,
    entries: { id: string; available: boolean }[],
  ) => (await reviews()).markFullText(ctx.corpus, reviewId, entries),
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
  query: async (ctx: OpContext, sql: string, parameters: readonly unknown[]) => {
    const { store } = ctx.corpus;
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

/**
 * Runs the operation named `op` on the thread's stores, opening them first (every operation reads
 * them, and a failed open is the call's error). The corpus worker (entry.ts) and the inline host
 * (host.ts) call it.
 */
export async function runOp(
  op: string,
  args: readonly unknown[],
  ctx: Omit<OpContext, "corpus">,
  stores: CorpusStores,
): Promise<unknown> {
  const fn = OPS[op as OpName] as
    ((ctx: OpContext, ...a: unknown[]) => Promise<unknown>) | undefined;
  if (!fn) throw new Error(`unknown corpus operation ${op}`);
  return fn({ ...ctx, corpus: await stores.open() }, ...args);
}
