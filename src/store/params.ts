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

/** What an element of an array parameter may be (a Buffer goes whole: packBytes). */
export type ArrayElement = string | number | boolean | null | undefined;

/** Text an array literal reads unquoted as itself: no delimiter, quote or space; not NULL. */
const BARE = /^(?!null$)[\w.:+\-/@]+$/i;

/**
 * An array parameter as Postgres's array literal, built here instead of by node-postgres, which
 * quotes every element and runs two regular expressions over it (numbers too): in a sync's
 * batch of 500 records, about 30,000 elements in 40 arrays. Numbers and booleans go bare, text
 * bare where Postgres reads it back unchanged, otherwise quoted with `\` and `"` escaped; null
 * and undefined are NULL. Cast it where it is used (`${arrayParam(ids)}::uuid[]`).
 */
export function arrayParam(values: readonly ArrayElement[]): string {
  let out = "{";
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ",";
    const v = values[i];
    if (v === null || v === undefined) out += "NULL";
    else if (typeof v === "number") out += String(v);
    else if (typeof v === "boolean") out += v ? "t" : "f";
    else if (BARE.test(v)) out += v;
    else out += `"${v.replace(/[\\"]/g, "\\$&")}"`;
  }
  return `${out}}`;
}
