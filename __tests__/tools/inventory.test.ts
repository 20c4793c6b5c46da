/**
 * Walks every tool the server lists: names, descriptions, annotations, input and output schema
 * rules, plus a snapshot of tools/list that only changes on purpose (update with `npm test -- -u`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TOOLS } from "../../src/tools/index.js";
import { TOOLSETS } from "../../src/toolsets.js";
import { startHarness, type Harness } from "../helpers/mcp.js";
import { REPO_DIR } from "../helpers/paths.js";

type JsonSchema = {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe("tools/list", () => {
  it("lists every registered tool once, with unique snake_case names", async () => {
    const { tools } = await h.client.listTools();
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(TOOLS.map((t) => t.name).sort());
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/);
  });

  it("describes every tool and every parameter, with an object root", async () => {
    const { tools } = await h.client.listTools();
    for (const tool of tools) {
      expect(tool.description?.length ?? 0).toBeGreaterThan(80);
      expect(tool.description).toMatch(/Example/);
      const schema = tool.inputSchema as JsonSchema;
      expect(schema.type).toBe("object");
      for (const [param, prop] of Object.entries(schema.properties ?? {})) {
        expect({ tool: tool.name, param, described: Boolean(prop.description) }).toEqual({
          tool: tool.name,
          param,
          described: true,
        });
      }
    }
  });

  it("declares an object outputSchema for every tool, in the JSON Schema dialect it names", async () => {
    const { tools } = await h.client.listTools();
    for (const tool of tools) {
      expect({ tool: tool.name, type: tool.outputSchema?.type }).toEqual({
        tool: tool.name,
        type: "object",
      });
      expect(tool.outputSchema?.$schema).toBe("http://json-schema.org/draft-07/schema#");
      expect(Object.keys(tool.outputSchema?.properties ?? {}).length).toBeGreaterThan(0);
    }
  });

  it("sets annotations truthfully: live tools are read-only and open-world", async () => {
    const { tools } = await h.client.listTools();
    for (const tool of tools) {
      expect(typeof tool.annotations?.readOnlyHint).toBe("boolean");
      expect(typeof tool.annotations?.title).toBe("string");
      if (tool.name.startsWith("pubmed_") && tool.name !== "pubmed_sync_delta") {
        expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
      }
      if (tool.annotations?.readOnlyHint === false) {
        expect(typeof tool.annotations.destructiveHint).toBe("boolean");
        expect(typeof tool.annotations.idempotentHint).toBe("boolean");
      }
    }
  });

  it("puts every tool in a known toolset, the families' tools in their own", () => {
    // The toolsets MCP_TOOLSETS switches on (docs/configuration.md). The type makes `toolset`
    // required; this holds the families documented there to their toolset.
    const family: Record<string, string> = {
      live: "pubmed_search pubmed_fetch pubmed_related pubmed_cite pubmed_spell pubmed_match_citations pubmed_trend",
      reading: "pubmed_fulltext pubmed_convert_ids pubmed_mesh europepmc_search pubmed_annotations",
      trust: "pubmed_verify_references",
      corpus: "pubmed_sync_delta rag_search rag_get corpus_checkpoint_get corpus_checkpoint_set",
      review:
        "review_create review_add review_screen review_decide review_status review_export pubmed_export",
    };
    const expected = new Map(
      Object.entries(family).flatMap(([set, names]) => names.split(" ").map((n) => [n, set])),
    );
    for (const tool of TOOLS) {
      expect(TOOLSETS).toContain(tool.toolset);
      expect({ tool: tool.name, toolset: tool.toolset }).toEqual({
        tool: tool.name,
        toolset: expected.get(tool.name) ?? tool.toolset,
      });
    }
    expect(TOOLS.filter((t) => expected.has(t.name)).length).toBeGreaterThanOrEqual(18);
  });

  it("marks the review tools that write as docs/reviews.md's table says", async () => {
    // | `review_create` | yes    | … : the "writes" column of the table of review tools.
    const docs = readFileSync(join(REPO_DIR, "docs", "reviews.md"), "utf8");
    const writes = Object.fromEntries(
      [...docs.matchAll(/^\| `(\w+)` +\| (yes|no) +\|/gm)].map((m) => [m[1]!, m[2] === "yes"]),
    );
    const { tools } = await h.client.listTools();
    const review = TOOLS.filter((t) => t.toolset === "review").map((t) => t.name);
    expect(Object.keys(writes).sort()).toEqual([...review].sort());
    for (const name of review) {
      const annotations = tools.find((t) => t.name === name)?.annotations;
      expect({ name, readOnlyHint: annotations?.readOnlyHint }).toEqual({
        name,
        readOnlyHint: !writes[name],
      });
    }
  });

  it("matches the committed snapshot", async () => {
    const { tools } = await h.client.listTools();
    expect(tools).toMatchSnapshot();
  });
});
