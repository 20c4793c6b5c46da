/**
 * The process's corpus host and readiness probes, built beside its state (src/state.ts, the
 * configuration and clients) by whoever starts the process: src/run.ts for the servers and the
 * CLI, the bench, and tests through setStateForTests. The tools, CLI and resources reach the
 * corpus through getCorpusHost (./corpus-api.ts, ./review-api.ts); GET /readyz runs
 * getReadiness's probes (docs/http-and-container.md).
 */
import type { Config } from "../config.js";
import type { OpenCorpusOptions } from "../corpus/runtime.js";
import { StartingError } from "../errors.js";
import type { EutilsClient } from "../ncbi/client.js";
import { closeState, initState, type State } from "../state.js";
import { CorpusWorker } from "./client.js";
import { InlineCorpusHost, type CorpusHost } from "./host.js";
import { CorpusStores } from "./stores.js";

export interface ProcessOptions {
  /** "worker" (default): corpus work runs in the corpus worker thread; "inline": on this one. */
  corpusThread?: "worker" | "inline";
  /** The E-utilities client to use instead of building one. */
  eutils?: EutilsClient;
  /** Inline corpus only: how its stores open (./stores.ts). */
  corpus?: OpenCorpusOptions;
}

/** Named readiness probes (metadata store, vector store, embedder…) for GET /readyz. */
export type ReadinessProbes = Record<string, () => Promise<void>>;

let current: { host: CorpusHost; readiness: ReadinessProbes } | undefined;

/**
 * Initialises the state (src/state.ts) and the corpus host on it: the corpus worker thread
 * (servers, CLI), or this thread (`corpusThread: "inline"`, the bench's baseline).
 */
export async function initProcess(config: Config, opts: ProcessOptions = {}): Promise<State> {
  const state = await initState(config, { eutils: opts.eutils });
  // Read per request: tests swap the state's client after start-up.
  const eutils = () => state.eutils;
  const host: CorpusHost =
    opts.corpusThread === "inline"
      ? new InlineCorpusHost(new CorpusStores(config, opts.corpus), eutils)
      : new CorpusWorker(config, eutils);
  current = {
    host,
    readiness: {
      metadata_store: () => probe(host, "metadata_store"),
      vector_store: () => probe(host, "vector_store"),
      // Lexical only (EMBEDDINGS_PROVIDER=none): there is no embedder to probe.
      ...(config.embeddings.provider === "none" ? {} : { embedder: () => probe(host, "embedder") }),
    },
  };
  return state;
}

/**
 * A readiness probe of the corpus: "starting" until the stores are open (asking starts opening
 * them), the last open's failure (and a new attempt) after one failed, else the store's answer.
 */
async function probe(host: CorpusHost, name: "metadata_store" | "vector_store" | "embedder") {
  const s = host.status();
  if (s.status === "idle" || s.status === "opening") {
    host.open();
    throw new StartingError("starting: the corpus stores are opening");
  }
  if (s.status === "failed") {
    host.open();
    throw s.error;
  }
  await host.call("probe", [name]);
}

function need() {
  if (!current) {
    throw new Error("pubmed-mcp is not initialised: call initProcess(config) first");
  }
  return current;
}

export const getCorpusHost = (): CorpusHost => need().host;
export const getReadiness = (): ReadinessProbes => need().readiness;

/** Closes the corpus host (the worker closes its stores and ends), then the state. */
export async function closeProcess(): Promise<void> {
  const c = current;
  current = undefined;
  await c?.host.close();
  await closeState();
}

/** The one test hook: install a state and corpus host built from a config (as initProcess does). */
export async function setStateForTests(config: Config, opts?: ProcessOptions): Promise<State> {
  await closeProcess();
  return initProcess(config, opts);
}
