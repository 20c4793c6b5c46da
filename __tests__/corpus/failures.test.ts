/**
 * pubmed_sync_delta when the embedder or the vector store fails (docs/architecture.md#a-sync-pubmed_sync_delta): the checkpoint
 * never moves over a window that was not fully indexed, documents stored before the failure are
 * left unindexed and picked up by the next run, and the rerun converges to exactly the expected
 * corpus. Through the MCP client, on both Postgres backends; Cohere and Qdrant are local fakes
 * behind a gate that takes them down and back up with their state intact.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, jest } from "@jest/globals";
import { createSynthCorpus, type SynthCorpus } from "../../src/devtools/synth.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";
import { corpusDb } from "../helpers/corpus-db.js";
import { listJobs } from "../../src/store/jobs.js";
import {
  checkpointOf,
  chunkIds,
  expectConverged,
  pgvectorIds,
  startGate,
  storedPmids,
  unindexedPmids,
  vectorCount,
  type ErrOut,
  type Gate,
  type SyncOut,
} from "../helpers/corpus.js";
import { backendEnv, describeEachBackend } from "../helpers/db.js";
import { startFakeCohere, type FakeCohere } from "../helpers/fake-cohere.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { loadQdrantSpec, startFakeQdrant, type FakeQdrant } from "../helpers/fake-qdrant.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";

jest.setTimeout(180_000);

const TERM = "statin myopathy";
const KEY = "statins";
const UNINDEXED_WARNING = (n: number) =>
  `Indexed ${n} stored documents an earlier run left unindexed.`;

let fake: FakeEutils;
let corpus: SynthCorpus;
let backend: Awaited<ReturnType<typeof backendEnv>>;
let h: Harness;
let gate: Gate;

beforeAll(async () => {
  fake = await startFakeEutils();
});
afterAll(async () => {
  await fake.close();
});

/** A fresh store and synthetic NCBI; the harness is started by each suite. */
async function prepare(kind: Parameters<typeof backendEnv>[0]): Promise<void> {
  corpus = createSynthCorpus({
    seed: 11,
    now: new Date("2025-06-30T12:00:00Z"),
    terms: [{ term: TERM, count: 240, edatFrom: "2019-01-01", edatTo: "2025-06-20" }],
  });
  const handle = synthHandler(corpus);
  fake.reset();
  fake.route((req) => handle(req));
  backend = await backendEnv(kind);
}

const harness = (env: Record<string, string>) =>
  startHarness({ fake, env: { ...backend.env, NCBI_MAX_RPS: "100", ...env } });

const sync = async (args: Record<string, unknown> = {}) =>
  callTool(h.client, "pubmed_sync_delta", { query_key: KEY, term: TERM, ...args });

const expected = () => [...corpus.pmidsFor(TERM)].sort();

/** Runs `act` when the n-th EFetch arrives, i.e. as the sync starts its n-th window or batch. */
function onEfetch(n: number, act: () => void): void {
  let seen = 0;
  fake.route((req) => {
    if (req.utility === "efetch" && ++seen === n) act();
    return undefined;
  });
}

async function lastJobStatus(): Promise<string | undefined> {
  return (await listJobs(corpusDb, { queryKey: KEY }))[0]?.status;
}

describeEachBackend("sync when the embedder fails", (kind) => {
  let cohere: FakeCohere;

  beforeEach(async () => {
    await prepare(kind);
    cohere = await startFakeCohere("test");
    gate = await startGate(cohere.url);
    h = await harness({
      EMBEDDINGS_PROVIDER: "cohere",
      COHERE_API_KEY: "test",
      COHERE_BASE_URL: gate.url,
    });
  });
  afterEach(async () => {
    await h.close();
    await gate.close();
    await cohere.stop();
    await backend.cleanup();
  });

  it("HTTP 500 until healed: no checkpoint, stored documents left unindexed, the rerun indexes them", async () => {
    gate.fail({ status: 500, body: { message: "internal server error" } });
    const failed = await sync();
    expect(failed.isError).toBe(true);
    expect((failed.json as ErrOut).error).toMatchObject({
      code: "EMBEDDINGS",
      message: expect.stringContaining("HTTP 500"),
    });
    // 5xx is retried (4 retries) before the sync gives up.
    expect(gate.requests.length).toBeGreaterThanOrEqual(5);
    expect(await checkpointOf(h.client, KEY)).toBeNull();
    expect(await storedPmids()).toEqual(expected());
    expect(await unindexedPmids()).toEqual(expected());
    expect(await vectorCount()).toBe(0);
    expect(await lastJobStatus()).toBe("failed");

    gate.heal();
    const rerun = await sync();
    expect(rerun.isError).toBe(false);
    expect(rerun.json as SyncOut).toMatchObject({
      inserted: 0,
      updated: 0,
      skipped: expected().length,
      warnings: [UNINDEXED_WARNING(expected().length)],
    });
    await expectConverged(h.client, {
      queryKey: KEY,
      expected: expected(),
      vectorIds: pgvectorIds,
    });
    expect(cohere.requests.at(-1)?.body.input_type).toBe("search_query");
  });

  it("a rejected key in the second window: fails fast, the checkpoint stays at the first window", async () => {
    let before = 0;
    onEfetch(2, () => {
      before = gate.requests.length;
      gate.fail({ status: 401, body: { message: "invalid api token" } });
    });
    // max_records 100 of 240 splits the range into several windows.
    const failed = await sync({ max_records: 100 });
    expect(failed.isError).toBe(true);
    expect((failed.json as ErrOut).error).toMatchObject({
      code: "EMBEDDINGS",
      message: expect.stringContaining("COHERE_API_KEY"),
    });
    // 401 is not retried: at most one request per concurrent batch.
    expect(gate.requests.length - before).toBeLessThanOrEqual(2);
    const cp = await checkpointOf(h.client, KEY);
    expect(cp).not.toBeNull();
    const covered = corpus.pmidsFor(TERM, { edatTo: (cp ?? "").slice(0, 10) });
    expect(covered.length).toBeGreaterThan(0);
    const stored = await storedPmids();
    const unindexed = await unindexedPmids();
    // Everything up to the checkpoint is stored and indexed; the failed window's records are
    // stored but unindexed; nothing later was fetched.
    expect(stored).toEqual(expect.arrayContaining(covered));
    expect(unindexed.filter((p) => covered.includes(p))).toEqual([]);
    expect(unindexed.length).toBeGreaterThan(0);
    expect(stored.length).toBeLessThan(expected().length);

    gate.heal();
    const rerun = (await sync()).json as SyncOut;
    expect(rerun.warnings).toEqual([UNINDEXED_WARNING(unindexed.length)]);
    expect(rerun.inserted).toBe(expected().length - stored.length);
    await expectConverged(h.client, {
      queryKey: KEY,
      expected: expected(),
      vectorIds: pgvectorIds,
    });
  });
});

const spec = loadQdrantSpec();
if (!spec) process.stderr.write("note: skipping the Qdrant failure suites: no Qdrant spec\n");

(spec ? describeEachBackend : () => undefined)("sync when the vector store fails", (kind) => {
  let qdrant: FakeQdrant;
  const pointIds = (q: FakeQdrant) => async () => [
    ...(q.collections.get("pubmed_chunks")?.points.keys() ?? []),
  ];

  beforeEach(async () => {
    await prepare(kind);
    qdrant = await startFakeQdrant(spec!);
    gate = await startGate(qdrant.url);
  });
  afterEach(async () => {
    await h.close();
    await gate.close();
    await qdrant.stop();
    await backend.cleanup();
    expect(qdrant.violations).toEqual([]);
    expect(qdrant.unsupported).toEqual([]);
  });

  const qdrantEnv = (url: string) => ({ VECTOR_STORE: "qdrant", QDRANT_URL: url });

  it("Qdrant down before the sync: VECTOR_STORE, nothing fetched; back up, the rerun converges", async () => {
    await gate.stop();
    h = await harness(qdrantEnv(gate.url));
    const failed = await sync();
    expect(failed.isError).toBe(true);
    expect((failed.json as ErrOut).error).toMatchObject({
      code: "VECTOR_STORE",
      message: expect.stringContaining("not reachable"),
    });
    expect(fake.requests.filter((r) => r.utility === "efetch")).toEqual([]);

    await gate.start();
    expect(await checkpointOf(h.client, KEY)).toBeNull();
    const rerun = (await sync()).json as SyncOut;
    expect(rerun).toMatchObject({ inserted: expected().length, warnings: [] });
    await expectConverged(h.client, {
      queryKey: KEY,
      expected: expected(),
      vectorIds: pointIds(qdrant),
    });
  });

  it("Qdrant dying mid-upsert: no checkpoint, partial points replaced on the rerun", async () => {
    h = await harness(qdrantEnv(gate.url));
    let upserts = 0;
    gate.fail("hangup", (r) => r.method === "PUT" && r.path.includes("/points") && ++upserts >= 3);
    const failed = await sync();
    expect(failed.isError).toBe(true);
    expect((failed.json as ErrOut).error.code).toBe("VECTOR_STORE");
    expect(await checkpointOf(h.client, KEY)).toBeNull();
    expect(await unindexedPmids()).toEqual(expected());
    // Some points landed before the crash, for documents not marked indexed.
    const partial = (await pointIds(qdrant)()).length;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan((await chunkIds()).length);

    gate.heal();
    const rerun = (await sync()).json as SyncOut;
    expect(rerun.warnings).toEqual([UNINDEXED_WARNING(expected().length)]);
    await expectConverged(h.client, {
      queryKey: KEY,
      expected: expected(),
      vectorIds: pointIds(qdrant),
    });
  });

  it("Qdrant replaced by an empty instance: the next sync rebuilds every vector", async () => {
    h = await harness(qdrantEnv(gate.url));
    expect((await sync()).isError).toBe(false);
    await h.close();
    const fresh = await startFakeQdrant(spec!);
    try {
      h = await harness(qdrantEnv(fresh.url));
      const rerun = (await sync()).json as SyncOut;
      expect(rerun.warnings).toEqual([UNINDEXED_WARNING(expected().length)]);
      await expectConverged(h.client, {
        queryKey: KEY,
        expected: expected(),
        vectorIds: pointIds(fresh),
      });
      expect(fresh.violations).toEqual([]);
    } finally {
      await fresh.stop();
    }
  });
});
