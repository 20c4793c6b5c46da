/**
 * Two pgvector adapters on one database stand for two replicas (each keeps its own in-memory BM25
 * index): whatever one writes — new chunks, replacements, a retraction, deletions, a reset — the
 * other's next query sees, with BM25 scores equal to the from-scratch reference over the chunks
 * the database holds. Also when tombstones it needed were pruned (it reloads), and when both
 * write at once (generations serialise them). On PGlite and PostgreSQL, and with the second
 * adapter's index in a thread of its own (lexical-thread.ts, as the corpus worker keeps it).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { sql } from "kysely";
import { querySparseVector, tokenize } from "../../src/retrieval/bm25.js";
import { log } from "../../src/log.js";
import { PgVectorStore } from "../../src/vectors/pgvector/adapter.js";
import type { Hit } from "../../src/vectors/vector-store.js";
import {
  CORPUS,
  DIMENSION,
  QUERIES,
  describePostgres,
  expectedBm25,
  openPglite,
  openPostgres,
  points,
  type DbHandle,
  type TestChunk,
} from "./harness.js";

beforeAll(() => {
  log.silent = true;
});
afterAll(() => {
  log.silent = false;
});

const byId = (id: string) => CORPUS.find((c) => c.id === id)!;
const ofPmids = (...pmids: string[]) => CORPUS.filter((c) => pmids.includes(c.pmid));
const except = (...pmids: string[]) => CORPUS.filter((c) => !pmids.includes(c.pmid));

async function search(store: PgVectorStore, query: string, excludeRetracted = false) {
  return store.searchSparse(querySparseVector(tokenize(query)), 50, { excludeRetracted });
}

/** Every query ranks and scores as BM25 over exactly `chunks` (N and df included). */
async function expectIndexOf(store: PgVectorStore, chunks: TestChunk[]): Promise<void> {
  for (const query of QUERIES) {
    const want = [...expectedBm25(chunks, query)].sort((a, b) => b[1] - a[1]);
    const got: Hit[] = await search(store, query);
    expect(got.map((h) => h.id).sort()).toEqual(want.map(([id]) => id).sort());
    got.forEach((h, i) => {
      expect(h.score).toBeCloseTo(want[i]![1], 4);
      expect(h.payload).toEqual(byId(h.id).payload);
    });
  }
}

function replicaSuite(
  open: () => Promise<DbHandle>,
  { exclusive = false, thread = false }: { exclusive?: boolean; thread?: boolean } = {},
) {
  // Adapters of one exclusive store share its commit count (Store.localWrites).
  const localWrites = exclusive ? { gen: 0, resets: 0 } : undefined;
  let handle: DbHandle;
  let a: PgVectorStore;
  let b: PgVectorStore;

  beforeAll(async () => {
    handle = await open();
    a = new PgVectorStore(handle.db, handle.hasPgvector, localWrites);
    b = new PgVectorStore(handle.db, handle.hasPgvector, localWrites, { lexicalThread: thread });
    await a.ensure(DIMENSION);
    await b.ensure(DIMENSION);
  });
  afterAll(async () => {
    await b.close();
    await handle.close();
  });

  it("sees the other replica's writes and deletions before its next query", async () => {
    await a.upsert(points(ofPmids("1001", "1002", "1003")));
    await expectIndexOf(b, ofPmids("1001", "1002", "1003"));
    await a.upsert(points(except("1001", "1002", "1003")));
    await expectIndexOf(b, CORPUS);
    await b.deletePmids(["1001", "1006"]);
    await expectIndexOf(a, except("1001", "1006"));
    await expectIndexOf(b, except("1001", "1006"));
  });

  it("drops a newly retracted chunk from the other replica's filtered results", async () => {
    const statins = CORPUS.find((c) => c.pmid === "1007")!;
    expect((await search(b, "statin elderly", true)).map((h) => h.pmid)).toContain("1007");
    await a.upsert(points([{ ...statins, payload: { ...statins.payload, retracted: true } }]));
    expect((await search(b, "statin elderly", true)).map((h) => h.pmid)).not.toContain("1007");
    await a.upsert(points([statins]));
    expect((await search(b, "statin elderly", true)).map((h) => h.pmid)).toContain("1007");
  });

  it("agrees after both replicas write at once", async () => {
    await Promise.all([
      a.upsert(points(ofPmids("1001"))),
      b.upsert(points(ofPmids("1006"))),
      a.deletePmids(["1010"]),
    ]);
    await expectIndexOf(a, except("1010"));
    await expectIndexOf(b, except("1010"));
    await a.upsert(points(ofPmids("1010")));
  });

  it("reloads when the tombstones it needed were pruned", async () => {
    await expectIndexOf(b, CORPUS);
    await a.deletePmids(["1004"]);
    // As if thousands of generations had passed while b was idle.
    await sql`delete from chunk_tombstones`.execute(handle.db);
    await sql`update chunk_stats set pruned_gen = gen`.execute(handle.db);
    await expectIndexOf(b, except("1004"));
    await a.upsert(points(ofPmids("1004")));
  });

  it("reloads when the other replica recreated the tables (reindex)", async () => {
    await expectIndexOf(b, CORPUS);
    await a.reset(DIMENSION);
    await a.upsert(points(ofPmids("1005", "1008")));
    await expectIndexOf(b, ofPmids("1005", "1008"));
    expect(await b.count()).toBe(ofPmids("1005", "1008").length);
  });
}

describe("lexical index across replicas [pglite]", () => replicaSuite(openPglite));
// Two adapters of one exclusive store (the embedded store's path): no stats read when nothing
// was committed since, and still each other's writes before the next query.
describe("lexical index across adapters of an exclusive store [pglite]", () =>
  replicaSuite(openPglite, { exclusive: true }));
describe("lexical index in a thread, across adapters of an exclusive store [pglite]", () =>
  replicaSuite(openPglite, { exclusive: true, thread: true }));

describe("exclusive store: the generation check without a round trip [pglite]", () => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openPglite();
  });
  afterAll(async () => {
    await handle.close();
  });

  it("reads chunk_stats only when a write was committed since its last read", async () => {
    let statsReads = 0;
    const counted = handle.db.withPlugin({
      transformQuery: (args) => {
        const node = args.node as { kind: string; sqlFragments?: readonly string[] };
        if (node.kind === "RawNode" && node.sqlFragments?.join("?").includes("from chunk_stats"))
          statsReads++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const localWrites = { gen: 0, resets: 0 };
    const mine = new PgVectorStore(counted, handle.hasPgvector, localWrites);
    const other = new PgVectorStore(handle.db, handle.hasPgvector, localWrites);
    const shared = new PgVectorStore(counted, handle.hasPgvector);
    await mine.ensure(DIMENSION);
    await other.ensure(DIMENSION);
    await mine.upsert(points(ofPmids("1001", "1002")));
    await expectIndexOf(mine, ofPmids("1001", "1002"));
    const afterFirst = statsReads;
    await expectIndexOf(mine, ofPmids("1001", "1002"));
    expect(statsReads).toBe(afterFirst);
    // Another adapter's commit to the same store: the next query reads, and sees it.
    await other.upsert(points(ofPmids("1003")));
    await expectIndexOf(mine, ofPmids("1001", "1002", "1003"));
    expect(statsReads).toBeGreaterThan(afterFirst);
    // Without the exclusive flag (PostgreSQL) every query checks.
    const before = statsReads;
    await search(shared, "statin");
    await search(shared, "statin");
    expect(statsReads - before).toBeGreaterThanOrEqual(2);
  });
});
describePostgres("lexical index across replicas [postgres]", () => replicaSuite(openPostgres));
describePostgres("lexical index in a thread, across replicas [postgres]", () =>
  replicaSuite(openPostgres, { thread: true }),
);
