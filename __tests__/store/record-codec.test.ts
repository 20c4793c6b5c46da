/** The stored record's encoding: compressed JSON behind a format byte, and plain JSON from before. */
import { describe, expect, test } from "@jest/globals";
import { brotliCompressSync, constants } from "node:zlib";
import { decodeRecord, encodeRecord, recordJson } from "../../src/store/record-codec.js";

describe("record codec", () => {
  const json = JSON.stringify({
    pmid: "1",
    title: 'Ünïcode “quotes” \\ and "escapes" — β-lactam 10⁻³ 😀',
    abstractText: "Background: ".repeat(200),
  });

  test("round-trips the JSON, compressed behind format byte 1", () => {
    const stored = encodeRecord(json);
    expect(stored[0]).toBe(1);
    expect(stored.byteLength).toBeLessThan(Buffer.byteLength(json) / 2);
    expect(recordJson(stored)).toBe(json);
    expect(decodeRecord(stored)).toEqual(JSON.parse(json));
  });

  test("owns its buffer exactly (posting it to a thread copies nothing else)", () => {
    const stored = encodeRecord(json);
    expect(stored.byteOffset).toBe(0);
    expect(stored.buffer.byteLength).toBe(stored.byteLength);
  });

  test("reads a record compressed at brotli quality 1, as stored before 2026-11-27", () => {
    const q1 = brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
    expect(recordJson(Buffer.concat([Buffer.from([1]), q1]))).toBe(json);
  });

  test("reads a record stored before compression: the JSON's UTF-8 bytes", () => {
    expect(recordJson(Buffer.from(json, "utf8"))).toBe(json);
    const viewed = new Uint8Array(Buffer.from(`xx${json}`, "utf8")).subarray(2);
    expect(recordJson(viewed)).toBe(json);
  });
});
