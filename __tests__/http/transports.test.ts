/**
 * The same server answers the same way on every transport: Streamable HTTP, legacy SSE, stdio
 * (a spawned process) and in-memory. Whole results are compared with toEqual. Also guards the
 * first-handshake latency fix (fastmcp's capability polling used to add ~1 s to initialize).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession } from "../../src/server.js";
import { onUtility } from "../helpers/fake-eutils.js";
import { startStdioClient } from "../helpers/mcp.js";
import {
  ESPELL_XML,
  connectSse,
  connectStreamable,
  startHttpHarness,
  type HttpHarness,
} from "./harness.js";

const SPELL = { name: "pubmed_spell", arguments: { query: "asthmaa childrn" } };

describe("one server, four transports", () => {
  let h: HttpHarness;
  const clients: Record<string, Client> = {};
  const closers: (() => Promise<unknown>)[] = [];
  let stdioDataDir: string;

  beforeAll(async () => {
    h = await startHttpHarness({ routes: [onUtility("espell", { body: ESPELL_XML })] });
    clients.http = await connectStreamable(h.http.url);
    clients.sse = await connectSse(h.http.url);
    const session = createSession();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.connect(serverSide);
    clients.memory = new SdkClient({ name: "memory", version: "1.0.0" });
    await clients.memory.connect(clientSide);
    closers.push(() => session.close());
    stdioDataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-stdio-"));
    const stdio = await startStdioClient({
      ...h.env,
      MCP_TRANSPORT: "stdio",
      PUBMED_MCP_DATA_DIR: stdioDataDir,
    });
    clients.stdio = stdio.client;
  }, 60_000);

  afterAll(async () => {
    for (const c of Object.values(clients)) await c.close();
    for (const close of closers) await close();
    await h.close();
    rmSync(stdioDataDir, { recursive: true, force: true });
  });

  it("returns identical tool results over HTTP, SSE, stdio and in-memory", async () => {
    const results: Record<string, unknown> = {};
    for (const [name, client] of Object.entries(clients))
      results[name] = await client.callTool(SPELL);
    const expected = {
      content: [
        {
          type: "text",
          text: JSON.stringify({
            original: "asthmaa childrn",
            corrected: "asthma children",
            hasSuggestion: true,
          }),
        },
      ],
      structuredContent: {
        original: "asthmaa childrn",
        corrected: "asthma children",
        hasSuggestion: true,
      },
    };
    for (const name of Object.keys(clients)) expect(results[name]).toEqual(expected);
  });

  it("lists the same tools, resources and prompts everywhere", async () => {
    const surface = async (c: Client) => ({
      tools: (await c.listTools()).tools,
      resources: (await c.listResources()).resources,
      prompts: (await c.listPrompts()).prompts,
    });
    const reference = await surface(clients.memory!);
    expect(reference.tools.length).toBeGreaterThan(0);
    for (const c of [clients.http!, clients.sse!, clients.stdio!])
      expect(await surface(c)).toEqual(reference);
  });

  it("advertises the instructions and server identity on every transport", () => {
    for (const c of Object.values(clients)) {
      expect(c.getServerVersion()?.name).toBe("pubmed-mcp");
      expect(c.getInstructions()).toMatch(/pubmed_search[\s\S]*pubmed_fetch[\s\S]*pubmed_cite/);
      expect(c.getInstructions()).toMatch(/pubmed_sync_delta[\s\S]*rag_search[\s\S]*rag_get/);
    }
  });

  it("answers a repeated call from the E-utilities cache without reaching NCBI again", async () => {
    await clients.http!.callTool({ name: "pubmed_spell", arguments: { query: "cache probe" } });
    const before = h.fake.requests.length;
    const again = await clients.sse!.callTool({
      name: "pubmed_spell",
      arguments: { query: "cache probe" },
    });
    expect(again.isError).toBeFalsy();
    expect(h.fake.requests.length).toBe(before);
  });

  it("gives each Streamable HTTP client its own session, and still serves a sessionless POST", async () => {
    const transport = (clients.http as SdkClient).transport as StreamableHTTPClientTransport;
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const oneShot = await fetch(new URL("/mcp", h.http.url), {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} }),
    });
    expect(oneShot.status).toBe(200);
    expect(oneShot.headers.get("mcp-session-id")).toBeNull();
    expect(await oneShot.text()).toContain('"name":"pubmed_spell"');
    const tools = await clients.http!.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("pubmed_spell");
  });
});
