/**
 * Walks every tool the server lists: names, descriptions, annotations, input and output schema
 * rules, plus a snapshot of tools/list that only changes on purpose (update with `npm test -- -u`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { TOOLS } from "../../src/tools/index.js";
import { startHarness, type Harness } from "../helpers/mcp.js";

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

  it("matches the committed snapshot", async () => {
    const { tools } = await h.client.listTools();
    expect(tools).toMatchSnapshot();
  });
});
