/**
 * The server of a corpus suite, per test on one backend: the store is made before each test, the
 * server started by `open` (in a beforeEach or in the test itself), and both are gone after it.
 */
import { afterEach, beforeEach } from "@jest/globals";
import { backendEnv, type Backend } from "./db.js";
import { startHarness, type Harness } from "./mcp.js";
import type { SynthNcbi } from "./synth-ncbi.js";

export interface CorpusServer {
  /** This test's store (a fresh PGlite directory or Postgres database), dropped after the test. */
  readonly backend: Awaited<ReturnType<typeof backendEnv>>;
  /**
   * (Re)starts the server on this test's store against `ncbi.fake`, with `env` over the block's
   * base env (and NCBI_MAX_RPS=100 under both, so syncs are not paced).
   */
  open(env?: Record<string, string>): Promise<Harness>;
  /** Stops the server if one runs (a CLI command on the embedded store needs it stopped). */
  close(): Promise<void>;
}

/** For one describe block; call it after useSynthNcbi, whose beforeEach serves the corpus. */
export function useCorpusServer(
  kind: Backend,
  ncbi: SynthNcbi,
  baseEnv: Record<string, string> = {},
): CorpusServer {
  let backend: Awaited<ReturnType<typeof backendEnv>> | undefined;
  let h: Harness | undefined;
  const server: CorpusServer = {
    get backend() {
      if (!backend) throw new Error("useCorpusServer: no store yet (outside a test?)");
      return backend;
    },
    async open(env = {}) {
      await server.close();
      h = await startHarness({
        fake: ncbi.fake,
        env: { ...server.backend.env, NCBI_MAX_RPS: "100", ...baseEnv, ...env },
      });
      return h;
    },
    async close() {
      const running = h;
      h = undefined;
      await running?.close();
    },
  };
  beforeEach(async () => {
    backend = await backendEnv(kind);
  });
  afterEach(async () => {
    await server.close();
    await backend?.cleanup();
    backend = undefined;
  });
  return server;
}
