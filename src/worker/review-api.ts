/**
 * The review operations as the tools and the export resource call them: each is routed to the
 * corpus worker (src/worker/ops.ts), where the store, the screener and the writers run,
 * so nothing here costs the MCP loop more than a message.
 */
import type { HostCallOptions } from "./host.js";
import { getCorpusHost } from "./process.js";
import type { PubmedExportInput } from "../review/pubmed-export.js";
import type { AddRequest } from "../review/service.js";
import type { DecisionInput, ExportFormat, ExportWhich, Stage } from "../store/review-types.js";

const host = () => getCorpusHost();

export const createReview = (
  input: { name: string; question: string; criteria: string },
  signal?: AbortSignal,
) => host().call("reviewCreate", [input], { signal });

export const addToReview = (reviewId: string, req: AddRequest, opts: HostCallOptions = {}) =>
  host().call("reviewAdd", [reviewId, req], opts);

export const screenReview = (reviewId: string, stage: Stage, limit: number, signal?: AbortSignal) =>
  host().call("reviewScreen", [reviewId, stage, limit], { signal });

export const decideReview = (
  reviewId: string,
  decisions: DecisionInput[],
  stage: Stage,
  signal?: AbortSignal,
) => host().call("reviewDecide", [reviewId, decisions, stage], { signal });

export const reviewStatus = (reviewId: string | undefined, signal?: AbortSignal) =>
  host().call("reviewStatus", [reviewId], { signal });

export const includedPmids = (reviewId: string, signal?: AbortSignal) =>
  host().call("reviewIncludedPmids", [reviewId], { signal });

export const exportReview = (
  reviewId: string,
  format: ExportFormat,
  which: ExportWhich,
  maxBytes: number,
  signal?: AbortSignal,
) => host().call("reviewExport", [reviewId, format, which, maxBytes], { signal });

export const exportPubmed = (input: PubmedExportInput, opts: HostCallOptions = {}) =>
  host().call("exportPubmed", [input], opts);

export const readStoredExport = (id: string, signal?: AbortSignal) =>
  host().call("readExport", [id], { signal });

export const markFullText = (
  reviewId: string,
  entries: { id: string; available: boolean }[],
  signal?: AbortSignal,
) => host().call("reviewFullText", [reviewId, entries], { signal });
