/**
 * How a document's record is stored: its JSON compressed with brotli at quality 0, behind a format
 * byte. Compressing here rather than leaving it to Postgres's TOAST (pglz, in WebAssembly on the
 * embedded store) costs the writer about 28 µs a record where pglz cost about 100, and the stored
 * record is smaller (brotli keeps about 0.40 of the JSON).
 * Quality 1, used before 2026-11-27, took 39 µs for a 3 % smaller record; its rows decode alike.
 * Rows written before 2026_11_26_002_record_bytes hold the JSON's UTF-8 bytes as they are.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import type { Article } from "../ncbi/types.js";

/** The first byte of a compressed record; a plain one starts with "{" (0x7b). */
const BROTLI = 0x01;

export function encodeRecord(json: string): Uint8Array {
  // From bytes: brotli converts a string slower than Buffer.from does. Text mode, a size hint and
  // a smaller window were measured too: the same size, no faster.
  const packed = brotliCompressSync(Buffer.from(json, "utf8"), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 0 },
  });
  // A buffer of its own (zlib's may view a larger one, which posting to a thread would copy whole).
  const out = new Uint8Array(packed.byteLength + 1);
  out[0] = BROTLI;
  out.set(packed, 1);
  return out;
}

/** The record's JSON from its stored bytes, compressed or (written before 002) plain. */
export function recordJson(stored: Uint8Array): string {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  if (bytes[0] === BROTLI) return brotliDecompressSync(bytes.subarray(1)).toString("utf8");
  return bytes.toString("utf8");
}

export function decodeRecord(stored: Uint8Array): Article {
  return JSON.parse(recordJson(stored)) as Article;
}
