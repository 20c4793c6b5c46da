/**
 * PGlite's protocol messages pipelined (src/store/pglite-pipeline.ts): node-postgres on a real
 * in-memory PGlite gets the same rows and the same errors as through PGlite's adapter alone, in
 * one call into PGlite per statement instead of one per message, and its session stays usable
 * after a statement fails.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { PGlite } from "@electric-sql/pglite";
import { createPgConfig } from "@electric-sql/pglite/node-postgres";
import pg from "pg";
import { pipelined } from "../../src/store/pglite-pipeline.js";

let pglite: PGlite;
/** The first byte (message type) of each buffer handed to PGlite. */
let calls: number[] = [];

beforeAll(async () => {
  pglite = await PGlite.create();
  const real = pglite.execProtocolStream.bind(pglite);
  pglite.execProtocolStream = (message, opts) => {
    calls.push(message[0] ?? -1);
    return real(message, opts);
  };
}, 60_000);

afterAll(async () => {
  await pglite.close();
});

beforeEach(() => {
  calls = [];
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

  it("prepares a named statement once and runs it again", async () => {
    const named = { name: `named_${tag}`, ...QUERY };
    expect((await pool.query(named)).rows).toEqual([{ n: 42, t: "x" }]);
    calls = [];
    expect((await pool.query({ ...named, values: [1, "y"] })).rows).toEqual([{ n: 2, t: "y" }]);
    expect(calls[0]).toBe(BIND);
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
