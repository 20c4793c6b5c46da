import { afterAll, beforeAll, beforeEach, expect, it } from "@jest/globals";
import { ValidationError } from "../../src/errors.js";
import {
  advanceCheckpoint,
  advanceRevisions,
  getCheckpoint,
  listAudit,
  listCheckpoints,
  setCheckpointManual,
} from "../../src/store/checkpoints.js";
import type { Store } from "../../src/store/db.js";
import { describeEachBackend, openTestStore, resetStore, type TestStore } from "../helpers/db.js";

const D1 = "2024-01-01T00:00:00.000Z";
const D2 = "2024-02-01T00:00:00.000Z";
const D3 = "2024-03-01T12:30:00.000Z";

describeEachBackend("checkpoints", (kind) => {
  let t: TestStore;
  let store: Store;
  beforeAll(async () => {
    t = await openTestStore(kind);
    store = t.store;
  });
  afterAll(() => t.cleanup());
  beforeEach(() => resetStore(store));

  it("is null before the first sync", async () => {
    expect(await getCheckpoint(store.db, "q")).toBeNull();
    expect(await listCheckpoints(store.db)).toEqual([]);
  });

  it("advances forward only, auditing each real move as 'sync'", async () => {
    const at = (lastEdat: string, lastMdat: string | null = null) => ({ lastEdat, lastMdat });
    expect(await advanceCheckpoint(store.db, "q", D2)).toEqual({ advanced: true, ...at(D2) });
    expect(await advanceCheckpoint(store.db, "q", D1)).toEqual({ advanced: false, ...at(D2) });
    expect(await advanceCheckpoint(store.db, "q", D2)).toEqual({ advanced: false, ...at(D2) });
    // Offsets are normalised to UTC.
    expect(await advanceCheckpoint(store.db, "q", "2024-03-01T14:30:00+02:00")).toEqual({
      advanced: true,
      ...at(D3),
    });
    expect((await getCheckpoint(store.db, "q"))?.lastEdat).toBe(D3);
    const audit = await listAudit(store.db, "q");
    expect(
      audit.map(({ oldEdat, newEdat, source, note }) => ({ oldEdat, newEdat, source, note })),
    ).toEqual([
      { oldEdat: null, newEdat: D2, source: "sync", note: null },
      { oldEdat: D2, newEdat: D3, source: "sync", note: null },
    ]);
  });

  it("keeps the revisions mark apart: forward only, set along with last_edat by a manual set", async () => {
    // A first sync's arrivals start the revisions mark; later arrivals leave it alone.
    expect(await advanceCheckpoint(store.db, "q", D1, D2)).toEqual({
      advanced: true,
      lastEdat: D1,
      lastMdat: D2,
    });
    expect(await advanceCheckpoint(store.db, "q", D2, D1)).toEqual({
      advanced: true,
      lastEdat: D2,
      lastMdat: D2,
    });
    expect(await advanceRevisions(store.db, "q", D1)).toMatchObject({ advanced: false });
    expect(await advanceRevisions(store.db, "q", D3)).toEqual({
      advanced: true,
      lastEdat: D2,
      lastMdat: D3,
    });
    await setCheckpointManual(store.db, "q", D1, "backfill");
    expect(await getCheckpoint(store.db, "q")).toMatchObject({ lastEdat: D1, lastMdat: D1 });
    const audit = await listAudit(store.db, "q");
    expect(audit.map((a) => [a.source, a.oldMdat, a.newMdat])).toEqual([
      ["sync", null, D2],
      ["sync", D2, D2],
      ["sync", D2, D3],
      ["manual", D3, D1],
    ]);
  });

  it("lets a manual set move backward (and to null), always audited with its note", async () => {
    await advanceCheckpoint(store.db, "q", D3);
    expect(await setCheckpointManual(store.db, "q", D1, "backfill 2024")).toEqual({
      advanced: true,
      lastEdat: D1,
      lastMdat: D1,
    });
    expect((await getCheckpoint(store.db, "q"))?.lastEdat).toBe(D1);
    await setCheckpointManual(store.db, "q", D1);
    await setCheckpointManual(store.db, "q", null, "start over");
    expect((await getCheckpoint(store.db, "q"))?.lastEdat).toBeNull();
    const audit = await listAudit(store.db, "q");
    expect(audit.map((a) => [a.source, a.oldEdat, a.newEdat, a.note])).toEqual([
      ["sync", null, D3, null],
      ["manual", D3, D1, "backfill 2024"],
      ["manual", D1, D1, null],
      ["manual", D1, null, "start over"],
    ]);
    expect(audit.every((a) => !Number.isNaN(Date.parse(a.at)))).toBe(true);
    expect(new Set(audit.map((a) => a.id)).size).toBe(4);
  });

  it("keeps keys apart and lists them sorted", async () => {
    await advanceCheckpoint(store.db, "b", D2);
    await advanceCheckpoint(store.db, "a", D1);
    expect((await listCheckpoints(store.db)).map((c) => [c.queryKey, c.lastEdat])).toEqual([
      ["a", D1],
      ["b", D2],
    ]);
    expect(await listAudit(store.db, "a")).toHaveLength(1);
  });

  it("serialises concurrent advances of one key: the latest value wins", async () => {
    const dates = Array.from({ length: 8 }, (_, i) => `2024-01-0${i + 1}T00:00:00.000Z`);
    await Promise.all(dates.map((d) => advanceCheckpoint(store.db, "race", d)));
    expect((await getCheckpoint(store.db, "race"))?.lastEdat).toBe(dates[7]);
    // Every audited move goes forward from the previous one.
    const audit = await listAudit(store.db, "race");
    for (let i = 1; i < audit.length; i++) expect(audit[i]?.oldEdat).toBe(audit[i - 1]?.newEdat);
  });

  it("rejects a date that is not ISO-8601", async () => {
    await expect(advanceCheckpoint(store.db, "q", "yesterday")).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(setCheckpointManual(store.db, "q", "2024-13-45")).rejects.toThrow(/ISO-8601/);
    expect(await getCheckpoint(store.db, "q")).toBeNull();
  });
});
