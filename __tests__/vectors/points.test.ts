/**
 * The point checks both vector adapters run before writing: a sparse vector in the indexer's
 * ascending order passes with one comparison per index, any other order is still checked for a
 * repeated index, and every malformed point is refused with the chunk named.
 */
import { describe, expect, it } from "@jest/globals";
import { VectorStoreError } from "../../src/errors.js";
import { checkPoints, checkSparseQuery } from "../../src/vectors/points.js";
import type { ChunkPoint } from "../../src/vectors/vector-store.js";

function point(sparse: { indices: number[]; values: number[] }, id = 1): ChunkPoint {
  return {
    id: `00000000-0000-5000-8000-00000000000${id}`,
    pmid: "42",
    chunkId: "a0",
    dense: [],
    sparse,
    payload: { title: "t", text: "x", quality: 0, retracted: false, pdatYear: 2020, version: 1 },
  };
}

describe("checkPoints", () => {
  it("accepts sparse vectors in any order as long as no index repeats", () => {
    const ascending = point({ indices: [1, 7, 0xffffffff], values: [0.5, 1, 2] });
    const unordered = point({ indices: [9, 2, 5], values: [1, 1, 1] }, 2);
    expect(checkPoints([ascending, unordered], 0)).toEqual([ascending, unordered]);
  });

  it.each([
    [[3, 3], "index 3 repeats"],
    [[9, 2, 9], "index 9 repeats"],
    [[1, 2.5], "index 2.5 is not a uint32"],
    [[-1], "index -1 is not a uint32"],
    [[2 ** 32], `index ${2 ** 32} is not a uint32`],
  ])("refuses indices %j: %s", (indices, problem) => {
    const p = point({ indices, values: indices.map(() => 1) });
    expect(() => checkPoints([p], 0)).toThrow(VectorStoreError);
    expect(() => checkPoints([p], 0)).toThrow(
      `Cannot store chunk 42:a0: its sparse vector is malformed (${problem}).`,
    );
  });

  it("refuses non-finite values and mismatched lengths", () => {
    expect(() => checkPoints([point({ indices: [1, 2], values: [1, NaN] })], 0)).toThrow(
      /a value is not a finite number/,
    );
    expect(() => checkPoints([point({ indices: [1, 2], values: [1] })], 0)).toThrow(
      /indices and values differ in length/,
    );
    expect(() => checkSparseQuery({ indices: [4, 4], values: [1, 1] })).toThrow(
      "The sparse query vector is malformed (index 4 repeats).",
    );
  });

  it("keeps the last of a repeated id", () => {
    const first = point({ indices: [1], values: [1] });
    const second = point({ indices: [2], values: [1] });
    expect(checkPoints([first, second], 0)).toEqual([second]);
  });
});
