/**
 * How a sync splits a window's records into EFetch requests (src/corpus/sync.ts efetchBatches):
 * every record fetched once, in order, no request over EFETCH_BATCH, a small first one where there
 * is more than one, and at most one request more than batches of EFETCH_BATCH alone would take.
 */
import { describe, expect, it } from "@jest/globals";
import { EFETCH_BATCH, FIRST_BATCH, efetchBatches } from "../../src/corpus/sync.js";

describe("efetchBatches", () => {
  it("tiles every window size in order, within the batch size", () => {
    for (let count = 0; count <= 3 * EFETCH_BATCH + 7; count++) {
      const requests = efetchBatches(count);
      let next = 0;
      for (const r of requests) {
        expect(r.retstart).toBe(next);
        expect(r.retmax).toBeGreaterThan(0);
        expect(r.retmax).toBeLessThanOrEqual(EFETCH_BATCH);
        next += r.retmax;
      }
      expect(next).toBe(count);
      expect(requests.length).toBeLessThanOrEqual(Math.ceil(count / EFETCH_BATCH) + 1);
      if (count > EFETCH_BATCH) expect(requests[0]?.retmax).toBe(FIRST_BATCH);
      else expect(requests.length).toBe(count === 0 ? 0 : 1);
    }
  });

  it("fetches 5,000 records as 100 and then 500 at a time", () => {
    expect(efetchBatches(5_000).map((r) => r.retmax)).toEqual([100, ...Array(9).fill(500), 400]);
    expect(efetchBatches(9_999).at(-1)).toEqual({ retstart: 9_600, retmax: 399 });
  });
});
