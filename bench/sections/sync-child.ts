/**
 * One pubmed_sync_delta in a process of its own (so peak RSS is the sync's): the real
 * EutilsClient (rate limiter, retries, parsing) against the parent's synthetic NCBI, the real
 * stores, hash embeddings. Calls syncDelta — what the pubmed_sync_delta tool calls after its
 * argument checks — so no MCP request timeout caps a long sync. Prints one JSON line.
 */
import { loadConfig } from "../../src/config.js";
import { openCorpus } from "../../src/corpus/runtime.js";
import { syncDelta } from "../../src/corpus/sync.js";
import { EutilsClient } from "../../src/eutils/client.js";
import { countDocuments } from "../../src/store/docs.js";
import { peakRssMb } from "../lib/rss.js";

export interface SyncChildInput {
  baseUrl: string;
  dataDir: string;
  databaseUrl?: string;
  maxRps: number;
  term: string;
}

export interface SyncChildOutput {
  openMs: number;
  syncMs: number;
  processed: number;
  inserted: number;
  documents: number;
  chunks: number;
  peakRssMb: number;
}

const input = JSON.parse(process.argv[2] ?? "{}") as SyncChildInput;
const config = loadConfig({
  NCBI_EUTILS_BASE_URL: input.baseUrl,
  NCBI_MAX_RPS: String(input.maxRps),
  NCBI_TIMEOUT_MS: "120000",
  NCBI_DEADLINE_MS: "3600000",
  PUBMED_MCP_DATA_DIR: input.dataDir,
  DATABASE_URL: input.databaseUrl,
  EMBEDDINGS_PROVIDER: "hash",
  VECTOR_STORE: "pgvector",
  LOG_LEVEL: "error",
});
const opened = performance.now();
const corpus = await openCorpus(config);
const started = performance.now();
try {
  const result = await syncDelta(
    { ...corpus, eutils: new EutilsClient(config.ncbi) },
    { queryKey: "bench", term: input.term, overlapDays: 5, maxRecords: 1_000_000 },
  );
  const syncMs = performance.now() - started;
  const out: SyncChildOutput = {
    openMs: started - opened,
    syncMs,
    processed: result.pmids_processed,
    inserted: result.inserted,
    documents: await countDocuments(corpus.store.db),
    chunks: await corpus.vectors.count(),
    peakRssMb: peakRssMb(),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  await corpus.close();
}
