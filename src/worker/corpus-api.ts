/**
 * The corpus operations as the tools, CLI, resources and notifications call them. Each one is
 * routed to the thread that owns the stores (the corpus worker: getCorpusHost, ./process.ts) and
 * runs there as the service function of the same name (src/corpus/service.ts, service-reads.ts),
 * so nothing here costs the MCP loop more than a message. Signatures follow the service
 * functions, less the stores and client the worker supplies.
 */
import { getCorpusHost } from "./process.js";
import type { HostCallOptions } from "./host.js";
import type * as service from "../corpus/service.js";
import type { SyncInput } from "../corpus/sync.js";

export type { Paper } from "../corpus/service.js";

export const runSync = (input: SyncInput, opts: HostCallOptions = {}) =>
  getCorpusHost().call("sync", [input], opts);

export const searchCorpus = (
  query: string,
  topK: number,
  qualityBias: boolean,
  signal?: AbortSignal,
): ReturnType<typeof service.searchCorpus> =>
  getCorpusHost().call("search", [query, topK, qualityBias], { signal });

/** Why a search found nothing, where that is not simply "no passage matches" (searchCorpus's `why`). */
export const SEARCH_NOTES = {
  "empty corpus":
    "The local corpus is empty. rag_search searches only papers synced into it with " +
    "pubmed_sync_delta (pubmed_search searches PubMed itself).",
  "no terms":
    "The query has no word the index searches (stop words and punctuation are left out): " +
    "use content words, e.g. a drug, a disease, an outcome.",
} as const;

export const getPaper = (pmid: string, signal?: AbortSignal) =>
  getCorpusHost().call("paper", [pmid], { signal });

export const readCheckpoint = (queryKey: string, signal?: AbortSignal) =>
  getCorpusHost().call("readCheckpoint", [queryKey], { signal });

export const writeCheckpoint = (queryKey: string, lastEdat: string, signal?: AbortSignal) =>
  getCorpusHost().call("writeCheckpoint", [queryKey, lastEdat], { signal });

export const reindexCorpus = () => getCorpusHost().call("reindex", []);

export const corpusSummary = (signal?: AbortSignal) =>
  getCorpusHost().call("summary", [], { signal });

/**
 * A prefix that no PMID starts with (not up to 9 digits) is answered here, as the service would:
 * with nothing, and without opening the stores (nor failing when they cannot open).
 */
export const pmidsStartingWith = (prefix: string, limit: number): Promise<string[]> =>
  /^\d{0,9}$/.test(prefix)
    ? getCorpusHost().call("pmidsStartingWith", [prefix, limit])
    : Promise.resolve([]);

export const paperVersions = (pmids: string[]) => getCorpusHost().call("paperVersions", [pmids]);
