/**
 * Bulk parameters as bytes. A Buffer travels in binary format, which for `text` and `bytea` is the
 * bytes themselves; both drivers pass it through untouched, where a string parameter is measured
 * and encoded in JavaScript on its way (PGlite's protocol serializer scans each string twice to
 * count its UTF-8 bytes, and a `text[]` is first escaped into an array literal). A sync's batch of
 * 500 records sends about 4 MB of text: record JSON, chunk texts, postings.
 */

/** A text parameter as UTF-8 bytes; cast it where it is used (`${utf8(text)}::text`). */
export function utf8(text: string): Buffer {
  return Buffer.from(text, "utf8");
}

/**
 * Many byte strings as one `bytea` parameter and where each lies in it (1-based `starts`, as SQL's
 * `substring(blob from start for length)` counts).
 */
export function packBytes(parts: readonly Uint8Array[]): {
  blob: Buffer;
  starts: number[];
  lengths: number[];
} {
  const starts: number[] = [];
  const lengths: number[] = [];
  let at = 1;
  for (const p of parts) {
    starts.push(at);
    lengths.push(p.byteLength);
    at += p.byteLength;
  }
  return { blob: Buffer.concat(parts), starts, lengths };
}
