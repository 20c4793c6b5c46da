/**
 * A sync's batch stored (src/corpus/batch.ts storeBatch). In the default corpus (lexical only,
 * pgvector in the store's database) it is one transaction: the documents are written already
 * marked indexed, with their chunks and postings, and a failure anywhere in it leaves none of the
 * batch behind; a revised record replaces its chunks and the in-memory BM25 index follows at once.
 * The chunks are pgvector's rows alone: the chunks table is not written, and rows an earlier
 * version left there go when their document is written again, or when the adapter next prepares
 * its tables (the store opens) for documents not written since. A chunk row over TOAST's 2 KB
 * stays whole, not compressed. With embeddings (hash) the batch takes the two-step path and ends
 * the same.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "@jest/globals";
import { sql } from "kysely";
import { storeBatch } from "../../src/corpus/batch.js";
import { prepareBatch, type PreparedBatch } from "../../src/corpus/prepare.js";
import { querySparseVector, tokenize } from "../../src/retrieval/bm25.js";
import type { IndexDeps } from "../../src/corpus/indexer.js";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { articleSetXml } from "../../src/devtools/synth-xml.js";
import type { Embedder } from "../../src/embeddings/embedder.js";
import { HashEmbedder } from "../../src/embeddings/hash.js";
import { NoEmbedder } from "../../src/embeddings/none.js";
import { VectorStoreError } from "../../src/errors.js";
import {
  countChunks,
  countDocuments,
  getDocument,
  getDocumentChunks,
  listUnindexed,
  replaceChunks,
  upsertDocuments,
} from "../../src/store/docs.js";
import { createVectorStore } from "../../src/vectors/index.js";
import type { VectorStore } from "../../src/vectors/vector-store.js";
import { describeEachBackend, openTestStore, resetStore, type TestStore } from "../helpers/db.js";

const NOW = new Date("2026-11-27T00:00:00Z");
const corpus = createSynthCorpus({
  seed: 5,
  terms: [{ term: "batch", count: 30, edatFrom: "2021-01-01", edatTo: "2024-12-31" }],
});
const records = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i));
const xml = articleSetXml(records);
const FIRST = records[0]!.pmid;
const NEW_TITLE = "Zymurgical quinoxaline lattices in axolotl regeneration";
const LEGACY_ID = "00000000-0000-4000-8000-000000000001";

/** The reply with the first record retitled (a revision: new content, new hash). */
const revisedXml = () => {
  const at = xml.indexOf("<ArticleTitle>");
  const end = xml.indexOf("</ArticleTitle>", at);
  return `${xml.slice(0, at)}<ArticleTitle>${NEW_TITLE}${xml.slice(end)}`;
};

/** The reply with the first record's abstract one long sentence: a chunk row over 2 KB. */
const longAbstractXml = () => {
  const words = ["hepatocellular", "immunohistochemistry", "pharmacokinetics", "electrophysiology"];
  const sentence = Array.from({ length: 170 }, (_, i) => words[(i * 3) % words.length]).join(" ");
  const at = xml.indexOf("<Abstract>");
  const end = xml.indexOf("</Abstract>", at);
  return `${xml.slice(0, at)}<Abstract><AbstractText>${sentence}.</AbstractText>${xml.slice(end)}`;
};

const chunkTotal = (batch: PreparedBatch) =>
  [...batch.chunks.values()].reduce((n, chunks) => n + chunks.length, 0);
const chunksOf = (batch: PreparedBatch) => [...batch.chunks.values()].flat();

describeEachBackend("storing a sync batch", (kind) => {
  let t: TestStore;
  let vectors: VectorStore;
  const deps = (embedder: Embedder = new NoEmbedder()): IndexDeps => ({
    store: t.store,
    vectors,
    embedder,
  });
  const search = async (text: string) => vectors.searchSparse(querySparseVector(tokenize(text)), 5);

  beforeAll(async () => {
    t = await openTestStore(kind);
  });
  afterAll(() => t.cleanup());

  async function fresh(dimension: number): Promise<void> {
    await resetStore(t.store);
    vectors = await createVectorStore(
      { vectorStore: "pgvector", qdrant: { url: undefined, apiKey: undefined, collection: "x" } },
      t.store,
    );
    await vectors.reset(dimension);
  }
  beforeEach(() => fresh(0));

  it("lexical only: one transaction writes documents marked indexed, their chunks and postings", async () => {
    expect(vectors.writerIn?.(t.store.db)).toBeDefined();
    const batch = prepareBatch(xml, NOW);
    const results = await storeBatch(deps(), batch);
    expect(results).toHaveLength(records.length);
    expect(results.every((r) => r.outcome === "inserted" && r.version === 1)).toBe(true);
    expect(await listUnindexed(t.store.db, 100)).toEqual([]);
    expect(await getDocument(t.store.db, FIRST)).toMatchObject({ version: 1, indexedVersion: 1 });
    // Each chunk's text stored once: in pgvector's row, none in the chunks table.
    expect(await countChunks(t.store.db)).toBe(0);
    expect(await vectors.count()).toBe(chunkTotal(batch));
    const stored = await vectors.payloads!(chunksOf(batch).map((c) => c.id));
    expect(chunksOf(batch).map((c) => stored.get(c.id)?.text)).toEqual(
      chunksOf(batch).map((c) => c.text),
    );
    const title = batch.docs[0]!.title;
    expect((await search(title))[0]).toMatchObject({ pmid: FIRST, payload: { title } });

    // The same reply again changes nothing.
    const again = await storeBatch(deps(), prepareBatch(xml, NOW));
    expect(again.every((r) => r.outcome === "skipped" && r.version === 1)).toBe(true);
    expect(await vectors.count()).toBe(chunkTotal(batch));
  });

  it("a revised record: version 2 indexed, its chunks replaced, search sees the new text at once", async () => {
    await storeBatch(deps(), prepareBatch(xml, NOW));
    expect(await search(NEW_TITLE)).toEqual([]); // loads the in-memory index before the revision
    // Chunk rows an earlier version of the server wrote to the chunks table for this document.
    await replaceChunks(t.store.db, FIRST, [
      {
        id: LEGACY_ID,
        chunkId: "title",
        ord: 0,
        section: null,
        text: "old",
        tokenCount: 1,
        version: 1,
      },
    ]);
    const revised = prepareBatch(revisedXml(), NOW);
    const results = await storeBatch(deps(), revised);
    expect(results.find((r) => r.pmid === FIRST)).toEqual({
      pmid: FIRST,
      outcome: "updated",
      version: 2,
    });
    expect(results.filter((r) => r.outcome === "skipped")).toHaveLength(records.length - 1);
    expect(await getDocument(t.store.db, FIRST)).toMatchObject({
      title: NEW_TITLE,
      version: 2,
      indexedVersion: 2,
    });
    expect(await getDocumentChunks(t.store.db, FIRST)).toEqual([]); // the legacy rows are gone
    const ids = revised.chunks.get(FIRST)!.map((c) => c.id);
    const chunks = [...(await vectors.payloads!(ids)).values()];
    expect(chunks.map((c) => c.version)).toEqual(ids.map(() => 2));
    expect(chunks[0]?.text.startsWith(NEW_TITLE)).toBe(true);
    const hits = await search(NEW_TITLE);
    expect(hits.map((h) => h.pmid)).toEqual([FIRST]);
    expect(hits[0]?.payload).toMatchObject({ title: NEW_TITLE, text: chunks[0]?.text, version: 2 });
    expect(await vectors.count()).toBe(chunkTotal(revised));
  });

  it("rows an earlier version left in the chunks table go at the next open where pgvector has the document's chunks", async () => {
    // All records but the last stored and indexed; the last stored alone, never indexed.
    const batch = prepareBatch(articleSetXml(records.slice(0, -1)), NOW);
    await storeBatch(deps(), batch);
    const unindexed = prepareBatch(xml, NOW).docs.at(-1)!;
    await upsertDocuments(t.store.db, [unindexed]);
    const legacy = (id: string, text: string) => ({
      id,
      chunkId: "title",
      ord: 0,
      section: null,
      text,
      tokenCount: 1,
      version: 1,
    });
    await replaceChunks(t.store.db, FIRST, [legacy(LEGACY_ID, "old")]);
    // A document with no chunks in pgvector: its rows are all there is.
    const UNINDEXED = unindexed.pmid;
    const kept = "00000000-0000-4000-8000-000000000002";
    await replaceChunks(t.store.db, UNINDEXED, [legacy(kept, "only copy")]);
    expect(await countChunks(t.store.db)).toBe(2);

    await vectors.ensure(0); // what opening the corpus runs
    expect(await getDocumentChunks(t.store.db, FIRST)).toEqual([]);
    expect((await getDocumentChunks(t.store.db, UNINDEXED)).map((c) => c.id)).toEqual([kept]);
    expect(await vectors.count()).toBe(chunkTotal(batch));
    const title = batch.docs[0]!.title;
    expect((await search(title))[0]).toMatchObject({ pmid: FIRST, payload: { title } });
    await vectors.ensure(0); // again: nothing more to remove
    expect(await countChunks(t.store.db)).toBe(1);
  });

  it("a long chunk's row is stored whole, not compressed; a table made without the setting gets it at the next open", async () => {
    const db = t.store.db;
    const setting = async () =>
      (
        await sql<{ reloptions: string[] | null }>`select reloptions from pg_class
          where oid = 'chunk_vectors'::regclass`.execute(db)
      ).rows[0]?.reloptions ?? [];
    // The first record's chunk: its stored size against its row's and its text's.
    const firstChunk = async () =>
      (
        await sql<{ row: number; stored: number; bytes: number }>`select
            pg_column_size(v.*) as row, pg_column_size(v.text) as stored,
            octet_length(v.text) as bytes
          from chunk_vectors v where pmid = ${FIRST}`.execute(db)
      ).rows[0];
    expect(await setting()).toContain("toast_tuple_target=8160");

    // A store made before the setting: Postgres compresses a row over about 2 KB.
    await sql`alter table chunk_vectors reset (toast_tuple_target)`.execute(db);
    expect(await setting()).not.toContain("toast_tuple_target=8160");
    await storeBatch(deps(), prepareBatch(longAbstractXml(), NOW));
    const before = await firstChunk();
    expect(before?.stored).toBeLessThan(before?.bytes ?? 0);

    await vectors.ensure(0); // what opening the corpus runs
    expect(await setting()).toContain("toast_tuple_target=8160");
    // Revised (retitled), so its chunks are written again.
    const revised = longAbstractXml().replace(/<ArticleTitle>[^<]*/, `<ArticleTitle>${NEW_TITLE}`);
    await storeBatch(deps(), prepareBatch(revised, NOW));
    const after = await firstChunk();
    expect(after?.row).toBeGreaterThan(2_100);
    expect(after?.stored).toBeGreaterThan(after?.bytes ?? Infinity);
  });

  it("a failure inside the batch leaves none of it: no document, chunk or posting, old versions kept", async () => {
    // The first record's last chunk malformed: found after its document and chunk rows are written.
    const broken = (batch: PreparedBatch): PreparedBatch => {
      const chunks = new Map(batch.chunks);
      const own = chunks.get(FIRST)!;
      const bad = { ...own.at(-1)!, sparse: { indices: [1], values: [Number.NaN] } };
      chunks.set(FIRST, [...own.slice(0, -1), bad]);
      return { docs: batch.docs, chunks };
    };
    await expect(storeBatch(deps(), broken(prepareBatch(xml, NOW)))).rejects.toThrow(
      VectorStoreError,
    );
    expect(await countDocuments(t.store.db)).toBe(0);
    expect(await countChunks(t.store.db)).toBe(0);
    expect(await vectors.count()).toBe(0);

    const batch = prepareBatch(xml, NOW);
    await storeBatch(deps(), batch);
    await expect(storeBatch(deps(), broken(prepareBatch(revisedXml(), NOW)))).rejects.toThrow(
      VectorStoreError,
    );
    expect(await getDocument(t.store.db, FIRST)).toMatchObject({
      title: batch.docs[0]!.title,
      version: 1,
      indexedVersion: 1,
    });
    expect(await search(NEW_TITLE)).toEqual([]);
    expect(await vectors.count()).toBe(chunkTotal(batch));
  });

  it("an adapter that has not read its tables yet reads them inside the batch's transaction", async () => {
    // On PGlite a read outside the transaction would wait for its one connection until commit.
    vectors = await createVectorStore(
      { vectorStore: "pgvector", qdrant: { url: undefined, apiKey: undefined, collection: "x" } },
      t.store,
    );
    const batch = prepareBatch(xml, NOW);
    await storeBatch(deps(), batch);
    expect(await vectors.count()).toBe(chunkTotal(batch));
    expect(await listUnindexed(t.store.db, 100)).toEqual([]);
  });

  it("with hash vectors: documents first, then the index, to the same end", async () => {
    const embedder = new HashEmbedder();
    await fresh(embedder.dimension);
    const batch = prepareBatch(xml, NOW);
    const results = await storeBatch(deps(embedder), batch);
    expect(results.every((r) => r.outcome === "inserted")).toBe(true);
    expect(await listUnindexed(t.store.db, 100)).toEqual([]);
    expect(await getDocument(t.store.db, FIRST)).toMatchObject({ version: 1, indexedVersion: 1 });
    expect(await vectors.count()).toBe(chunkTotal(batch));
    expect(await countChunks(t.store.db)).toBe(0);
    const title = batch.docs[0]!.title;
    const dense = await vectors.searchDense(await embedder.embedQuery(title), 1);
    expect(dense[0]?.pmid).toBe(FIRST);
  });
});
