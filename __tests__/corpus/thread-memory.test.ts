/**
 * Every thread the server starts goes through startThread (src/threads.ts), which bounds its
 * young generation to THREAD_YOUNG_GENERATION_MB (V8's default lets it grow to 48 MB a thread)
 * and leaves its old generation to V8 (the lexical index grows with the corpus).
 */
import { describe, expect, it } from "@jest/globals";
import { once } from "node:events";
import { startThread, THREAD_YOUNG_GENERATION_MB } from "../../src/threads.js";

const PREPARE_THREAD = new URL("../../src/corpus/prepare-thread.ts", import.meta.url).href;

describe("the threads' memory", () => {
  it("starts a thread with its young generation bounded, and its old generation not", async () => {
    const worker = startThread("prepare-worker", PREPARE_THREAD);
    try {
      await once(worker, "online");
      expect(THREAD_YOUNG_GENERATION_MB).toBeLessThan(48);
      expect(worker.resourceLimits).toMatchObject({
        maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB,
      });
      // Not capped: V8's own limit for this machine, far above what a bound would be.
      expect(worker.resourceLimits?.maxOldGenerationSizeMb).toBeGreaterThanOrEqual(1024);
    } finally {
      await worker.terminate();
    }
  });
});
