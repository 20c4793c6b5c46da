import { afterAll, beforeAll, beforeEach, expect, it } from "@jest/globals";
import { StoreError } from "../../src/errors.js";
import {
  countChunks,
  countDocuments,
  getChunks,
  getDocument,
  getDocumentChunks,
  getDocuments,
  listUnindexed,
  markIndexed,
  replaceChunks,
  replaceChunksOf,
  upsertDocuments,
  type ChunkInput,
} from "../../src/store/docs.js";
import type { Store } from "../../src/store/db.js";
import { describeEachBackend, openTestStore, resetStore, type TestStore } from "../helpers/db.js";
import { doc } from "./fixtures.js";

const uuid = (n: number) => `00000000-0000-5000-8000-${String(n).padStart(12, "0")}`;

function chunk(n: number, over: Partial<ChunkInput> = {}): ChunkInput {
  return {
    id: uuid(n),
    chunkId: n === 0 ? "title" : `abstract:${n - 1}`,
    ord: n,
    section: n === 0 ? null : "RESULTS",
    text: `chunk ${n}`,
    tokenCount: 2,
    version: 1,
    ...over,
  };
}

describeEachBackend("documents", (kind) => {
  let t: TestStore;
  let store: Store;
  beforeAll(async () => {
    t = await openTestStore(kind);
    store = t.store;
  });
  afterAll(() => t.cleanup());
  beforeEach(() => resetStore(store));

  it("inserts new documents at version 1 and reads them back unchanged", async () => {
    const d = doc("100", { doi: "10.1/x", mesh: ["Humans", "Aspirin"], pdat: "1998 Dec-1999 Jan" });
    const res = await upsertDocuments(store.db, [d, doc("101")]);
    expect(res).toEqual([
      { pmid: "100", outcome: "inserted", version: 1 },
      { pmid: "101", outcome: "inserted", version: 1 },
    ]);
    const got = await getDocument(store.db, "100");
    expect(got).toMatchObject({ ...d, version: 1, indexedVersion: null });
    expect(got?.record).toEqual(d.record);
    expect(await countDocuments(store.db)).toBe(2);
    expect(await getDocument(store.db, "999")).toBeNull();
  });

  it("skips an unchanged document without writing, and updates on a new hash", async () => {
    await upsertDocuments(store.db, [doc("1"), doc("2")]);
    const before = await getDocument(store.db, "1");
    const replay = await upsertDocuments(store.db, [doc("1"), doc("2")]);
    expect(replay.map((r) => r.outcome)).toEqual(["skipped", "skipped"]);
    expect(replay.map((r) => r.version)).toEqual([1, 1]);
    expect((await getDocument(store.db, "1"))?.updatedAt).toBe(before?.updatedAt);

    const changed = doc("1", { title: "Retitled", contentHash: "hash-1-2" });
    const res = await upsertDocuments(store.db, [changed, doc("2"), doc("3")]);
    expect(res).toEqual([
      { pmid: "1", outcome: "updated", version: 2 },
      { pmid: "2", outcome: "skipped", version: 1 },
      { pmid: "3", outcome: "inserted", version: 1 },
    ]);
    const got = await getDocument(store.db, "1");
    expect(got).toMatchObject({ title: "Retitled", version: 2, createdAt: before?.createdAt });
  });

  it("bumps the version when LR advances, but not for the same or an older LR", async () => {
    await upsertDocuments(store.db, [doc("7", { lr: "2022-01-10T00:00:00.000Z" })]);
    const older = await upsertDocuments(store.db, [doc("7", { lr: "2021-01-01T00:00:00.000Z" })]);
    expect(older[0]).toEqual({ pmid: "7", outcome: "skipped", version: 1 });
    const same = await upsertDocuments(store.db, [doc("7", { lr: "2022-01-10T00:00:00.000Z" })]);
    expect(same[0]?.outcome).toBe("skipped");
    const newer = await upsertDocuments(store.db, [doc("7", { lr: "2022-01-11T00:00:00.000Z" })]);
    expect(newer[0]).toEqual({ pmid: "7", outcome: "updated", version: 2 });
    expect((await getDocument(store.db, "7"))?.lr).toBe("2022-01-11T00:00:00.000Z");
  });

  it("treats a first LR after none as an advance", async () => {
    await upsertDocuments(store.db, [doc("8", { lr: null })]);
    expect((await upsertDocuments(store.db, [doc("8", { lr: null })]))[0]?.outcome).toBe("skipped");
    const res = await upsertDocuments(store.db, [doc("8", { lr: "2020-01-01T00:00:00Z" })]);
    expect(res[0]).toEqual({ pmid: "8", outcome: "updated", version: 2 });
  });

  it("handles batches beyond one statement and duplicate pmids (last one wins)", async () => {
    const many = Array.from({ length: 1203 }, (_, i) => doc(String(10_000 + i)));
    const res = await upsertDocuments(store.db, [
      ...many,
      doc("10000", { title: "last", contentHash: "h-last" }),
    ]);
    expect(res).toHaveLength(1203);
    expect(res.every((r) => r.outcome === "inserted")).toBe(true);
    expect(await countDocuments(store.db)).toBe(1203);
    expect((await getDocument(store.db, "10000"))?.title).toBe("last");
    const again = await upsertDocuments(store.db, many);
    expect(again.filter((r) => r.outcome !== "skipped")).toEqual([
      { pmid: "10000", outcome: "updated", version: 2 },
    ]);
  });

  it("getDocuments keeps the order asked and drops unknown pmids", async () => {
    await upsertDocuments(store.db, [doc("1"), doc("2"), doc("3")]);
    const got = await getDocuments(store.db, ["3", "404", "1"]);
    expect(got.map((d) => d.pmid)).toEqual(["3", "1"]);
    expect(await getDocuments(store.db, [])).toEqual([]);
  });

  it("tracks indexing: new and re-versioned documents are unindexed until marked", async () => {
    await upsertDocuments(store.db, [doc("1"), doc("2")]);
    expect(await listUnindexed(store.db, 10)).toEqual(
      expect.arrayContaining([
        { pmid: "1", version: 1 },
        { pmid: "2", version: 1 },
      ]),
    );
    expect(
      await markIndexed(store.db, [
        { pmid: "1", version: 1 },
        { pmid: "2", version: 1 },
      ]),
    ).toBe(2);
    expect(await listUnindexed(store.db, 10)).toEqual([]);

    await upsertDocuments(store.db, [doc("1", { contentHash: "new" })]);
    expect(await listUnindexed(store.db, 10)).toEqual([{ pmid: "1", version: 2 }]);
    expect((await getDocument(store.db, "1"))?.indexedVersion).toBe(1);

    // A stale mark (version 1 after the bump to 2) must not hide the new version.
    expect(await markIndexed(store.db, [{ pmid: "1", version: 1 }])).toBe(0);
    expect(await listUnindexed(store.db, 10)).toEqual([{ pmid: "1", version: 2 }]);
    expect(await markIndexed(store.db, [{ pmid: "1", version: 2 }])).toBe(1);
    expect(await listUnindexed(store.db, 10)).toEqual([]);
  });

  it("listUnindexed honours its limit", async () => {
    await upsertDocuments(store.db, [doc("1"), doc("2"), doc("3")]);
    expect(await listUnindexed(store.db, 2)).toHaveLength(2);
  });

  it("replaces a document's chunks atomically and reads them by id in the order asked", async () => {
    await upsertDocuments(store.db, [doc("1"), doc("2")]);
    await replaceChunks(store.db, "1", [chunk(0), chunk(1), chunk(2)]);
    await replaceChunks(store.db, "2", [chunk(10, { chunkId: "title" })]);
    expect(await countChunks(store.db)).toBe(4);

    await replaceChunks(store.db, "1", [chunk(0, { text: "new title", version: 2 }), chunk(3)]);
    expect(await countChunks(store.db)).toBe(3);
    const got = await getDocumentChunks(store.db, "1");
    expect(got).toEqual([
      { ...chunk(0, { text: "new title", version: 2 }), pmid: "1" },
      { ...chunk(3), pmid: "1" },
    ]);
    const byId = await getChunks(store.db, [
      uuid(10),
      "not-a-uuid",
      uuid(3).toUpperCase(),
      uuid(1),
    ]);
    expect(byId.map((c) => c.id)).toEqual([uuid(10), uuid(3)]);
  });

  it("deleting nothing but a document's chunks leaves the others; clearing works", async () => {
    await upsertDocuments(store.db, [doc("1"), doc("2")]);
    await replaceChunks(store.db, "1", [chunk(0)]);
    await replaceChunks(store.db, "2", [chunk(1)]);
    await replaceChunks(store.db, "1", []);
    expect(await getDocumentChunks(store.db, "1")).toEqual([]);
    expect(await getDocumentChunks(store.db, "2")).toHaveLength(1);
  });

  it("replaces many documents' chunks in one call, past one INSERT's rows, all or nothing", async () => {
    const pmids = Array.from({ length: 30 }, (_, i) => String(i + 1));
    await upsertDocuments(
      store.db,
      pmids.map((p) => doc(p)),
    );
    // 30 documents × 100 chunks: more rows than one INSERT statement takes.
    const many = pmids.map((pmid, d) => ({
      pmid,
      chunks: Array.from({ length: 100 }, (_, c) => chunk(d * 100 + c)),
    }));
    await replaceChunksOf(store.db, many);
    expect(await countChunks(store.db)).toBe(3000);
    expect(await getDocumentChunks(store.db, "30")).toHaveLength(100);

    await replaceChunksOf(store.db, [
      { pmid: "1", chunks: [chunk(0, { text: "only" })] },
      { pmid: "2", chunks: [] },
    ]);
    expect(await countChunks(store.db)).toBe(2801);
    expect(await getDocumentChunks(store.db, "1")).toEqual([
      { ...chunk(0, { text: "only" }), pmid: "1" },
    ]);

    // Only documents given chunks must be stored; the message names those that are not.
    const err = await replaceChunksOf(store.db, [
      { pmid: "3", chunks: [] },
      { pmid: "404", chunks: [chunk(5000)] },
      { pmid: "405", chunks: [chunk(5001)] },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).message).toBe(
      "Cannot store chunks for PMIDs 404, 405: the document is not stored. Upsert it first.",
    );
    expect(await getDocumentChunks(store.db, "3")).toHaveLength(100);
    expect(await getDocumentChunks(store.db, "404")).toEqual([]);
  });

  it("refuses chunks for an unknown document with a readable StoreError", async () => {
    const err = await replaceChunks(store.db, "404", [chunk(0)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).message).toBe(
      "Cannot store chunks for PMID 404: the document is not stored. Upsert it first.",
    );
  });

  it("wraps driver errors without leaking SQL or constraint names", async () => {
    const bad = doc("1", {
      quality: { design: 70_000, recency: 0, journal: 0, human: 0, total: 0 },
    });
    const err = await upsertDocuments(store.db, [bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    const msg = (err as StoreError).message;
    expect(msg).toMatch(/^The metadata store failed while saving documents\./);
    expect(msg).not.toMatch(/insert|select|documents\b.*\(|smallint|out of range|quality_design/i);
    expect((err as StoreError).details).toEqual({ driverCode: "22003" });
    expect(await countDocuments(store.db)).toBe(0);
  });
});
