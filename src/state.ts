/**
 * Process-wide configuration and clients, loaded once at start-up and reached through getters,
 * never passed through tool signatures. The corpus host and the readiness probes are built beside
 * it (src/worker/process.ts, which also holds the test hook `setStateForTests`).
 */
import type { Config } from "./config.js";
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
  /** Releases what the state holds (the shared NCBI budget's connection). */
  close: () => Promise<void>;
}

let current: State | undefined;

export interface StateOptions {
  /** The E-utilities client to use instead of building one. */
  eutils?: EutilsClient;
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
  const state: State = {
    config,
    eutils,
    services: new ServiceClients(config),
    startedAt: new Date(),
    close: async () => {
      await budget?.close().catch(() => undefined);
    },
  };
  current = state;
  return state;
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

export async function closeState(): Promise<void> {
  const s = current;
  current = undefined;
  await s?.close();
}
