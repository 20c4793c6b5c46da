/**
 * tools/call, prompts/get and completion/complete with names that do not exist or arguments of
 * the wrong kind, through the official SDK client: -32602 naming what exists (once, without a
 * doubled "MCP error" prefix), and the tool's VALIDATION result for non-object `arguments`.
 * Raw `client.request` calls send what the typed helpers would not.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  CompleteResultSchema,
  GetPromptResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { startHarness, startStdioClient, testEnv, type Harness } from "../helpers/mcp.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const callRaw = (client: Client, params: Record<string, unknown>) =>
  client.request({ method: "tools/call", params }, CallToolResultSchema);

/** The error a request failed with, as the SDK client reports it. */
async function failure(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: number; message: string };
    return { code: e.code, message: e.message };
  }
  throw new Error("the request succeeded");
}

function expectInvalidParams(e: { code: number; message: string }, text: RegExp): void {
  expect(e.code).toBe(-32602);
  expect(e.message).toMatch(text);
  expect(e.message.match(/MCP error/g)).toHaveLength(1);
}

describe("unknown names are -32602 naming what exists", () => {
  it("tools/call", async () => {
    const e = await failure(h.client.callTool({ name: "pubmed_foo", arguments: {} }));
    expectInvalidParams(
      e,
      /^MCP error -32602: Unknown tool pubmed_foo\. Available tools: .*pubmed_search/,
    );
    const nameless = await failure(callRaw(h.client, { arguments: {} }));
    expectInvalidParams(nameless, /needs params\.name.*Available tools: .*pubmed_fetch/);
  });

  it('a "__proto__" argument is refused like any unknown name, not dropped', async () => {
    // JSON.parse makes "__proto__" an own key, as a message off the wire has it.
    const args = JSON.parse('{"query": "asthma", "__proto__": {"polluted": true}}') as Record<
      string,
      unknown
    >;
    const res = await h.client.callTool({ name: "pubmed_spell", arguments: args });
    expect(res.isError).toBe(true);
    const env = JSON.parse((res.content as { text: string }[])[0]!.text) as {
      error: { code: string; message: string };
    };
    expect(env.error.code).toBe("VALIDATION");
    expect(env.error.message).toMatch(/__proto__ is not a parameter \(this tool takes query\)/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a name of 100,000 characters is quoted as an excerpt, not whole", async () => {
    const long = "x".repeat(100_000);
    const tool = await failure(h.client.callTool({ name: long, arguments: {} }));
    expectInvalidParams(tool, /^MCP error -32602: Unknown tool x{39}…\. Available tools: /);
    expect(tool.message.length).toBeLessThan(1_000);
    const prompt = await failure(h.client.getPrompt({ name: long, arguments: {} }));
    expectInvalidParams(prompt, /^MCP error -32602: Unknown prompt x{39}…\. /);
    const args = Object.fromEntries(
      Array.from({ length: 1_000 }, (_, i) => [`k${i}${long.slice(0, 90)}`, "v"]),
    );
    const many = await failure(h.client.getPrompt({ name: "pico_search", arguments: args }));
    expectInvalidParams(many, /and 995 more; its arguments: population/);
    expect(many.message.length).toBeLessThan(1_000);
  });

  it("prompts/get", async () => {
    const e = await failure(h.client.getPrompt({ name: "pico", arguments: {} }));
    expectInvalidParams(
      e,
      /^MCP error -32602: Unknown prompt pico\. Available prompts: pico_search, systematic_review_plan\.$/,
    );
  });

  it("prompts/get without a required argument, or with a non-string one", async () => {
    const missing = await failure(
      h.client.getPrompt({ name: "pico_search", arguments: { population: "asthma" } }),
    );
    expectInvalidParams(missing, /Prompt pico_search needs intervention/);
    const numeric = await failure(
      h.client.request(
        { method: "prompts/get", params: { name: "pico_search", arguments: { population: 5 } } },
        GetPromptResultSchema,
      ),
    );
    expectInvalidParams(numeric, /must be an object of strings/);
  });

  it("completion/complete with an unknown prompt, template or argument", async () => {
    const prompt = await failure(
      h.client.complete({
        ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
        argument: { name: "arg1", value: "t" },
      }),
    );
    expectInvalidParams(
      prompt,
      /Unknown prompt test_prompt_with_arguments\. Available prompts: pico_search/,
    );
    const template = await failure(
      h.client.complete({
        ref: { type: "ref/resource", uri: "resource://pubmed/article/{id}" },
        argument: { name: "id", value: "1" },
      }),
    );
    expectInvalidParams(
      template,
      /Unknown resource template resource:\/\/pubmed\/article\/\{id\}\. Resource templates: resource:\/\/pubmed\/paper\/\{pmid\}, resource:\/\/pubmed\/review\/\{review_id\}\/export\/\{format\}, resource:\/\/pubmed\/export\/\{export_id\}\./,
    );
    const argument = await failure(
      h.client.complete({
        ref: { type: "ref/prompt", name: "pico_search" },
        argument: { name: "design", value: "r" },
      }),
    );
    expectInvalidParams(
      argument,
      /Prompt pico_search has no argument design\. Its arguments: population, intervention/,
    );
    const malformed = await failure(
      h.client.request(
        { method: "completion/complete", params: { ref: "pico_search", argument: { name: "x" } } },
        CompleteResultSchema,
      ),
    );
    expectInvalidParams(malformed, /needs params\.ref/);
  });
});

describe("tools/call arguments that are not a JSON object", () => {
  const cases: [string, unknown, string][] = [
    ["null", null, "null"],
    ["a string", '{"query":"asthma"}', "a string"],
    ["a number", 42, "a number"],
    ["an array", ["asthma"], "an array"],
  ];
  it.each(cases)("%s gets the VALIDATION result", async (_label, args, kind) => {
    const res = await callRaw(h.client, { name: "pubmed_spell", arguments: args });
    expect(res.isError).toBe(true);
    const first = res.content[0];
    const json = JSON.parse(first?.type === "text" ? first.text : "") as {
      error: { code: string; message: string };
    };
    expect(json.error.code).toBe("VALIDATION");
    expect(json.error.message).toBe(
      `Invalid arguments for pubmed_spell: arguments must be a JSON object of named parameters, got ${kind}. See the tool's input schema.`,
    );
  });

  it("missing arguments mean {}: the tool itself names the missing parameter", async () => {
    const res = await callRaw(h.client, { name: "pubmed_spell" });
    expect(res.isError).toBe(true);
    const first = res.content[0];
    const text = first?.type === "text" ? first.text : "";
    expect(JSON.parse(text)).toMatchObject({ error: { code: "VALIDATION" } });
    expect(text).toMatch(/query/);
    expect(text).not.toMatch(/arguments must be a JSON object/);
  });
});

it("a tools/call the SDK refuses for another param gets the SDK's answer, bad arguments or not", async () => {
  // The arguments are checked before the SDK parses the request (src/protocol/calls.ts), but a
  // malformed `_meta` is still the SDK's to answer, as it was when it parsed the request first.
  for (const args of [{ query: "asthma" }, { query: "asthma", bogus: 1 }]) {
    const e = await failure(
      callRaw(h.client, { name: "pubmed_spell", arguments: args, task: "soon" }),
    );
    expect(e.code).toBe(-32603);
    expect(e.message).toMatch(/task/);
  }
});

describe("over stdio", () => {
  let fake: FakeEutils;
  let dataDir: string;
  beforeAll(async () => {
    fake = await startFakeEutils();
    dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-protocol-"));
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers null arguments with VALIDATION and an unknown tool with one -32602", async () => {
    const { client } = await startStdioClient(testEnv(fake, dataDir));
    try {
      const res = await callRaw(client, { name: "pubmed_search", arguments: null });
      expect(res.isError).toBe(true);
      const first = res.content[0];
      expect(JSON.parse(first?.type === "text" ? first.text : "")).toMatchObject({
        error: {
          code: "VALIDATION",
          message: expect.stringMatching(/must be a JSON object of named parameters, got null/),
        },
      });
      const e = await failure(client.callTool({ name: "nope", arguments: {} }));
      expectInvalidParams(e, /^MCP error -32602: Unknown tool nope\. Available tools: /);
    } finally {
      await client.close();
    }
  });
});
