/**
 * Array parameters built as Postgres array literals (src/store/params.ts arrayParam): every value
 * comes back from Postgres as it went in, on both backends, text that must be quoted (NULL as a
 * word, empty, spaces, delimiters, quotes, backslashes, non-ASCII) included, and node-postgres's
 * own encoding of the same arrays reads back the same.
 */
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { sql } from "kysely";
import { arrayParam } from "../../src/store/params.js";
import { describeEachBackend, openTestStore, type TestStore } from "../helpers/db.js";

const TEXTS = [
  "plain",
  "",
  "NULL",
  "null",
  "Null",
  "NULLS",
  " leading",
  "trailing ",
  "in between",
  "a,b",
  "{braces}",
  'quo"te',
  "back\\slash",
  "\\",
  '"',
  'a\\"b',
  "tab\there",
  "new\nline",
  "ünïcödé",
  "日本語",
  "😀 emoji",
  "-",
  "+1",
  "1.5e3",
  "2024-01-02T03:04:05.000Z",
  "abs:0:1",
  "x/y@z_1",
  "6f1d7a52-3b0e-5c1a-9d4e-2a7b8c9d0e1f",
  '["Journal Article","Review"]',
];

describeEachBackend("array parameters", (kind) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(kind);
  });
  afterAll(() => t.cleanup());

  const read = async <T>(query: ReturnType<typeof sql<{ a: T }>>) =>
    (await query.execute(t.store.db)).rows[0]?.a;

  it("text: every value back as it went in, null and undefined as null", async () => {
    const values = [...TEXTS, null, undefined];
    const expected = [...TEXTS, null, null];
    expect(
      await read(sql<{ a: (string | null)[] }>`select ${arrayParam(values)}::text[] as a`),
    ).toEqual(expected);
    // node-postgres's own encoding of the same array reads back the same.
    expect(await read(sql<{ a: (string | null)[] }>`select ${values}::text[] as a`)).toEqual(
      expected,
    );
  });

  it("numbers and booleans go bare and come back equal", async () => {
    const ints = [0, -1, 2147483647, -2147483648, null];
    expect(
      await read(sql<{ a: (number | null)[] }>`select ${arrayParam(ints)}::int[] as a`),
    ).toEqual(ints);
    const floats = [0, -0.25, 1.5, 1e-7, 123456.789, 1e21, null];
    expect(
      await read(sql<{ a: (number | null)[] }>`select ${arrayParam(floats)}::float8[] as a`),
    ).toEqual(floats);
    const flags = [true, false, null];
    expect(
      await read(sql<{ a: (boolean | null)[] }>`select ${arrayParam(flags)}::boolean[] as a`),
    ).toEqual(flags);
    expect(arrayParam(ints)).toBe("{0,-1,2147483647,-2147483648,NULL}");
    expect(arrayParam([])).toBe("{}");
  });

  it("uuids and timestamps are read by their casts", async () => {
    const ids = ["6f1d7a52-3b0e-5c1a-9d4e-2a7b8c9d0e1f", "00000000-0000-4000-8000-000000000001"];
    expect(await read(sql<{ a: string[] }>`select ${arrayParam(ids)}::uuid[] as a`)).toEqual(ids);
    const at = ["2024-01-02T03:04:05.000Z", null];
    const back = await read(
      sql<{ a: (Date | null)[] }>`select ${arrayParam(at)}::timestamptz[] as a`,
    );
    expect(back?.map((d) => d?.toISOString() ?? null)).toEqual(at);
  });
});
