import { afterAll, beforeAll, beforeEach, expect, it } from "@jest/globals";
import type { Store } from "../../src/store/db.js";
import {
  clearSyncProgress,
  createJob,
  finishJob,
  getJob,
  getSyncProgress,
  listJobs,
  setSyncProgress,
  updateJob,
} from "../../src/store/jobs.js";
import { getMeta, setMeta } from "../../src/store/meta.js";
import { describeEachBackend, openTestStore, resetStore, type TestStore } from "../helpers/db.js";

describeEachBackend("sync jobs, progress and corpus meta", (kind) => {
  let t: TestStore;
  let store: Store;
  beforeAll(async () => {
    t = await openTestStore(kind);
    store = t.store;
  });
  afterAll(() => t.cleanup());
  beforeEach(() => resetStore(store));

  it("runs a job through its lifecycle", async () => {
    const job = await createJob(store.db, { queryKey: "q", term: "aspirin[tiab]" });
    expect(job).toMatchObject({
      queryKey: "q",
      term: "aspirin[tiab]",
      status: "running",
      inserted: 0,
      updated: 0,
      skipped: 0,
      pmidsProcessed: 0,
      maxEdatSeen: null,
      warnings: [],
      error: null,
      finishedAt: null,
    });
    expect(job.id).toMatch(/^[0-9a-f-]{36}$/);

    const mid = await updateJob(store.db, job.id, {
      inserted: 10,
      pmidsProcessed: 12,
      maxEdatSeen: "2024-05-01T00:00:00Z",
    });
    expect(mid).toMatchObject({ inserted: 10, updated: 0, pmidsProcessed: 12, status: "running" });
    expect(mid?.maxEdatSeen).toBe("2024-05-01T00:00:00.000Z");

    const done = await finishJob(store.db, job.id, {
      status: "partial",
      updated: 2,
      warnings: ["stopped at max_records"],
    });
    expect(done).toMatchObject({
      status: "partial",
      inserted: 10,
      updated: 2,
      warnings: ["stopped at max_records"],
    });
    expect(done?.finishedAt).not.toBeNull();
    expect(await getJob(store.db, job.id)).toEqual(done);
  });

  it("records a failure with its message", async () => {
    const job = await createJob(store.db, { queryKey: "q", term: "t" });
    const failed = await finishJob(store.db, job.id, {
      status: "failed",
      error: "NCBI unreachable",
    });
    expect(failed).toMatchObject({ status: "failed", error: "NCBI unreachable" });
  });

  it("returns null for unknown or malformed job ids", async () => {
    expect(await getJob(store.db, "00000000-0000-4000-8000-000000000000")).toBeNull();
    expect(await getJob(store.db, "nope")).toBeNull();
    expect(
      await updateJob(store.db, "00000000-0000-4000-8000-000000000000", { inserted: 1 }),
    ).toBeNull();
  });

  it("lists jobs newest first, optionally by key", async () => {
    const a = await createJob(store.db, { queryKey: "a", term: "t" });
    await new Promise((r) => setTimeout(r, 5));
    const b = await createJob(store.db, { queryKey: "b", term: "t" });
    expect((await listJobs(store.db)).map((j) => j.id)).toEqual([b.id, a.id]);
    expect((await listJobs(store.db, { queryKey: "a" })).map((j) => j.id)).toEqual([a.id]);
  });

  it("keeps, replaces and clears resume state per query_key", async () => {
    expect(await getSyncProgress(store.db, "q")).toBeNull();
    const state = {
      windowStart: "2024-01-01",
      windowEnd: "2024-02-01",
      done: [["2024-01-01", "2024-01-15"]],
    };
    await setSyncProgress(store.db, "q", state);
    expect((await getSyncProgress(store.db, "q"))?.state).toEqual(state);
    await setSyncProgress(store.db, "q", { cursor: "2024-01-20T00:00:00Z" });
    await setSyncProgress(store.db, "other", { cursor: null });
    expect((await getSyncProgress<{ cursor: string }>(store.db, "q"))?.state).toEqual({
      cursor: "2024-01-20T00:00:00Z",
    });
    await clearSyncProgress(store.db, "q");
    expect(await getSyncProgress(store.db, "q")).toBeNull();
    expect(await getSyncProgress(store.db, "other")).not.toBeNull();
  });

  it("stores JSON values in corpus_meta, replacing on set", async () => {
    expect(await getMeta(store.db, "embedding")).toBeUndefined();
    await setMeta(store.db, "embedding", { provider: "hash", model: "hash-v1", dimension: 256 });
    expect(await getMeta(store.db, "embedding")).toEqual({
      provider: "hash",
      model: "hash-v1",
      dimension: 256,
    });
    await setMeta(store.db, "embedding", {
      provider: "cohere",
      model: "embed-v4.0",
      dimension: 1024,
    });
    expect(await getMeta<{ provider: string }>(store.db, "embedding")).toMatchObject({
      provider: "cohere",
    });
    await setMeta(store.db, "tags", ["a", "b"]);
    await setMeta(store.db, "name", "corpus");
    expect(await getMeta(store.db, "tags")).toEqual(["a", "b"]);
    expect(await getMeta(store.db, "name")).toBe("corpus");
    await expect(setMeta(store.db, "bad", undefined)).rejects.toThrow(/must be a JSON value/);
  });
});
