/**
 * Process-wide resources, loaded once at start-up and reached through getters — never passed
 * through tool signatures. Tests install their own state through `setStateForTests`.
 */
import type { Config } from "./config.js";
import { InlineCorpusHost, type CorpusHost } from "./worker/host.js";
import type { Corpus, OpenCorpusOptions } from "./corpus/runtime.js";
import { CorpusWorker } from "./worker/client.js";
import { InvariantError, StartingError } from "./errors.js";
import { EutilsClient } from "./ncbi/client.js";
import { setLogLevel } from "./log.js";
import { ServiceClients } from "./net/clients.js";
import type { PoliteClient } from "./net/polite-client.js";

export interface State {
  config: Config;
  eutils: EutilsClient;
  /** Europe PMC, Unpaywall, PubTator and Crossref clients, each built on first use. */
  services: ServiceClients;
  startedAt: Date;
  /** Named readiness probes (metadata store, vector store, embedder…) for GET /readyz. */
  readiness: Record<string, () => Promise<void>>;
  /**
   * Where corpus operations run: the corpus worker thread (servers, CLI), or this thread
   * (inside the worker itself, and the bench's single-threaded baseline).
   */
  corpusHost: CorpusHost;
  /** The corpus stores opened on this thread, on first use; only an inline host has them. */
  corpus: () => Promise<Corpus>;
  /** Releases what the state holds (store handles, locks, timers). */
  close: () => Promise<void>;
}

let current: State | undefined;

export interface StateOptions {
  /** "worker" (default): corpus work runs in the corpus worker thread; "inline": on this one. */
  corpusThread?: "worker" | "inline";
  /** The E-utilities client to use instead of building one (the worker's proxy to the MCP thread's). */
  eutils?: EutilsClient;
  /**
   * Inline corpus only: how its stores open. The corpus worker puts the BM25 index and a sync's
   * preparing of EFetch replies in threads of their own.
   */
  corpus?: OpenCorpusOptions;
}

export async function initState(config: Config, opts: StateOptions = {}): Promise<State> {
  setLogLevel(config.logLevel);
  // Processes sharing a database (HTTP replicas) share NCBI's budget through it; the embedded
  // store is one process's, so without DATABASE_URL the local limiter is the whole story (and
  // the pg driver is not loaded at start-up: issue 11, __tests__/startup/lazy-modules.test.ts).
  const budget =
    config.databaseUrl && !opts.eutils
      ? (await import("./net/shared-budget.js")).postgresBudget(config.databaseUrl)
      : undefined;
  const eutils = opts.eutils ?? new EutilsClient(config.ncbi, { budget });
  const inline = opts.corpusThread === "inline";
  let opened: Promise<Corpus> | undefined;
  const corpus = () => {
    if (!inline) {
      return Promise.reject(
        new InvariantError("The corpus stores are open in the corpus worker, not on this thread."),
      );
    }
    if (!opened) {
      // Loaded on first use: live-only sessions never pay for the store and vector clients.
      const attempt = import("./corpus/runtime.js").then((m) => m.openCorpus(config, opts.corpus));
      opened = attempt;
      // A failed open (e.g. the embedded store is locked by another process) is retried next time.
      attempt.catch(() => {
        if (opened === attempt) opened = undefined;
      });
    }
    return opened;
  };
  const state: State = {
    config,
    eutils,
    services: new ServiceClients(config),
    startedAt: new Date(),
    corpusHost: inline
      ? new InlineCorpusHost(corpus)
      : new CorpusWorker(config, () => state.eutils),
    corpus,
    readiness: {
      metadata_store: () => probe(state.corpusHost, "metadata_store"),
      vector_store: () => probe(state.corpusHost, "vector_store"),
      // Lexical only (EMBEDDINGS_PROVIDER=none): there is no embedder to probe.
      ...(config.embeddings.provider === "none"
        ? {}
        : { embedder: () => probe(state.corpusHost, "embedder") }),
    },
    close: async () => {
      await state.corpusHost.close();
      const c = opened;
      opened = undefined;
      if (c) await (await c.catch(() => undefined))?.close();
      await budget?.close().catch(() => undefined);
    },
  };
  current = state;
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

function need(): State {
  if (!current)
    throw new Error("pubmed-mcp state is not initialised: call initState(config) first");
  return current;
}

export const getState = (): State => need();
export const getConfig = (): Config => need().config;
export const getEutils = (): EutilsClient => need().eutils;
export const getEuropePmc = (): PoliteClient => need().services.europePmc;
/** Undefined without UNPAYWALL_EMAIL (the Unpaywall tier is then skipped). */
export const getUnpaywall = (): PoliteClient | undefined => need().services.unpaywall;
export const getPubtator = (): PoliteClient => need().services.pubtator;
/** Undefined unless CROSSREF_MAILTO or CROSSREF_BASE_URL is set (Crossref is then never asked). */
export const getCrossref = (): PoliteClient | undefined => need().services.crossref;
/** The stores opened on this thread (inline host only: the corpus worker, the bench baseline). */
export const getCorpus = (): Promise<Corpus> => need().corpus();
export const getCorpusHost = (): CorpusHost => need().corpusHost;
export const getReadiness = (): State["readiness"] => need().readiness;

export async function closeState(): Promise<void> {
  const s = current;
  current = undefined;
  await s?.close();
}

/** The one test hook: install a state built from a config (as initState does) and return it. */
export async function setStateForTests(config: Config, opts?: StateOptions): Promise<State> {
  await closeState();
  return initState(config, opts);
}
