/**
 * Process-wide resources, loaded once at start-up and reached through getters — never passed
 * through tool signatures. Tests install their own state through `setStateForTests`.
 */
import type { Config } from "./config.js";
import type { Corpus } from "./corpus/runtime.js";
import { EutilsClient } from "./eutils/client.js";
import { setLogLevel } from "./log.js";
import { ServiceClients } from "./services/clients.js";
import type { PoliteClient } from "./services/polite-client.js";

export interface State {
  config: Config;
  eutils: EutilsClient;
  /** Europe PMC, Unpaywall and PubTator clients, each built on first use. */
  services: ServiceClients;
  startedAt: Date;
  /** Named readiness probes (metadata store, vector store, embedder…) for GET /readyz. */
  readiness: Record<string, () => Promise<void>>;
  /** The corpus stores, opened on first use (live tools never wait for them). */
  corpus: () => Promise<Corpus>;
  /** Releases what the state holds (store handles, locks, timers). */
  close: () => Promise<void>;
}

let current: State | undefined;

export async function initState(config: Config): Promise<State> {
  setLogLevel(config.logLevel);
  // Processes sharing a database (HTTP replicas) share NCBI's budget through it; the embedded
  // store is one process's, so without DATABASE_URL the local limiter is the whole story (and
  // the pg driver is not loaded at start-up: issue 11, __tests__/startup/lazy-modules.test.ts).
  const budget = config.databaseUrl
    ? (await import("./eutils/budget.js")).postgresBudget(config.databaseUrl)
    : undefined;
  const eutils = new EutilsClient(config.ncbi, { budget });
  let opened: Promise<Corpus> | undefined;
  const corpus = () => {
    if (!opened) {
      // Loaded on first use: live-only sessions never pay for the store and vector clients.
      const attempt = import("./corpus/runtime.js").then((m) => m.openCorpus(config));
      opened = attempt;
      // A failed open (e.g. the embedded store is locked by another process) is retried next time.
      attempt.catch(() => {
        if (opened === attempt) opened = undefined;
      });
    }
    return opened;
  };
  current = {
    config,
    eutils,
    services: new ServiceClients(config),
    startedAt: new Date(),
    corpus,
    readiness: {
      metadata_store: async () => (await corpus()).store.ping(),
      vector_store: async () => (await corpus()).vectors.health(),
      // Lexical only (EMBEDDINGS_PROVIDER=none): there is no embedder to probe.
      ...(config.embeddings.provider === "none"
        ? {}
        : { embedder: async () => (await corpus()).embedder.health() }),
    },
    close: async () => {
      const c = opened;
      opened = undefined;
      if (c) await (await c.catch(() => undefined))?.close();
      await budget?.close().catch(() => undefined);
    },
  };
  return current;
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
export const getCorpus = (): Promise<Corpus> => need().corpus();
export const getReadiness = (): State["readiness"] => need().readiness;

export async function closeState(): Promise<void> {
  const s = current;
  current = undefined;
  await s?.close();
}

/** The one test hook: install a state built from a config (as initState does) and return it. */
export async function setStateForTests(config: Config): Promise<State> {
  await closeState();
  return initState(config);
}
