/**
 * PGlite's protocol messages pipelined (src/store/pglite-pipeline.ts): node-postgres on a real
 * in-memory PGlite gets the same rows, types and errors as through PGlite's adapter alone, in one
 * call into PGlite per statement instead of one per message; its session stays usable after a
 * statement fails, and PGlite's own query() and execProtocol() still answer after it. With
 * encodeBeforeBind, a parameter that cannot be encoded fails its statement only.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { PGlite } from "@electric-sql/pglite";
import { createPgConfig } from "@electric-sql/pglite/node-postgres";
import pg from "pg";
import { serialize } from "pg-protocol";
import { encodeBeforeBind, pipelined } from "../../src/store/pglite-pipeline.js";

let pglite: PGlite;
/** The first byte (message type) of each buffer handed to PGlite to run. */
let calls: number[] = [];
/** The pipeline only: how many pieces PGlite's output came in, for each call. */
let rawChunks: number[] = [];

beforeAll(async () => {
  pglite = await PGlite.create();
  // The adapter alone calls execProtocolStream; the pipeline execProtocolRawStream.
  const stream = pglite.execProtocolStream.bind(pglite);
  pglite.execProtocolStream = (message, opts) => {
    calls.push(message[0] ?? -1);
    return stream(message, opts);
  };
  const raw = pglite.execProtocolRawStream.bind(pglite);
  pglite.execProtocolRawStream = (message, opts) => {
    calls.push(message[0] ?? -1);
    const at = rawChunks.push(0) - 1;
    return raw(message, {
      ...opts,
      onRawData: (data) => {
        rawChunks[at]!++;
        opts?.onRawData(data);
      },
    });
  };
}, 60_000);

afterAll(async () => {
  await pglite.close();
});

beforeEach(() => {
  calls = [];
  rawChunks = [];
});

function poolOn(instance: PGlite): pg.Pool {
  return new pg.Pool({ ...createPgConfig(instance), max: 1, idleTimeoutMillis: 0 });
}

const QUERY = { text: "select $1::int + 1 as n, $2::text as t", values: [41, "x"] };
const PARSE = "P".charCodeAt(0);
const BIND = "B".charCodeAt(0);

// Both pools share PGlite's one session, where a named statement outlives its pool: one name each.
describe.each([
  ["pipelined", "piped", () => poolOn(pipelined(pglite))],
  ["PGlite's adapter alone", "plain", () => poolOn(pglite)],
])("%s", (_how, tag, makePool) => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = makePool();
  });
  afterAll(async () => {
    await pool.end();
  });

  it("answers a statement with parameters", async () => {
    expect((await pool.query(QUERY)).rows).toEqual([{ n: 42, t: "x" }]);
  });

  it("reports a server error and answers the next statement", async () => {
    const failed = pool.query("select from where");
    await expect(failed).rejects.toMatchObject({ code: "42601" });
    expect((await pool.query(QUERY)).rows).toEqual([{ n: 42, t: "x" }]);
  });

  it("reads rows of many types, NULLs, multi-byte text and large values", async () => {
    const big = "é".repeat(200_000); // 400 KB of UTF-8: more than one chunk of PGlite's output
    const res = await pool.query(
      `select g as n, g::float8 / 4 as f, g % 2 = 0 as even, null::text as nothing,
         array[g, g + 1] as arr, '{"a": [1, "ü"]}'::jsonb as doc, 'Ωμέγα 🧬'::text as word,
         '2024-01-02'::date as day, case when g = 3 then $1::text end as large
       from generate_series(1, 3) g order by g`,
      [big],
    );
    expect(res.rows).toHaveLength(3);
    expect(res.rows[0]).toEqual({
      n: 1,
      f: 0.25,
      even: false,
      nothing: null,
      arr: [1, 2],
      doc: { a: [1, "ü"] },
      word: "Ωμέγα 🧬",
      day: expect.any(Date) as unknown,
      large: null,
    });
    expect((res.rows[2] as { large: string }).large).toBe(big);
    expect(res.fields.map((f) => f.name).join()).toBe("n,f,even,nothing,arr,doc,word,day,large");
    // Through the pipeline, the reply came in pieces that the parser joined.
    if (tag === "piped") expect(Math.max(...rawChunks)).toBeGreaterThan(1);
  });

  it("reports the row count of a write and a constraint's error", async () => {
    await pool.query(`create temp table if not exists t_${tag} (id int primary key)`);
    await pool.query(`truncate t_${tag}`);
    const ins = await pool.query(`insert into t_${tag} select generate_series(1, 5)`);
    expect(ins.rowCount).toBe(5);
    await expect(pool.query(`insert into t_${tag} values (1)`)).rejects.toMatchObject({
      code: "23505",
      constraint: `t_${tag}_pkey`,
    });
  });

  it("prepares a named statement once and runs it again", async () => {
    const named = { name: `named_${tag}`, ...QUERY };
    expect((await pool.query(named)).rows).toEqual([{ n: 42, t: "x" }]);
    calls = [];
    expect((await pool.query({ ...named, values: [1, "y"] })).rows).toEqual([{ n: 2, t: "y" }]);
    expect(calls[0]).toBe(BIND);
  });
});

describe("PGlite's own API after pipelined statements", () => {
  it("query() and execProtocol() return their replies", async () => {
    const piped = poolOn(pipelined(pglite));
    try {
      expect((await piped.query(QUERY)).rows).toEqual([{ n: 42, t: "x" }]);
      // Where the raw stream's output handler stayed installed, these replies went to it.
      const { messages } = await pglite.execProtocol(serialize.query("select 8 as n"));
      expect(messages.map((m) => m.name)).toEqual([
        "rowDescription",
        "dataRow",
        "commandComplete",
        "readyForQuery",
      ]);
      expect((await pglite.query<{ n: number }>("select 7 as n")).rows).toEqual([{ n: 7 }]);
    } finally {
      await piped.end();
    }
  });
});

describe("calls into PGlite", () => {
  it("one a statement when pipelined, one a message through the adapter alone", async () => {
    const piped = poolOn(pipelined(pglite));
    const plain = poolOn(pglite);
    try {
      await piped.query("select 1"); // connected
      await plain.query("select 1");
      calls = [];
      await piped.query(QUERY);
      expect(calls).toEqual([PARSE]);
      calls = [];
      await plain.query(QUERY);
      expect(calls.length).toBeGreaterThanOrEqual(4);
    } finally {
      await piped.end();
      await plain.end();
    }
  });
});

describe("encodeBeforeBind", () => {
  it("fails the statement of a parameter that cannot be encoded; the session goes on", async () => {
    const pool = new pg.Pool({
      ...encodeBeforeBind(createPgConfig(pipelined(pglite))),
      max: 1,
      idleTimeoutMillis: 0,
    });
    // As Kysely uses it: one client, released without an error, so it is never ended.
    const client = await pool.connect();
    const unencodable = {
      toPostgres: () => {
        throw new Error("cannot encode this value");
      },
    };
    try {
      await client.query("begin");
      await client.query("create temp table encode_t (n int)");
      await client.query("insert into encode_t values ($1)", [1]);
      await expect(client.query("select $1::text", [unencodable])).rejects.toThrow(
        "cannot encode this value",
      );
      // The ROLLBACK and the statements after it arrive whole: the table is gone with it.
      await client.query("rollback");
      expect((await client.query(QUERY)).rows).toEqual([{ n: 42, t: "x" }]);
      const { rows } = await client.query<{ t: string | null }>(
        "select to_regclass('pg_temp.encode_t')::text as t",
      );
      expect(rows).toEqual([{ t: null }]);
      // Values are still encoded as node-postgres encodes them: dates, arrays, buffers, null.
      const typed = await client.query(
        "select $1::timestamptz as d, $2::int[] as a, $3::bytea as b, $4::text as z",
        [new Date("2024-01-02T03:04:05Z"), [1, 2], Buffer.from([1, 2, 255]), null],
      );
      expect(typed.rows).toEqual([
        { d: new Date("2024-01-02T03:04:05Z"), a: [1, 2], b: Buffer.from([1, 2, 255]), z: null },
      ]);
    } finally {
      client.release();
      await pool.end();
    }
  });
});
