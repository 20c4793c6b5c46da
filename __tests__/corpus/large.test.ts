/**
 * One term with more records than ESearch can page through (10,200 > 10,000): a first
 * pubmed_sync_delta must still store every record (result sets over ESearch's 10,000-record
 * reach are covered completely by splitting the date window: docs/architecture.md#a-sync-pubmed_sync_delta), without any EFetch
 * past the reach and without warnings. Prints the wall time and request count.
 */
import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { createSynthCorpus, type SynthCorpus } from "../../src/devtools/synth.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";
import { ESEARCH_REACH } from "../../src/corpus/sync.js";
import {
  chunkIds,
  storedPmids,
  unindexedPmids,
  vectorCount,
  type SyncOut,
} from "../helpers/corpus.js";
import { backendEnv, describeBackend } from "../helpers/db.js";
import { startFakeEutils, type FakeEutils, type FakeRequest } from "../helpers/fake-eutils.js";
import { startHarness, type Harness } from "../helpers/mcp.js";

// About 165 s alone with abstracts (471 s in a full suite on a loaded machine); see beforeAll.
jest.setTimeout(900_000);

const TERM = "vitamin d supplementation";

/** The create-date range a sync's arrivals search puts in its term. */
function windowOf(params: Record<string, string>): { mindate?: string; maxdate?: string } {
  const m = /"([\d/]+)"\[crdt\] : "([\d/]+)"\[crdt\]/.exec(params.term ?? "");
  expect(m).not.toBeNull();
  return { mindate: m?.[1], maxdate: m?.[2] };
}
const COUNT = 10_200;

// PGlite only: the default embedded store, and the slower one (measured: PGlite 164 s,
// server Postgres 77 s for the same sync); both together would take over four minutes.
const kind = "pglite";

describeBackend(kind, "a first sync past ESearch's reach", () => {
  let corpus: SynthCorpus;
  let fake: FakeEutils;
  let h: Harness | undefined;
  let backend: Awaited<ReturnType<typeof backendEnv>> | undefined;

  beforeAll(async () => {
    corpus = createSynthCorpus({
      seed: 3,
      now: new Date("2025-06-30T12:00:00Z"),
      terms: [{ term: TERM, count: COUNT, edatFrom: "2022-01-01", edatTo: "2024-12-31" }],
    });
    const handle = synthHandler(corpus);
    // Records without abstracts: one short chunk each instead of about three long ones. What is
    // under test is the window splitting and that every record arrives, not the indexing of text
    // (sync.test.ts covers that); the store's work per record is most of this test's time.
    const noAbstracts = (req: FakeRequest) => {
      const reply = handle(req);
      if (req.utility !== "efetch" || !reply) return reply;
      return { ...reply, body: reply.body.replace(/<Abstract>[\s\S]*?<\/Abstract>/g, "") };
    };
    fake = await startFakeEutils({ routes: [noAbstracts] });
    backend = await backendEnv(kind);
    // The fake server builds each 500-record reply on jest's thread; on a loaded machine that
    // took over the harness's 5 s per-request timeout (a CI run retried one batch). What is under
    // test here is not the timeout.
    h = await startHarness({
      fake,
      env: { ...backend.env, NCBI_MAX_RPS: "100", NCBI_TIMEOUT_MS: "120000" },
    });
  });
  afterAll(async () => {
    await h?.close();
    await backend?.cleanup();
    await fake?.close();
  });

  it(`stores all ${COUNT} records by splitting the create-date window`, async () => {
    if (!h) throw new Error("the harness did not start");
    const progress: number[] = [];
    const started = Date.now();
    const res = await h.client.callTool(
      { name: "pubmed_sync_delta", arguments: { query_key: "vitd", term: TERM } },
      undefined,
      {
        timeout: 890_000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => void progress.push(p.progress),
      },
    );
    const seconds = (Date.now() - started) / 1000;
    expect(res.isError).toBeFalsy();
    const out = JSON.parse((res.content as { text: string }[])[0]?.text ?? "{}") as SyncOut;

    const expected = corpus.pmidsFor(TERM);
    expect(expected).toHaveLength(COUNT);
    expect(out).toMatchObject({ inserted: COUNT, updated: 0, pmids_processed: COUNT });
    expect(out.warnings).toEqual([]);
    expect(await storedPmids()).toEqual([...expected].sort());
    expect(await unindexedPmids()).toEqual([]);
    expect(await vectorCount()).toBe((await chunkIds()).length);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(COUNT);

    const searches = fake.requests.filter((r) => r.utility === "esearch");
    const fetches = fake.requests.filter((r) => r.utility === "efetch");
    // The first search spans everything; some later ones must be narrower, each under the reach.
    // A first sync walks arrivals only, each window a create-date range in the term (the
    // synthetic records here were created on their Entrez date).
    const root = windowOf(searches[0]?.params ?? {});
    const narrower = searches
      .map((s) => windowOf(s.params))
      .filter((w) => w.mindate !== root.mindate || w.maxdate !== root.maxdate);
    expect(narrower.length).toBeGreaterThan(0);
    expect(corpus.pmidsFor(TERM, { edatFrom: root.mindate, edatTo: root.maxdate })).toHaveLength(
      COUNT,
    );
    for (const f of fetches) {
      const start = Number(f.params.retstart);
      expect(start).toBeLessThan(ESEARCH_REACH - 1);
      expect(start + Number(f.params.retmax)).toBeLessThanOrEqual(ESEARCH_REACH - 1);
    }
    // Each window's records are fetched once: its batches tile [0, its count), no gap and no
    // overlap. (Several are in flight at once, so they may arrive out of order; a batch the client
    // sent again after a timeout or a dropped connection is the same batch, counted once.)
    const byWindow = new Map<string, Map<number, number>>();
    for (const f of fetches) {
      const key = `${f.params.WebEnv}|${f.params.query_key}`;
      const batches = byWindow.get(key) ?? new Map<number, number>();
      const [start, max] = [Number(f.params.retstart), Number(f.params.retmax)];
      expect(batches.get(start) ?? max).toBe(max);
      byWindow.set(key, batches.set(start, max));
    }
    let fetchedRecords = 0;
    for (const batches of byWindow.values()) {
      let next = 0;
      for (const [start, max] of [...batches].sort(([a], [b]) => a - b)) {
        expect(start).toBe(next);
        next += max;
      }
      fetchedRecords += next;
    }
    expect(fetchedRecords).toBe(COUNT);
    // A window is fetched right after its own search: every fetched window fits the reach.
    const fetched = fake.requests.flatMap((r, i) => {
      const next = fake.requests[i + 1];
      return r.utility === "esearch" && next?.utility === "efetch" ? [windowOf(r.params)] : [];
    });
    expect(fetched.length).toBeGreaterThan(1);
    for (const w of fetched) {
      const n = corpus.pmidsFor(TERM, { edatFrom: w.mindate, edatTo: w.maxdate }).length;
      expect(n).toBeLessThan(ESEARCH_REACH);
    }
    process.stderr.write(
      `large sync [${kind}]: ${COUNT} records in ${seconds.toFixed(1)} s ` +
        `(${Math.round(COUNT / seconds)} records/s), ${fake.requests.length} requests ` +
        `(${searches.length} esearch, ${fetches.length} efetch)\n`,
    );
  });
});
