/**
 * Process-wide resources, loaded once at start-up and reached through getters — never passed
 * through tool signatures. Tests install their own state through `setStateForTests`.
 */
import type { Config } from "./config.js";
import { EutilsClient } from "./eutils/client.js";
import { setLogLevel } from "./log.js";

export interface State {
  config: Config;
  eutils: EutilsClient;
  startedAt: Date;
  /** Named readiness probes (metadata store, vector store, embedder…) for GET /readyz. */
  readiness: Record<string, () => Promise<void>>;
  /** Releases what the state holds (store handles, locks, timers). */
  close: () => Promise<void>;
}

let current: State | undefined;

export async function initState(config: Config): Promise<State> {
  setLogLevel(config.logLevel);
  const eutils = new EutilsClient(config.ncbi);
  current = { config, eutils, startedAt: new Date(), readiness: {}, close: async () => {} };
  return current;
}

function need(): State {
  if (!current) throw new Error("pubmed-mcp state is not initialised: call initState(config) first");
  return current;
}

export const getState = (): State => need();
export const getConfig = (): Config => need().config;
export const getEutils = (): EutilsClient => need().eutils;
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
