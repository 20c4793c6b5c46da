/**
 * A refused call reads what it sent once (issue 45: the MCP loop must not stall on the edges
 * bench's damaged calls). Through the official SDK client, in memory, so the arguments reach the
 * server as the objects the test made: a Proxy counts the reads of each item of a 100,000-item
 * list and of each value of an object with 20,000 unknown keys. The limits walk
 * (src/tools/arg-limits.ts) reads each once; nothing else may walk them again: not the key
 * reconciliation (a list of PMIDs has no keys to match, an unknown key's value is never used),
 * not a copy dropping empty strings (there are none), and not the SDK's request schema, which
 * copies every value of `arguments` (twice) and is not reached by a refused call
 * (src/protocol/calls.ts). Counts, not times: a slow machine cannot fail this test.
 */
import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";

jest.setTimeout(60_000);

type Err = { error: { code: string; message: string; details: Record<string, unknown> | null } };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { EMBEDDINGS_PROVIDER: "hash" } });
});
afterAll(() => h.close());

/** `target` behind a Proxy that counts the reads of each of its own keys (array items too). */
function counted<T extends object>(target: T): { value: T; reads: Map<PropertyKey, number> } {
  const reads = new Map<PropertyKey, number>();
  const value = new Proxy(target, {
    get(t, key, receiver) {
      if (Object.hasOwn(t, key) && key !== "length") reads.set(key, (reads.get(key) ?? 0) + 1);
      return Reflect.get(t, key, receiver) as unknown;
    },
  });
  return { value, reads };
}

/** The most reads of any one key (of those `only` takes). */
const most = (reads: Map<PropertyKey, number>, only = (_key: PropertyKey) => true) =>
  Math.max(0, ...[...reads].filter(([key]) => only(key)).map(([, n]) => n));

it("refuses a list of 100,000 PMIDs reading each item once", async () => {
  // Seven digits each: 1,000,000 bytes as JSON, under the 1 MiB limit, so the schema decides.
  const pmids = counted(Array.from({ length: 100_000 }, (_, i) => String(1_000_000 + i)));
  h.fake.reset();
  const out = await callTool(h.client, "pubmed_fetch", { pmids: pmids.value });
  expect(out.isError).toBe(true);
  expect((out.json as Err).error).toMatchObject({
    code: "VALIDATION",
    message:
      "Invalid arguments for pubmed_fetch: pmids must list at most 200 PMIDs; split the list. See the tool's input schema.",
  });
  expect(pmids.reads.size).toBe(100_000);
  expect(most(pmids.reads)).toBe(1);
  expect(h.fake.requests).toEqual([]);
});

/**
 * Every parse the SDK makes of a tools/call request, by the `arguments` it was given: its
 * CallToolRequestSchema (zod 4: each parse goes through `_zod.run`) wrapped for one test.
 */
async function sdkParses(during: () => Promise<void>): Promise<unknown[]> {
  const internals = (CallToolRequestSchema as unknown as { _zod: { run: Run } })._zod;
  const run = internals.run;
  const seen: unknown[] = [];
  internals.run = (payload, ctx) => {
    seen.push((payload.value as { params?: { arguments?: unknown } }).params?.arguments);
    return run.call(internals, payload, ctx);
  };
  try {
    await during();
  } finally {
    internals.run = run;
  }
  return seen;
}
type Run = (payload: { value: unknown }, ctx: unknown) => unknown;

it("refuses 20,000 unknown keys reading each once, before the SDK parses the request", async () => {
  const given: Record<string, unknown> = { query: "asthma" };
  for (let i = 0; i < 20_000; i++) given[`extra${i}`] = i;
  const args = counted(given);
  const valid = { query: "asthma" };
  let error: Err["error"] | undefined;
  const parsed = await sdkParses(async () => {
    error = ((await callTool(h.client, "pubmed_spell", args.value)).json as Err).error;
    // A call its tool takes does reach the SDK's parse: the wrapper sees what it should.
    await callTool(h.client, "pubmed_spell", valid);
  });
  expect(error?.code).toBe("VALIDATION");
  expect(error?.message).toMatch(
    /^Invalid arguments for pubmed_spell: extra0 is not a parameter \(this tool takes query\); .*; and 19,995 more\. See the tool's input schema\.$/,
  );
  expect(error?.details).toMatchObject({ issueCount: 20_000 });
  expect(parsed.filter((a) => a === args.value)).toEqual([]);
  expect(parsed.filter((a) => a === valid).length).toBeGreaterThan(0);
  const unknown = (key: PropertyKey) => String(key).startsWith("extra");
  expect([...args.reads.keys()].filter(unknown)).toHaveLength(20_000);
  expect(most(args.reads, unknown)).toBe(1);
});

/**
 * The review tools' lists, refused for length: ids (strings) are read once each; decisions
 * (objects) twice, the second time by the key reconciliation matching each decision's keys.
 */
it.each([
  [
    "review_decide",
    "decisions",
    {},
    (i: number) => ({ id: `pmid:${1_000_000 + i}`, decision: "exclude" }),
    "decisions must hold at most 500 decisions; split them",
    // The key reconciliation visits each decision, an object with keys to match, once more.
    2,
  ],
  [
    "review_add",
    "ids",
    { source: "ids" },
    (i: number) => String(1_000_000 + i),
    "ids must list at most 2,000 identifiers; split the list",
    1,
  ],
] as const)(
  "%s refuses a %s list of 20,000 reading each item a bounded number of times, before NCBI",
  async (tool, param, rest, item, message, reads) => {
    // Under 1 MiB as JSON (about 44 bytes a decision), so the schema decides.
    const list = counted(Array.from({ length: 20_000 }, (_, i) => item(i)));
    h.fake.reset();
    const out = await callTool(h.client, tool, {
      review_id: "rv-ab12cd34",
      ...rest,
      [param]: list.value,
    });
    expect(out.isError).toBe(true);
    expect((out.json as Err).error).toMatchObject({
      code: "VALIDATION",
      message: `Invalid arguments for ${tool}: ${message}. See the tool's input schema.`,
    });
    expect(list.reads.size).toBe(20_000);
    expect(most(list.reads)).toBe(reads);
    expect(h.fake.requests).toEqual([]);
  },
);
