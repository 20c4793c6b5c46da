/**
 * A process that died mid-sync leaves its job `running`; the next store open marks it abandoned —
 * but never the job of a sync another live process (a replica on the same PostgreSQL) still runs,
 * which the query_key's sync lock tells.
 */
import { afterEach, expect, it } from "@jest/globals";
import { openStore, type Store } from "../../src/store/db.js";
import { createJob, finishJob, getJob } from "../../src/store/jobs.js";
import { withQueryKeyLock } from "../../src/store/locks.js";
import {
  describeBackend,
  describeEachBackend,
  openTestStore,
  type TestStore,
} from "../helpers/db.js";

const reopen = (t: TestStore): Promise<Store> =>
  openStore({ dataDir: t.dataDir, ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}) });

describeEachBackend("abandoned sync jobs", (kind) => {
  let t: TestStore;
  const opened: Store[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await t.cleanup();
  });

  it("marks the running jobs of a dead process abandoned on the next open, and only those", async () => {
    t = await openTestStore(kind);
    const dead = await createJob(t.store.db, { queryKey: "dead", term: "asthma" });
    const done = await createJob(t.store.db, { queryKey: "done", term: "asthma" });
    await finishJob(t.store.db, done.id, { status: "succeeded", pmidsProcessed: 3 });
    // The process "dies": its store closes with the job still running.
    await t.store.close();

    const next = await reopen(t);
    opened.push(next);
    const after = await getJob(next.db, dead.id);
    expect(after).toMatchObject({ status: "abandoned", error: expect.stringContaining("stopped") });
    expect(after?.finishedAt).not.toBeNull();
    expect(await getJob(next.db, done.id)).toMatchObject({
      status: "succeeded",
      pmidsProcessed: 3,
    });
  });
});

describeBackend("postgres", "abandoned sync jobs across replicas", () => {
  let t: TestStore;
  afterEach(async () => {
    await t.cleanup();
  });

  it("leaves the running job of a sync a live replica holds the lock for", async () => {
    t = await openTestStore("postgres");
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let liveId = "";
    let started = () => {};
    const running = new Promise<void>((r) => (started = r));
    // Replica A: a sync of "live" in progress, holding its lock on its own connection.
    const replicaA = withQueryKeyLock(t.store, "live", async () => {
      liveId = (await createJob(t.store.db, { queryKey: "live", term: "asthma" })).id;
      started();
      await gate;
    });
    await running;
    const deadId = (await createJob(t.store.db, { queryKey: "dead", term: "asthma" })).id;

    // Replica B starts while A's sync runs.
    const replicaB = await reopen(t);
    try {
      expect((await getJob(replicaB.db, liveId))?.status).toBe("running");
      expect((await getJob(replicaB.db, deadId))?.status).toBe("abandoned");
    } finally {
      release();
      await replicaA;
      await replicaB.close();
    }
  });
});
