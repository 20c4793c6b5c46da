/**
 * What a job reports never leaves it `running`, and an over-long query_key is VALIDATION, not
 * Postgres error 54000 (issue 45, finding 4), on both backends. The store's own guards, for
 * callers other than the tools (whose schemas refuse such keys first: __tests__/tools/limits.test.ts).
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "@jest/globals";
import { ValidationError } from "../../src/errors.js";
import { log } from "../../src/log.js";
import { MAX_QUERY_KEY_CHARS, setCheckpointManual } from "../../src/store/checkpoints.js";
import type { Store } from "../../src/store/db.js";
import { createJob, finishJob, getJob, updateJob } from "../../src/store/jobs.js";
import { describeEachBackend, openTestStore, resetStore, type TestStore } from "../helpers/db.js";

describeEachBackend("job and checkpoint limits", (kind) => {
  let t: TestStore;
  let store: Store;
  beforeAll(async () => {
    t = await openTestStore(kind);
    store = t.store;
  });
  afterAll(() => t.cleanup());
  beforeEach(() => resetStore(store));

  it("stores warnings holding half a surrogate pair, with U+FFFD for the half", async () => {
    const job = await createJob(store.db, { queryKey: "q", term: "t" });
    const updated = await updateJob(store.db, job.id, { warnings: ["cut \ud83d", "\ude00 too"] });
    expect(updated?.warnings).toEqual(["cut \ufffd", "\ufffd too"]);
  });

  it("closes a job with its status and error alone when the row refuses its counters", async () => {
    const job = await createJob(store.db, { queryKey: "q", term: "t" });
    // Not a date: Postgres refuses the whole update, as it refused a warning's half emoji. The
    // store logs the refusal as an error: expected here.
    log.silent = true;
    const closed = await finishJob(store.db, job.id, {
      status: "failed",
      error: "the sync failed",
      maxEdatSeen: "not a date",
      pmidsProcessed: 3,
    }).finally(() => (log.silent = false));
    expect(closed).toMatchObject({ status: "failed", error: "the sync failed", pmidsProcessed: 0 });
    expect((await getJob(store.db, job.id))?.finishedAt).not.toBeNull();
  });

  it("refuses a query_key over the limit as VALIDATION, and takes one at it", async () => {
    // Letters that do not compress: Postgres would fit a repeated letter in an index row.
    let x = 7;
    const long = Array.from({ length: 20_000 }, () => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return String.fromCharCode(97 + ((x >> 16) % 26));
    }).join("");
    await expect(setCheckpointManual(store.db, long, "2024-01-01T00:00:00Z")).rejects.toThrow(
      ValidationError,
    );
    const atLimit = "k".repeat(MAX_QUERY_KEY_CHARS);
    await expect(setCheckpointManual(store.db, atLimit, "2024-01-01T00:00:00Z")).resolves.toEqual(
      expect.objectContaining({ advanced: true }),
    );
  });
});
