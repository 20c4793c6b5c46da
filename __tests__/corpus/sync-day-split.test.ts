/**
 * A day with more records than ESearch pages through is split by PMID range, so no record of it is
 * lost (issue 48: a day of 10,000 or more modified records, such as a MeSH reload, stopped the sync
 * with a misleading max_records warning, and the next call fetched only that day's first 9,999).
 * The synthetic NCBI hands out 100 records of a result set here, as PubMed hands out 9,999, and the
 * sync is told ESearch's reach is 100: the same splitting at a size a test affords. Checked on both
 * backends: every record of a one-day first sync stored; a one-day revision of 250 records fetched
 * completely in calls of max_records 60, each resuming inside the day after the last PMID range
 * it completed; then a replay changes nothing.
 */
import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { sql } from "kysely";
import { openCorpus, type Corpus } from "../../src/corpus/runtime.js";
import { syncDelta, type SyncResult } from "../../src/corpus/sync.js";
import { createSynthCorpus, type SynthCorpus } from "../../src/devtools/synth.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";
import { EutilsClient } from "../../src/ncbi/client.js";
import { getCheckpoint } from "../../src/store/checkpoints.js";
import { listJobs } from "../../src/store/jobs.js";
import { describeEachBackend, openTestStore, type TestStore } from "../helpers/db.js";
import { storeConfig } from "../helpers/corpus.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";

jest.setTimeout(180_000);

const TERM = "one crowded day";
const NOW = new Date("2025-06-30T12:00:00Z");
const DAY_MS = 86_400_000;
const REACH = 100;
/** Created on one day, far past REACH. */
const CROWDED = 330;
/** Spread over the year before it. */
const SPREAD = 50;
const REVISED = 250;

describeEachBackend("a day past ESearch's reach, split by PMID range", (kind) => {
  let synth: SynthCorpus;
  let fake: FakeEutils;
  let scratch: TestStore;
  let corpus: Corpus;
  let deps: Parameters<typeof syncDelta>[0];

  beforeAll(async () => {
    synth = createSynthCorpus({
      seed: 4848,
      now: NOW,
      terms: [{ term: TERM, count: SPREAD, edatFrom: "2023-03-01", edatTo: "2024-03-01" }],
    });
    synth.add({ term: TERM, count: CROWDED, edatFrom: "2024-03-05", edatTo: "2024-03-05" });
    fake = await startFakeEutils({ routes: [synthHandler(synth, { reach: REACH })] });
    scratch = await openTestStore(kind);
    await scratch.store.close(); // the corpus opens the same database itself
    const config = storeConfig(fake.baseUrl, scratch);
    corpus = await openCorpus(config);
    deps = {
      ...corpus,
      eutils: new EutilsClient(config.ncbi),
      now: () => NOW,
      esearchReach: REACH,
    };
  });
  afterAll(async () => {
    await corpus?.close();
    await fake?.close();
    await scratch?.cleanup();
  });

  const sync = (maxRecords = 50_000): Promise<SyncResult> =>
    syncDelta(deps, { queryKey: "crowded", term: TERM, overlapDays: 5, maxRecords });
  const versions = async (): Promise<Map<string, number>> => {
    const { rows } = await sql<{ pmid: string; version: number }>`
      select pmid::text as pmid, version from documents`.execute(corpus.store.db);
    return new Map(rows.map((r) => [r.pmid, r.version]));
  };

  it(`stores all ${CROWDED} records created on one day, with no warning`, async () => {
    const out = await sync();
    expect(out).toMatchObject({ inserted: CROWDED + SPREAD, pmids_processed: CROWDED + SPREAD });
    expect(out.warnings).toEqual([]);
    const stored = await versions();
    expect([...stored.keys()].sort()).toEqual([...synth.pmidsFor(TERM)].sort());
    // The day was split by PMID range, and no part of it asked past the reach.
    const searches = fake.requests.filter((r) => r.utility === "esearch");
    const parts = searches.filter((r) => /\[uid\]\)$/.test(r.params.term ?? ""));
    expect(parts.length).toBeGreaterThan(0);
    for (const f of fake.requests.filter((r) => r.utility === "efetch")) {
      expect(Number(f.params.retstart) + Number(f.params.retmax)).toBeLessThanOrEqual(REACH - 1);
    }
    expect((await getCheckpoint(corpus.store.db, "crowded"))?.lastEdat?.slice(0, 10)).toBe(
      NOW.toISOString().slice(0, 10),
    );
  });

  it(`fetches a one-day revision of ${REVISED} records in calls of max_records 60, resuming inside the day`, async () => {
    const day = new Date(Math.floor(NOW.getTime() / DAY_MS) * DAY_MS - 2 * DAY_MS);
    const revised = synth.pmidsFor(TERM).slice(-REVISED);
    for (const p of revised) {
      synth.revise(p, { lr: day, changeAbstract: true, mdat: new Date(day.getTime() + 3_600_000) });
    }
    let updated = 0;
    let rounds = 0;
    while (rounds < 20) {
      const out = await sync(60);
      rounds++;
      expect(out.pmids_processed).toBeLessThanOrEqual(60);
      expect(out.inserted).toBe(0);
      updated += out.updated;
      const [job] = await listJobs(corpus.store.db, { queryKey: "crowded", limit: 1 });
      if (job?.status === "succeeded") break;
      expect(job?.status).toBe("partial");
      // A stopped call makes progress: a call that only re-read what an earlier one stored would
      // never end.
      expect(out.updated).toBeGreaterThan(0);
    }
    expect(updated).toBe(REVISED);
    expect(rounds).toBeGreaterThanOrEqual(Math.ceil(REVISED / 60));
    expect(rounds).toBeLessThan(20);
    const stored = await versions();
    for (const p of revised) expect(stored.get(p)).toBe(2);
    expect([...stored.values()].filter((v) => v === 2)).toHaveLength(REVISED);
  });

  it("replays the overlap, day split and all, without a change", async () => {
    const out = await sync();
    expect(out).toMatchObject({ inserted: 0, updated: 0 });
    expect(out.warnings).toEqual([]);
    expect((await versions()).size).toBe(CROWDED + SPREAD);
  });
});
