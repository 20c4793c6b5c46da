/**
 * Many replicas, one NCBI budget: three HTTP server processes on one PostgreSQL (DATABASE_URL), 50
 * MCP callers dealt over them, every call a live pubmed_search with a unique query (so the response
 * cache never answers). NCBI_MAX_RPS must hold for all three together at a stand-in NCBI in its own
 * process; with a deadline that one server meets for the same load, every call must be answered
 * (the replicas queue their calls first come, first served); and a replica killed mid-run
 * (SIGKILL: no goodbye, admitted starts and queued places left behind) must not stall the others.
 */
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
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
  type CallTally,
  type Replica,
} from "../../bench/lib/replicas.js";
import { backendEnv, describeBackend } from "../helpers/db.js";

const REPLICAS = 3;
const CALLERS = 50;

/** The callers dealt to replica `r` by connectCallers (round-robin). */
const group = (clients: Client[], r: number) => clients.filter((_, i) => i % REPLICAS === r);

function sum(tallies: CallTally[]): CallTally {
  const out: CallTally = { ok: 0, toolErrors: {}, thrown: 0, longestMs: 0 };
  for (const t of tallies) {
    out.ok += t.ok;
    out.thrown += t.thrown;
    out.longestMs = Math.max(out.longestMs, t.longestMs);
    out.messages = { ...t.messages, ...out.messages };
    for (const [code, n] of Object.entries(t.toolErrors))
      out.toolErrors[code] = (out.toolErrors[code] ?? 0) + n;
  }
  return out;
}

describeBackend("postgres", "three replicas share one NCBI budget", () => {
  let standIn: StandIn;
  beforeAll(async () => {
    standIn = await startStandIn({ latencyMs: 50 });
  }, 60_000);
  afterAll(async () => {
    await standIn?.close();
  });

  async function withReplicas(
    maxRps: number,
    fn: (replicas: Replica[]) => Promise<void>,
    deadlineMs = 600_000,
  ): Promise<void> {
    const db = await backendEnv("postgres");
    const replicas: Replica[] = [];
    try {
      const env = {
        ...db.env,
        NCBI_EUTILS_BASE_URL: standIn.baseUrl,
        NCBI_MAX_RPS: String(maxRps),
        NCBI_DEADLINE_MS: String(deadlineMs),
      };
      // One after the other: their start-ups would otherwise race for the machine's two cores.
      for (let r = 0; r < REPLICAS; r++) replicas.push(await startReplica(env));
      await standIn.reset();
      await fn(replicas);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
      await db.cleanup();
    }
  }

  it.each([
    [3, 1],
    [10, 3],
  ])(
    "NCBI_MAX_RPS=%i: 50 callers over three replicas (%i calls each) never put more in any second",
    async (maxRps, callsEach) => {
      await withReplicas(maxRps, async (replicas) => {
        const clients = await connectCallers(
          replicas.map((r) => r.url),
          CALLERS,
        );
        const tally = await runCallers(clients, callsEach, `replicas ${maxRps}`);
        await closeCallers(clients);
        expect(outcome(tally)).toEqual({ ok: CALLERS * callsEach, errors: {}, thrown: 0 });
        const arrivals = await standIn.arrivals();
        expect(arrivals).toHaveLength(CALLERS * callsEach);
        expect(maxInWindow(arrivals, 1000)).toBe(maxRps);
        expect(windowsOver(arrivals, maxRps, 1000)).toBe(0);
      });
    },
    400_000,
  );

  // 48 calls at once at 10/s take about 5.3 s to start (a start per 110 ms window share), one
  // server or three: an 8 s deadline leaves room, so a call that fails was kept waiting unfairly.
  it("48 callers over three replicas at 10/s with an 8 s deadline: every call is answered", async () => {
    const callers = 48;
    const callsEach = 3;
    await withReplicas(
      10,
      async (replicas) => {
        const clients = await connectCallers(
          replicas.map((r) => r.url),
          callers,
        );
        const tally = await runCallers(clients, callsEach, "deadline");
        await closeCallers(clients);
        expect(outcome(tally)).toEqual({ ok: callers * callsEach, errors: {}, thrown: 0 });
        const arrivals = await standIn.arrivals();
        expect(arrivals).toHaveLength(callers * callsEach);
        expect(windowsOver(arrivals, 10, 1000)).toBe(0);
      },
      8_000,
    );
  }, 400_000);

  it("a replica killed mid-run (SIGKILL) does not stall the others", async () => {
    const maxRps = 10;
    const callsEach = 4;
    await withReplicas(maxRps, async (replicas) => {
      const clients = await connectCallers(
        replicas.map((r) => r.url),
        CALLERS,
      );
      const runs = replicas.map((_, r) => runCallers(group(clients, r), callsEach, `kill ${r}`));
      // Mid-run: some calls done, most to come.
      while ((await standIn.arrivals()).length < 40) await sleep(50);
      const victim = replicas[0]!;
      victim.process.kill("SIGKILL");
      await new Promise((res) => victim.process.once("exit", res));
      const killedAt = (await standIn.arrivals()).length;
      // Its callers' open requests can never be answered; closing them ends their calls.
      await closeCallers(group(clients, 0));
      const [, ...survivors] = await Promise.all(runs);
      await closeCallers(clients);

      const survivorCalls = CALLERS - group(clients, 0).length;
      expect(outcome(sum(survivors))).toEqual({
        ok: survivorCalls * callsEach,
        errors: {},
        thrown: 0,
      });
      const arrivals = await standIn.arrivals();
      expect(windowsOver(arrivals, maxRps, 1000)).toBe(0);
      // The survivors went on at the full shared rate after the kill, not at a trickle.
      const after = [...arrivals].sort((a, b) => a - b).slice(killedAt);
      expect(after.length).toBeGreaterThan(2 * maxRps);
      expect(maxInWindow(after, 1000)).toBe(maxRps);
    });
  }, 400_000);
});
