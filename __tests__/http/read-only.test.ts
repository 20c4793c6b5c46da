/**
 * MCP_READ_ONLY=true hides every tool whose own readOnlyHint is false and refuses calls to it —
 * derived from the annotation, never from a second list. Walks the real registry, and proves the
 * filter on a synthetic writing tool (the registry may hold none yet) in-memory and over HTTP.
 * Prompts never recommend a hidden tool.
 */
import { afterEach, describe, expect, it } from "@jest/globals";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { loadConfig } from "../../src/config.js";
import { activeTools, createSession } from "../../src/server.js";
import { closeProcess, setStateForTests } from "../../src/worker/process.js";
import { TOOLS } from "../../src/tools/index.js";
import { defineTool, type ToolDef } from "../../src/tools/tool.js";
import { connectStreamable, startHttpHarness } from "./harness.js";

let writes = 0;
const writer = defineTool({
  name: "test_write_marker",
  description: "Test-only tool that records a write.",
  toolset: "corpus",
  annotations: {
    title: "Write a marker",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  parameters: z.object({ note: z.string().describe("Anything.") }),
  execute: async () => ({ written: ++writes }),
}) as unknown as ToolDef;
const WITH_WRITER = [...TOOLS, writer];

async function inMemory(readOnly: boolean, tools: readonly ToolDef[]) {
  const dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-ro-"));
  await setStateForTests(
    loadConfig({
      PUBMED_MCP_DATA_DIR: dataDir,
      LOG_LEVEL: "error",
      MCP_READ_ONLY: String(readOnly),
    }),
  );
  const session = createSession({ tools });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.connect(serverSide);
  const client = new Client({ name: "ro", version: "1" });
  await client.connect(clientSide);
  const close = async () => {
    await client.close();
    await session.close();
    await closeProcess();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { client, close };
}

/** The server's answer to a call: a tool result, or the JSON-RPC error the client raised. */
async function attempt(client: Client, name: string): Promise<{ ok: boolean; error?: string }> {
  try {
    const res = await client.callTool({ name, arguments: { note: "x" } });
    return {
      ok: res.isError !== true,
      error: res.isError ? JSON.stringify(res.content) : undefined,
    };
  } catch (err) {
    return { ok: false, error: String(err) };
  }
}

describe("read-only mode", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it("lists exactly the registry's read-only tools, walking every tool's own readOnlyHint", async () => {
    const { client, close } = await inMemory(true, TOOLS);
    cleanups.push(close);
    const listed = new Set((await client.listTools()).tools.map((t) => t.name));
    for (const tool of TOOLS) {
      expect([tool.name, listed.has(tool.name)]).toEqual([
        tool.name,
        tool.annotations.readOnlyHint,
      ]);
    }
    const all = loadConfig({}).toolsets;
    expect(
      activeTools({ readOnly: true, toolsets: all }).every((t) => t.annotations.readOnlyHint),
    ).toBe(true);
  });

  it("offers and runs a writing tool when not read-only", async () => {
    const { client, close } = await inMemory(false, WITH_WRITER);
    cleanups.push(close);
    const listed = (await client.listTools()).tools.find((t) => t.name === writer.name);
    expect(listed?.annotations?.readOnlyHint).toBe(false);
    const before = writes;
    expect(await attempt(client, writer.name)).toEqual({ ok: true, error: undefined });
    expect(writes).toBe(before + 1);
  });

  it("hides a writing tool and refuses calls to it when read-only", async () => {
    const { client, close } = await inMemory(true, WITH_WRITER);
    cleanups.push(close);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain(writer.name);
    expect(names).toContain("pubmed_search");
    const before = writes;
    const outcome = await attempt(client, writer.name);
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/-32601|Unknown tool/);
    expect(writes).toBe(before);
  });

  it("plans a review without the hidden sync tool when read-only, with it otherwise", async () => {
    const plan = async (readOnly: boolean) => {
      const { client, close } = await inMemory(readOnly, TOOLS);
      cleanups.push(close);
      const offered = new Set((await client.listTools()).tools.map((t) => t.name));
      const res = await client.getPrompt({
        name: "systematic_review_plan",
        arguments: { question: "aspirin and stroke" },
      });
      const message = res.messages[0]?.content;
      const text = message?.type === "text" ? message.text : "";
      // Every tool the plan names is one this server offers.
      const named = [
        ...text.matchAll(
          /\b((?:pubmed|corpus)_[a-z_]+|rag_[a-z]+|review_(?:create|add|screen|decide|status|export))\b/g,
        ),
      ].map((m) => m[1]!);
      expect(named.filter((n) => !offered.has(n))).toEqual([]);
      return text;
    };
    const readOnly = await plan(true);
    expect(readOnly).not.toContain("pubmed_sync_delta");
    expect(readOnly).toMatch(/read-only, so it cannot sync/);
    // Writing allowed: the plan runs as a review (review_create and review_add write).
    expect(await plan(false)).toContain('review_create {"name": "aspirin"');
  });

  it("hides and refuses the writing tool over HTTP too", async () => {
    const h = await startHttpHarness({
      env: { MCP_READ_ONLY: "true" },
      server: { tools: WITH_WRITER },
    });
    cleanups.push(() => h.close());
    const client = await connectStreamable(h.http.url);
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(writer.name);
    const before = writes;
    expect((await attempt(client, writer.name)).ok).toBe(false);
    expect(writes).toBe(before);
  });
});
