/**
 * The BM25 index in a thread of its own (src/vectors/memory/lexical-thread.ts): the same hits and scores
 * as the index on the calling thread, updates applied before the searches that follow them, and a
 * thread that dies is replaced by a new one holding the index loaded again — the search that finds
 * it dead answers correctly, and nothing waits forever.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { querySparseVector, tokenize } from "../../src/retrieval/bm25.js";
import { log } from "../../src/log.js";
import { LexicalThread } from "../../src/vectors/memory/lexical-thread.js";
import { LexicalMirror } from "../../src/vectors/pgvector/lexical.js";
import { PgVectorStore } from "../../src/vectors/pgvector/adapter.js";
import {
  CORPUS,
  DIMENSION,
  QUERIES,
  expectedBm25,
  openPglite,
  points,
  type DbHandle,
} from "./harness.js";

beforeAll(() => {
  log.silent = true;
});
afterAll(() => {
  log.silent = false;
});

const sparse = (q: string) => querySparseVector(tokenize(q));
const ranked = (hits: { id: string; score: number }[]) =>
  hits.map((h) => [h.id, Number(h.score.toFixed(6))]);

describe("lexical index in a thread [pglite]", () => {
  let handle: DbHandle;
  let writer: PgVectorStore;
  let inline: LexicalMirror;
  let thread: LexicalThread;
  let threaded: LexicalMirror;

  beforeAll(async () => {
    handle = await openPglite();
    writer = new PgVectorStore(handle.db, handle.hasPgvector);
    await writer.ensure(DIMENSION);
    await writer.upsert(points(CORPUS.slice(0, 6)));
    inline = new LexicalMirror(handle.db);
    thread = new LexicalThread();
    threaded = new LexicalMirror(handle.db, undefined, thread);
  });
  afterAll(async () => {
    await threaded.close();
    await handle.close();
  });

  const expectSame = async () => {
    let found = 0;
    for (const q of QUERIES) {
      const here = await inline.search(sparse(q), 50, false);
      const there = await threaded.search(sparse(q), 50, false);
      expect(ranked(there)).toEqual(ranked(here));
      for (const h of there) expect(h.pmid).toBe(CORPUS.find((c) => c.id === h.id)!.pmid);
      found += there.length;
    }
    expect(found).toBeGreaterThan(0);
  };

  it("answers with the hits and scores of the index on this thread", async () => {
    await expectSame();
    const want = expectedBm25(CORPUS.slice(0, 6), QUERIES[0]!);
    const got = await threaded.search(sparse(QUERIES[0]!), 50, false);
    expect(got.map((h) => h.id).sort()).toEqual([...want.keys()].sort());
  });

  it("sees writes made after it loaded, in order, and drops retracted chunks when asked", async () => {
    await writer.upsert(points(CORPUS.slice(6)));
    await writer.deletePmids([CORPUS[0]!.pmid]);
    await expectSame();
    const gone = await threaded.search(sparse(QUERIES.join(" ")), 100, false);
    expect(gone.map((h) => h.pmid)).not.toContain(CORPUS[0]!.pmid);
    const retracted = CORPUS.filter((c) => c.payload.retracted).map((c) => c.id);
    expect(retracted.length).toBeGreaterThan(0);
    const filtered = await threaded.search(sparse(QUERIES.join(" ")), 100, true);
    for (const id of retracted) expect(filtered.map((h) => h.id)).not.toContain(id);
  });

  it("loads the index again into a new thread after its thread died", async () => {
    await thread.crashForTests();
    expect(thread.failed).toBe(true);
    await expect(thread.search(sparse(QUERIES[0]!), 5, false)).rejects.toThrow(/stopped/);
    await expectSame();
    expect(thread.failed).toBe(false);
  });
});
