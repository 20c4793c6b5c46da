/**
 * NCBI_MAX_RPS judged where NCBI judges it: at a stand-in NCBI in a process of its own, noting each
 * request when its headers arrive, while 50 MCP callers use one HTTP server process at once.
 *
 * Why a separate process: an outside run saw 11–12 starts in one second at 10 requests/s. The
 * limiter spaces the requests' wire times (undici's sendHeaders) so that any maxRps + 1 of them span
 * at least 1.1 s, and a run with the stand-in on the server's own event loop under load (load
 * average ~5) showed the same 250 wire times at 1100.3 ms for the tightest eleven while the
 * stand-in's handler clock put eleven inside 993 ms: the loop that also parses and answers MCP
 * traffic noted a lagging request late, bunching it with the next ones. On its own loop the stand-in
 * saw 1077 ms in the same conditions. The limiter was right; the measurement was not.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  maxInWindow,
  startStandIn,
  windowsOver,
  type StandIn,
} from "../../bench/lib/ncbi-standin.js";
import {
  closeCallers,
  connectCallers,
  outcome,
  runCallers,
  startReplica,
} from "../../bench/lib/replicas.js";
import { backendEnv } from "../helpers/db.js";

const CALLERS = 50;

let standIn: StandIn;
beforeAll(async () => {
  standIn = await startStandIn({ latencyMs: 50 });
}, 60_000);
afterAll(async () => {
  await standIn?.close();
});

describe("the rate ceiling at a stand-in NCBI in its own process", () => {
  it.each([
    [3, 1],
    [10, 3],
  ])(
    "NCBI_MAX_RPS=%i: 50 concurrent HTTP callers (%i calls each) never put more in any second",
    async (maxRps, callsEach) => {
      await standIn.reset();
      const store = await backendEnv("pglite");
      const replica = await startReplica({
        ...store.env,
        NCBI_EUTILS_BASE_URL: standIn.baseUrl,
        NCBI_MAX_RPS: String(maxRps),
        NCBI_DEADLINE_MS: "600000",
      });
      try {
        const clients = await connectCallers([replica.url], CALLERS);
        const tally = await runCallers(clients, callsEach, `ceiling ${maxRps}`);
        await closeCallers(clients);
        expect(outcome(tally)).toEqual({ ok: CALLERS * callsEach, errors: {}, thrown: 0 });
        const arrivals = await standIn.arrivals();
        expect(arrivals).toHaveLength(CALLERS * callsEach);
        // The ceiling is reached (the test is not idle) and never passed.
        expect(maxInWindow(arrivals, 1000)).toBe(maxRps);
        expect(windowsOver(arrivals, maxRps, 1000)).toBe(0);
      } finally {
        await replica.close();
        await store.cleanup();
      }
    },
    300_000,
  );
});
