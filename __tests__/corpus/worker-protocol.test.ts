/**
 * Errors crossing the corpus worker's boundary keep their class, code, message and details;
 * anything else arrives as a plain Error with its name (so aborts stay aborts).
 */
import { describe, expect, it } from "@jest/globals";
import { fromWire, toWire } from "../../src/worker/protocol.js";
import {
  CancelledError,
  EmbeddingsError,
  NotFoundError,
  RateLimitError,
  StoreError,
  UpstreamError,
  isAbort,
  toEnvelope,
} from "../../src/errors.js";

const roundTrip = (err: unknown) => fromWire(structuredClone(toWire(err)));

describe("corpus worker errors", () => {
  it.each([
    new NotFoundError("pmid:1 is not in the local corpus", { doc_id: "pmid:1" }),
    new EmbeddingsError("The corpus was indexed with hash/…; run pubmed-mcp reindex"),
    new RateLimitError("NCBI asked to wait 120 s", { retryAfterSeconds: 120 }),
    new StoreError("The store is held by pid 42", { holderPid: 42 }),
    new CancelledError("The call was cancelled before it finished."),
  ])("rebuilds $name with its envelope", (err) => {
    const back = roundTrip(err);
    expect(back).toBeInstanceOf(err.constructor);
    expect(toEnvelope(back)).toEqual(toEnvelope(err));
  });

  it("keeps an AppError subclass from elsewhere by its code", () => {
    class PoolExhausted extends UpstreamError {}
    const back = roundTrip(new PoolExhausted("no connection", { pool: 4 }));
    expect(toEnvelope(back).error).toEqual({
      code: "UPSTREAM",
      message: "no connection",
      details: { pool: 4 },
    });
  });

  it("keeps an abort recognisable and a plain error plain", () => {
    const abort = new Error("The operation was aborted");
    abort.name = "AbortError";
    expect(isAbort(roundTrip(abort))).toBe(true);
    const plain = roundTrip(new TypeError("x is undefined"));
    expect(plain).toMatchObject({ name: "TypeError", message: "x is undefined" });
    expect(isAbort(plain)).toBe(false);
  });
});
