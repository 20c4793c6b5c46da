/**
 * The corpus operations behind the corpus tools, CLI and resources, on the stores of the thread
 * that runs them (the corpus worker: src/worker/ops.ts passes them in).
 *
 * The store, sync and search modules (Kysely and about 300 modules with it) are imported when an
 * operation first runs (./modules.ts), next to opening the stores, so registering the corpus tools
 * costs a server's start-up nothing (issue 11; __tests__/startup/lazy-modules.test.ts).
 */
import { EmbeddingsError, NotFoundError } from "../errors.js";
import type { Eutils } from "../ncbi/eutils.js";
import { isoDateTime, isoDay } from "../ncbi/dates.js";
import type { StoredDocument } from "../store/docs.js";
import type { JobStatus } from "../store/schema.js";
import type { Notice } from "../ncbi/notices.js";
import { checkpointsModule, docsModule, jobsModule, searchModule, syncModule } from "./modules.js";
import type { Corpus } from "./runtime.js";
import type { RagResult } from "./search.js";
import type { SyncInput, SyncResult } from "./sync.js";

/** Throws the EMBEDDINGS error that names `pubmed-mcp reindex` when the embedder changed. */
function assertCompatible(corpus: Corpus, op: "sync" | "search"): void {
  const refusal = corpus.mismatch ?? (op === "sync" ? corpus.syncRefusal : null);
  if (refusal) throw new EmbeddingsError(refusal);
}

export async function runSync(
  corpus: Corpus,
  input: SyncInput,
  opts: {
    /** The client for the sync's requests (the worker's for this call). */
    eutils: Eutils;
    signal?: AbortSignal;
    onProgress?: (done: number, total: number, message: string) => void | Promise<void>;
  },
): Promise<SyncResult> {
  assertCompatible(corpus, "sync");
  const { syncDelta } = await syncModule();
  return syncDelta({ ...corpus, ...opts }, input);
}

export async function searchCorpus(
  corpus: Corpus,
  query: string,
  topK: number,
  qualityBias: boolean,
  signal?: AbortSignal,
): Promise<{ results: RagResult[]; why?: "empty corpus" | "no terms" }> {
  assertCompatible(corpus, "search");
  const { ragSearch, searchableTerms } = await searchModule();
  const results = await ragSearch({ ...corpus, signal }, { query, topK, qualityBias });
  if (results.length > 0) return { results };
  // Nothing found means something else in an empty corpus, or for a query of stop words only.
  if ((await corpus.vectors.count()) === 0) return { results, why: "empty corpus" };
  return searchableTerms(query) === 0 ? { results, why: "no terms" } : { results };
}

export interface Paper {
  doc_id: string;
  title: string;
  abstract: string;
  journal: string | null;
  pub_types: string[];
  pdat: string | null;
  edat: string | null;
  lr: string | null;
  pmcid: string | null;
  quality: StoredDocument["quality"];
  version: number;
  /** Integrity notices the stored record carries (docs/trust.md); absent: none known. */
  notices?: Notice[];
}

export function toPaper(d: StoredDocument): Paper {
  return {
    doc_id: `pmid:${d.pmid}`,
    title: d.title,
    abstract: d.abstract,
    journal: d.journal,
    pub_types: d.pubTypes,
    pdat: d.pdat,
    // The one output date format (src/ncbi/dates.ts): EDAT has a time in PubMed, LR is a day.
    edat: isoDateTime(d.edat),
    lr: isoDay(d.lr),
    pmcid: d.pmcid,
    quality: d.quality,
    version: d.version,
    ...(d.notices.length > 0 && { notices: d.notices }),
  };
}

export async function getPaper({ store }: Corpus, pmid: string): Promise<Paper> {
  const { getDocument } = await docsModule();
  const doc = await getDocument(store.db, pmid);
  if (!doc) {
    throw new NotFoundError(
      `pmid:${pmid} is not in the local corpus. Sync a query that contains it with pubmed_sync_delta, or read it live with pubmed_fetch.`,
      { doc_id: `pmid:${pmid}` },
    );
  }
  return toPaper(doc);
}

export interface CheckpointView {
  query_key: string;
  /** The end of the last complete arrivals (create-date) window. */
  last_edat: string | null;
  /** The end of the last complete revisions (modification-date) window. */
  last_mdat: string | null;
  /** The query's most recent sync, whatever its outcome. */
  last_sync: {
    job_id: string;
    status: JobStatus;
    started_at: string;
    finished_at: string | null;
    pmids_processed: number;
    error: string | null;
  } | null;
}

export async function readCheckpoint({ store }: Corpus, queryKey: string): Promise<CheckpointView> {
  const { getCheckpoint } = await checkpointsModule();
  const { listJobs } = await jobsModule();
  const cp = await getCheckpoint(store.db, queryKey);
  const [job] = await listJobs(store.db, { queryKey, limit: 1 });
  return {
    query_key: queryKey,
    last_edat: isoDateTime(cp?.lastEdat ?? null),
    last_mdat: isoDateTime(cp?.lastMdat ?? null),
    last_sync: job
      ? {
          job_id: job.id,
          status: job.status,
          started_at: isoDateTime(job.startedAt) ?? job.startedAt,
          finished_at: isoDateTime(job.finishedAt),
          pmids_processed: job.pmidsProcessed,
          error: job.error,
        }
      : null,
  };
}

export async function writeCheckpoint(
  { store }: Corpus,
  queryKey: string,
  lastEdat: string,
): Promise<{ ok: boolean }> {
  const { setCheckpointManual } = await checkpointsModule();
  await setCheckpointManual(store.db, queryKey, lastEdat, "set with corpus_checkpoint_set");
  return { ok: true };
}
