/**
 * A long first sync refreshes the planner's statistics while it runs, not only after it answers.
 * Without any (a new store: PGlite has no autovacuum; a server's may be off or behind), each
 * batch's `delete from chunk_vectors where pmid = any(…)` was planned as a sequential scan, so a
 * batch's cost grew with the table: on PostgreSQL 2,300 records/s at first, 1,080 at 320,000
 * records (bench `scale`, issue 48). Checked from the sync's own progress callback, between
 * batches, in a window that starts past the first CHECKPOINT_EVERY records.
 */
import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { sql } from "kysely";
import { openCorpus } from "../../src/corpus/runtime.js";
import { CHECKPOINT_EVERY, syncDelta } from "../../src/corpus/sync.js";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";
import { EutilsClient } from "../../src/ncbi/client.js";
import { describeEachBackend, openTestStore, type TestStore } from "../helpers/db.js";
import { storeConfig } from "../helpers/corpus.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";

jest.setTimeout(180_000);

const TERM = "statistics during a sync";
/**
 * Past twice ESearch's reach: the sync walks at least three windows of under 10,000 records. The
 * store is maintained at the start of the first window that begins past CHECKPOINT_EVERY records,
 * which begins before record 15,000 (the window before it began before record 5,000).
 */
const COUNT = 20_000;
const CHECK_FROM = 15_000;

describeEachBackend("planner statistics during a long first sync", (kind) => {
  let fake: FakeEutils;
  let scratch: TestStore;

  beforeAll(async () => {
    const corpus = createSynthCorpus({
      seed: 48,
      now: new Date("2025-06-30T12:00:00Z"),
      terms: [{ term: TERM, count: COUNT, edatFrom: "2023-01-01", edatTo: "2024-12-31" }],
    });
    fake = await startFakeEutils({ routes: [synthHandler(corpus)] });
    scratch = await openTestStore(kind);
    await scratch.store.close(); // the corpus opens the same database itself
  });
  afterAll(async () => {
    await fake?.close();
    await scratch?.cleanup();
  });

  it(`has chunk_vectors analyzed in the window after the first ${CHECKPOINT_EVERY} records`, async () => {
    const config = storeConfig(fake.baseUrl, scratch);
    const corpus = await openCorpus(config);
    /** Per progress report in the second window: whether chunk_vectors.pmid has statistics. */
    const seen: boolean[] = [];
    try {
      const out = await syncDelta(
        {
          ...corpus,
          eutils: new EutilsClient(config.ncbi),
          onProgress: async (done) => {
            if (done < CHECK_FROM || done >= COUNT) return;
            // pg_stats holds a column only once ANALYZE ran (catalog rows: no stats flush needed).
            const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stats
              where tablename = 'chunk_vectors' and attname = 'pmid'`.execute(corpus.store.db);
            seen.push((rows[0]?.n ?? 0) > 0);
          },
        },
        { queryKey: "stats", term: TERM, overlapDays: 5, maxRecords: COUNT },
      );
      expect(out).toMatchObject({ inserted: COUNT, pmids_processed: COUNT });
    } finally {
      await corpus.close();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every(Boolean)).toBe(true);
  });
});
