/**
 * The pgvector adapter in the corpus's own store keeps each paper's integrity notices in its
 * chunk rows, read with the payload (no join, no second read), null for none; a store whose rows
 * were written before the column existed gets them from the documents rows when ensure() adds
 * it. On both Postgres backends, on a migrated store (the suite's adapter-only tables are in
 * pgvector.test.ts).
 */
import { afterEach, beforeEach, expect, it } from "@jest/globals";
import { sql } from "kysely";
import { upsertDocuments } from "../../src/store/docs.js";
import type { Notice } from "../../src/ncbi/notices.js";
import { createVectorStore } from "../../src/vectors/index.js";
import type { ChunkPoint, VectorStore } from "../../src/vectors/vector-store.js";
import { describeEachBackend, openTestStore, type TestStore } from "../helpers/db.js";
import { doc } from "../store/fixtures.js";
import { CORPUS, points } from "./harness.js";

const CONCERN: Notice = { type: "expression_of_concern", notice_pmid: "39990002", date: "2025-06" };

describeEachBackend("pgvector chunk rows with their paper's notices", (kind) => {
  let t: TestStore;
  // Lexical only (dimension 0): no dense vectors.
  const [flagged, plain] = points(CORPUS.slice(0, 2)).map((p, i): ChunkPoint => ({
    ...p,
    pmid: `${i + 1}`,
    dense: [],
  })) as [ChunkPoint, ChunkPoint];
  const open = async (): Promise<VectorStore> => {
    const vectors = await createVectorStore(
      { vectorStore: "pgvector", qdrant: { url: undefined, apiKey: undefined, collection: "x" } },
      t.store,
    );
    await vectors.ensure(0);
    return vectors;
  };
  const stored = async () =>
    (
      await sql<{ pmid: string; notices: Notice[] | null }>`select pmid, notices
        from chunk_vectors order by pmid`.execute(t.store.db)
    ).rows;

  beforeEach(async () => {
    t = await openTestStore(kind);
    await upsertDocuments(t.store.db, [doc("1", { notices: [CONCERN] }), doc("2")]);
  });
  afterEach(() => t.cleanup());

  it("writes the payload's notices, null for none, and reads them back with it", async () => {
    const vectors = await open();
    await vectors.upsert([
      { ...flagged, payload: { ...flagged.payload, notices: [CONCERN] } },
      plain,
    ]);
    const read = await vectors.payloads!([flagged.id, plain.id]);
    expect(read.get(flagged.id)).toEqual({ ...flagged.payload, notices: [CONCERN] });
    expect(read.get(plain.id)).toEqual({ ...plain.payload, notices: [] });
    expect(await stored()).toEqual([
      { pmid: "1", notices: [CONCERN] },
      { pmid: "2", notices: null },
    ]);
  });

  it("gives the rows of a store made before the column theirs, from the documents rows", async () => {
    await (await open()).upsert([flagged, plain]);
    await sql`alter table chunk_vectors drop column notices`.execute(t.store.db);
    const reopened = await open();
    expect(await stored()).toEqual([
      { pmid: "1", notices: [CONCERN] },
      { pmid: "2", notices: null },
    ]);
    expect((await reopened.payloads!([flagged.id])).get(flagged.id)?.notices).toEqual([CONCERN]);
  });
});
