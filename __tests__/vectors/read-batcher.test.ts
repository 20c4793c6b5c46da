/** ReadBatcher: a lone read goes at once; reads asked for while one runs go together next. */
import { describe, expect, it } from "@jest/globals";
import { ReadBatcher } from "../../src/vectors/pgvector/read-batcher.js";

/** A read whose replies the test releases: records each call's keys. */
function controlledRead() {
  const calls: { keys: string[]; release: (fail?: Error) => void }[] = [];
  const read = (keys: string[]) =>
    new Promise<Map<string, string>>((resolve, reject) => {
      calls.push({
        keys,
        release: (fail) => (fail ? reject(fail) : resolve(new Map(keys.map((k) => [k, `v${k}`])))),
      });
    });
  return { calls, read };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("ReadBatcher", () => {
  it("reads a lone request at once, with its own keys", async () => {
    const { calls, read } = controlledRead();
    const batcher = new ReadBatcher(read);
    const one = batcher.get(["1", "2"]);
    expect(calls.map((c) => c.keys)).toEqual([["1", "2"]]);
    calls[0]!.release();
    expect(await one).toEqual(
      new Map([
        ["1", "v1"],
        ["2", "v2"],
      ]),
    );
  });

  it("reads what was asked during a read in one read after it, each key once", async () => {
    const { calls, read } = controlledRead();
    const batcher = new ReadBatcher(read);
    const first = batcher.get(["1"]);
    const second = batcher.get(["2", "3"]);
    const third = batcher.get(["3", "4"]);
    await settle();
    expect(calls.map((c) => c.keys)).toEqual([["1"]]); // the others wait for the first
    calls[0]!.release();
    expect(await first).toEqual(new Map([["1", "v1"]]));
    await settle();
    expect(calls.map((c) => c.keys)).toEqual([["1"], ["2", "3", "4"]]);
    calls[1]!.release();
    const [b, c] = await Promise.all([second, third]);
    expect([b.get("2"), b.get("3"), c.get("3"), c.get("4")]).toEqual(["v2", "v3", "v3", "v4"]);
    // Idle again: the next request goes at once.
    void batcher.get(["5"]);
    expect(calls.map((x) => x.keys)).toEqual([["1"], ["2", "3", "4"], ["5"]]);
    calls[2]!.release();
  });

  it("fails every request of a failed batch, and reads the next ones", async () => {
    const { calls, read } = controlledRead();
    const batcher = new ReadBatcher(read);
    const first = batcher.get(["1"]);
    const second = batcher.get(["2"]);
    const third = batcher.get(["3"]);
    calls[0]!.release();
    await first;
    await settle();
    calls[1]!.release(new Error("store down"));
    await expect(second).rejects.toThrow("store down");
    await expect(third).rejects.toThrow("store down");
    const after = batcher.get(["4"]);
    expect(calls.map((c) => c.keys)).toEqual([["1"], ["2", "3"], ["4"]]);
    calls[2]!.release();
    expect((await after).get("4")).toBe("v4");
  });
});
