/**
 * Bounded at every edge (issue 45, findings 2–4), through the official SDK client against the fake
 * NCBI and the embedded store: arguments nested too deep or too large are VALIDATION naming the
 * limit (never UNKNOWN from a stack overflow), a VALIDATION message quotes an excerpt of what it
 * names and lists a few problems, then how many more, every string and list parameter advertises
 * its limit, and an over-long query_key is refused before the store sees it.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH } from "../../src/tools/arg-limits.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";

jest.setTimeout(120_000);

type Err = { error: { code: string; message: string; details: Record<string, unknown> | null } };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { EMBEDDINGS_PROVIDER: "hash" } });
});
afterAll(() => h.close());

/** Calls a tool expecting VALIDATION; returns the error. */
async function refused(tool: string, args: unknown): Promise<Err["error"]> {
  const out = await callTool(h.client, tool, args);
  expect(out.isError).toBe(true);
  const { error } = out.json as Err;
  expect(error.code).toBe("VALIDATION");
  return error;
}

/** `levels` objects or arrays, each inside the one before. */
function nested(levels: number, kind: "object" | "array"): unknown {
  let value: unknown = "x";
  for (let i = 0; i < levels; i++) value = kind === "object" ? { a: value } : [value];
  return value;
}

describe("arguments nested too deep", () => {
  it.each(["object", "array"] as const)(
    "5,000 levels of %s are VALIDATION naming the depth limit, not UNKNOWN",
    async (kind) => {
      h.fake.reset();
      const error = await refused("pubmed_search", { query: "x", dateRange: nested(5000, kind) });
      expect(error.message).toContain(`more than ${MAX_ARGUMENT_DEPTH} levels deep`);
      expect(error.details).toMatchObject({ maxDepth: MAX_ARGUMENT_DEPTH });
      expect(h.fake.requests).toEqual([]);
    },
  );

  it("takes arguments right at the limit to the schema, which names the real problem", async () => {
    // The arguments object is level 1: dateRange and the objects inside make 32 in all.
    const error = await refused("pubmed_search", {
      query: "x",
      dateRange: nested(MAX_ARGUMENT_DEPTH - 1, "object"),
    });
    expect(error.message).toContain("Invalid arguments for pubmed_search: dateRange.a is not");
    expect(error.message).not.toContain("levels deep");
    const over = await refused("pubmed_search", {
      query: "x",
      dateRange: nested(MAX_ARGUMENT_DEPTH, "object"),
    });
    expect(over.message).toContain("levels deep");
  });
});

describe("arguments too large", () => {
  it("refuses arguments over 1 MiB as JSON, naming the limit", async () => {
    const error = await refused("pubmed_search", { query: "x", padding: "y".repeat(1 << 20) });
    expect(error.message).toContain(
      `larger than ${MAX_ARGUMENT_BYTES.toLocaleString("en-US")} bytes as JSON`,
    );
    expect(error.message.length).toBeLessThan(300);
  });

  it("counts UTF-8 bytes: 400,000 three-byte characters are over the limit", async () => {
    const error = await refused("pubmed_verify_references", { references: ["€".repeat(400_000)] });
    expect(error.details).toMatchObject({ maxBytes: MAX_ARGUMENT_BYTES });
  });
});

describe("VALIDATION messages are bounded", () => {
  it("lists five of 20,000 unknown keys, then how many more", async () => {
    const args: Record<string, unknown> = { query: "x" };
    for (let i = 0; i < 20_000; i++) args[`extra${i}`] = i;
    const error = await refused("pubmed_search", args);
    expect(error.message.length).toBeLessThan(2000);
    expect(error.message).toMatch(/; and 19,995 more\. See the tool's input schema\.$/);
    expect(error.message).toContain("extra0 is not a parameter (this tool takes query,");
    expect(error.message).toContain("extra4 is not a parameter");
    expect(error.message).not.toContain("extra5 ");
    expect(error.details).toMatchObject({ issueCount: 20_000 });
    expect((error.details?.issues as unknown[]).length).toBe(5);
  });

  it("quotes an excerpt of a 1 MB key, cut between characters", async () => {
    // An emoji straddles the 39th code unit, where a 40-unit excerpt with its "…" is cut.
    const key = `${"k".repeat(38)}😀${"k".repeat(1_000_000)}`;
    const error = await refused("pubmed_search", { query: "x", [key]: 1 });
    expect(error.message.length).toBeLessThan(2000);
    expect(error.message).toContain(`Invalid arguments for pubmed_search: ${"k".repeat(38)}… is`);
    expect(error.message).not.toMatch(/[\ud800-\udfff]/);
  });

  it("refuses a 1 MB query by its length limit, without quoting it", async () => {
    h.fake.reset();
    const error = await refused("pubmed_search", { query: "q".repeat(1_000_000) });
    expect(error.message).toBe(
      "Invalid arguments for pubmed_search: query must be at most 10,000 characters. See the tool's input schema.",
    );
    expect(h.fake.requests).toEqual([]);
  });

  it("lists five of 150 bad PMIDs, then how many more", async () => {
    const error = await refused("pubmed_fetch", {
      pmids: Array.from({ length: 150 }, (_, i) => `x${i}`),
    });
    expect(error.message).toBe(
      "Invalid arguments for pubmed_fetch: " +
        [0, 1, 2, 3, 4].map((i) => `pmids[${i}] must be digits, e.g. "31452104"`).join("; ") +
        "; and 145 more. See the tool's input schema.",
    );
  });

  it("pubmed_convert_ids answers a 1 MB id with a short message", async () => {
    h.fake.reset();
    const error = await refused("pubmed_convert_ids", { ids: ["1".repeat(1_000_000)] });
    expect(error.message).toBe(
      "Invalid arguments for pubmed_convert_ids: ids[0] must be at most 300 characters. See the tool's input schema.",
    );
    expect(h.fake.requests).toEqual([]);
  });

  it("pubmed_convert_ids quotes an excerpt of each unreadable id, five of them", async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `not-an-id-${i}-${"z".repeat(250)}`);
    const error = await refused("pubmed_convert_ids", { ids });
    expect(error.message.length).toBeLessThan(2000);
    expect(error.message).toContain(`ids[0] "not-an-id-0-${"z".repeat(27)}…" is neither a PMID`);
    expect(error.message).toMatch(/; and 7 more\.$/);
    expect(error.message).not.toContain("z".repeat(40));
  });
});

/** `n` letters that do not compress (Postgres would store a repeated letter in an index row). */
function letters(n: number): string {
  let x = 12345;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return String.fromCharCode(97 + ((x >> 16) % 26));
  }).join("");
}

describe("query_key", () => {
  const KEY = letters(20_000);

  it.each([
    ["corpus_checkpoint_set", { query_key: KEY, last_edat: "2024-01-01T00:00:00Z" }],
    ["corpus_checkpoint_get", { query_key: KEY }],
    ["pubmed_sync_delta", { query_key: KEY, term: "aspirin" }],
  ])("%s refuses a 20,000-character key as VALIDATION, before the store", async (tool, args) => {
    const error = await refused(tool, args);
    expect(error.message).toBe(
      `Invalid arguments for ${tool}: query_key must be at most 200 characters. See the tool's input schema.`,
    );
  });

  it("takes a 200-character key", async () => {
    const out = await callTool(h.client, "corpus_checkpoint_set", {
      query_key: "k".repeat(200),
      last_edat: "2024-01-01T00:00:00Z",
    });
    expect(out.json).toEqual({ ok: true });
  });
});

describe("review tools", () => {
  const decision = (id: unknown) => ({ id, decision: "exclude" });
  it.each([
    [
      "review_decide",
      {
        review_id: "rv-ab12cd34",
        decisions: Array.from({ length: 501 }, (_, i) => decision(`pmid:${i + 1}`)),
      },
      "decisions must hold at most 500 decisions; split them",
    ],
    [
      "review_decide",
      { review_id: "rv-ab12cd34", decisions: [decision(`doi:10.1000/${"x".repeat(300)}`)] },
      "decisions[0].id must be at most 300 characters",
    ],
    [
      "review_decide",
      { review_id: "rv-ab12cd34", decisions: [decision("1".repeat(1_000_000))] },
      "decisions[0].id must be at most 300 characters",
    ],
    [
      "review_decide",
      {
        review_id: "rv-ab12cd34",
        decisions: [{ ...decision("pmid:1"), reason: "r".repeat(501) }],
      },
      "decisions[0].reason must be at most 500 characters",
    ],
    [
      "review_add",
      {
        review_id: "rv-ab12cd34",
        source: "ids",
        ids: Array.from({ length: 2_001 }, (_, i) => String(i + 1)),
      },
      "ids must list at most 2,000 identifiers; split the list",
    ],
    [
      "review_add",
      { review_id: "rv-ab12cd34", source: "ids", ids: [`10.1000/${"y".repeat(300)}`] },
      "ids[0] must be at most 300 characters",
    ],
    [
      "review_add",
      { review_id: "rv-ab12cd34", source: "pubmed", term: "q".repeat(10_001) },
      "term must be at most 10,000 characters",
    ],
    [
      "review_create",
      { name: "n".repeat(201), question: "Does metformin slow ageing?" },
      "name must be at most 200 characters",
    ],
    [
      "review_create",
      { name: "n", question: "q".repeat(4_001), criteria: "c".repeat(8_001) },
      "question must be at most 4,000 characters; criteria must be at most 8,000 characters",
    ],
    ["review_status", { review_id: "r".repeat(65) }, "review_id must be at most 64 characters"],
    [
      "pubmed_export",
      { pmids: Array.from({ length: 10_001 }, (_, i) => String(i + 1)), format: "ris" },
      "pmids must list at most 10,000 PMIDs; split the list",
    ],
  ])("%s refuses an input past its limit, naming it, before NCBI", async (tool, args, message) => {
    h.fake.reset();
    const error = await refused(tool, args);
    expect(error.message).toBe(
      `Invalid arguments for ${tool}: ${message}. See the tool's input schema.`,
    );
    expect(h.fake.requests).toEqual([]);
  });

  it("takes 500 decisions, 2,000 ids, a 64-character review_id (unknown review: NOT_FOUND)", async () => {
    for (const [tool, args] of [
      [
        "review_decide",
        {
          review_id: "rv-nope",
          decisions: Array.from({ length: 500 }, (_, i) => decision(`pmid:${i + 1}`)),
        },
      ],
      [
        "review_add",
        {
          review_id: "rv-nope",
          source: "ids",
          ids: Array.from({ length: 2_000 }, (_, i) => String(i + 1)),
        },
      ],
      ["review_screen", { review_id: "r".repeat(64) }],
    ] as const) {
      h.fake.reset();
      const out = await callTool(h.client, tool, args);
      // An unknown review costs NCBI nothing.
      expect({ tool, code: (out.json as Err).error.code, ncbi: h.fake.requests.length }).toEqual({
        tool,
        code: "NOT_FOUND",
        ncbi: 0,
      });
    }
  });
});

/** A JSON Schema pattern that only fits strings of bounded length: anchored, no * + or {n,}. */
const boundedPattern = (p: unknown) =>
  typeof p === "string" && /^\^.*\$$/.test(p) && !/[*+]|\{\d+,\}/.test(p);

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
}

/** The paths of string and array parameters in `schema` that advertise no limit. */
function unbounded(schema: JsonSchema, path: string): string[] {
  const own =
    (schema.type === "string" &&
      schema.maxLength === undefined &&
      !schema.enum &&
      schema.const === undefined &&
      !boundedPattern(schema.pattern)) ||
    (schema.type === "array" && schema.maxItems === undefined)
      ? [path]
      : [];
  return [
    ...own,
    ...Object.entries(schema.properties ?? {}).flatMap(([k, s]) => unbounded(s, `${path}.${k}`)),
    ...(schema.items ? unbounded(schema.items, `${path}[]`) : []),
    ...(schema.anyOf ?? []).flatMap((s) => unbounded(s, path)),
  ];
}

it("every string and list parameter of every tool advertises its limit in tools/list", async () => {
  const { tools } = await h.client.listTools();
  expect(tools.length).toBeGreaterThan(10);
  expect(tools.flatMap((t) => unbounded(t.inputSchema as JsonSchema, t.name))).toEqual([]);
  const key = (name: string) =>
    (tools.find((t) => t.name === name)?.inputSchema as JsonSchema).properties?.query_key;
  for (const name of ["pubmed_sync_delta", "corpus_checkpoint_get", "corpus_checkpoint_set"]) {
    expect(key(name)).toMatchObject({ type: "string", minLength: 1, maxLength: 200 });
  }
  // The review tools are walked too: their lists and ids advertise the limits tested above.
  const params = (name: string) =>
    (tools.find((t) => t.name === name)?.inputSchema as JsonSchema | undefined)?.properties;
  expect(params("review_decide")?.decisions).toMatchObject({
    maxItems: 500,
    items: { properties: { id: { maxLength: 300 }, reason: { maxLength: 500 } } },
  });
  expect(params("review_add")?.ids).toMatchObject({ maxItems: 2_000 });
  expect(params("review_create")?.name).toMatchObject({ maxLength: 200 });
  expect(params("pubmed_export")?.pmids).toMatchObject({ maxItems: 10_000 });
});
