/**
 * MCP_TOOLSETS: the config reads a comma list of toolsets (any case, spaces ignored, empty = all)
 * and refuses unknown names in its one list of problems; through a real MCP client, a server
 * lists exactly the tools of its toolsets (from each tool's own `toolset`), answers a call to any
 * other as an unknown tool, combines with MCP_READ_ONLY, and drops the corpus resources with the
 * corpus toolset. Prompts name only tools the server offers.
 */
import { afterEach, describe, expect, it } from "@jest/globals";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config.js";
import { createSession } from "../../src/server.js";
import { closeProcess, setStateForTests } from "../../src/worker/process.js";
import { TOOLS } from "../../src/tools/index.js";
import { TOOLSETS } from "../../src/toolsets.js";
import { startHarness, type Harness } from "../helpers/mcp.js";

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe("MCP_TOOLSETS in the config", () => {
  it("reads a comma list into the toolsets, in their documented order", () => {
    expect(loadConfig({ MCP_TOOLSETS: "trust,live" }).toolsets).toEqual(["live", "trust"]);
    expect(loadConfig({ MCP_TOOLSETS: "corpus" }).toolsets).toEqual(["corpus"]);
  });

  it("ignores case, spaces, empty items and repeats", () => {
    expect(loadConfig({ MCP_TOOLSETS: " Trust , LIVE,,live ,\treading " }).toolsets).toEqual([
      "live",
      "reading",
      "trust",
    ]);
  });

  it("is every toolset when unset, empty or naming none", () => {
    const all = ["live", "reading", "corpus", "review", "trust"];
    expect(TOOLSETS).toEqual(all);
    for (const env of [{}, { MCP_TOOLSETS: "" }, { MCP_TOOLSETS: " , " }])
      expect(loadConfig(env).toolsets).toEqual(all);
  });

  it("refuses unknown names, naming them and the allowed values, with every other problem", () => {
    expect(problemsOf({ MCP_TOOLSETS: "live,corpse,Review,Foo" })).toEqual([
      'MCP_TOOLSETS has unknown toolset "corpse", "foo": ' +
        "use a comma list of live, reading, corpus, review, trust",
    ]);
    expect(problemsOf({ MCP_TOOLSETS: "all", MCP_READ_ONLY: "maybe" })).toEqual([
      "MCP_READ_ONLY must be true or false",
      'MCP_TOOLSETS has unknown toolset "all": use a comma list of live, reading, corpus, review, trust',
    ]);
  });
});

/** A tools/call's JSON-RPC refusal, as the client raises it. */
async function refusal(client: Client, name: string): Promise<string> {
  try {
    await client.callTool({ name, arguments: { query: "aspirin" } });
  } catch (err) {
    return String(err);
  }
  throw new Error(`${name} was called`);
}

const namesOf = (toolsets: readonly string[], readOnly = false) =>
  TOOLS.filter((t) => toolsets.includes(t.toolset) && (!readOnly || t.annotations.readOnlyHint))
    .map((t) => t.name)
    .sort();

describe("a server with some toolsets", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("lists exactly the tools of live and trust, and refuses rag_search as an unknown tool", async () => {
    h = await startHarness({ env: { MCP_TOOLSETS: "live,trust" } });
    const listed = (await h.client.listTools()).tools.map((t) => t.name).sort();
    expect(listed).toEqual(namesOf(["live", "trust"]));
    expect(listed).toEqual([
      "pubmed_cite",
      "pubmed_fetch",
      "pubmed_match_citations",
      "pubmed_related",
      "pubmed_search",
      "pubmed_spell",
      "pubmed_trend",
      "pubmed_verify_references",
    ]);
    const offered = TOOLS.filter((t) => listed.includes(t.name)).map((t) => t.name);
    const unknown = (name: string) =>
      `McpError: MCP error -32602: Unknown tool ${name}. Available tools: ${offered.join(", ")}.`;
    expect(await refusal(h.client, "rag_search")).toBe(unknown("rag_search"));
    expect(await refusal(h.client, "no_such_tool")).toBe(unknown("no_such_tool"));
    expect(h.fake.requests).toEqual([]);
  });

  it("applies MCP_READ_ONLY as well: the corpus toolset without its writing tools", async () => {
    h = await startHarness({ env: { MCP_TOOLSETS: "corpus", MCP_READ_ONLY: "true" } });
    const listed = (await h.client.listTools()).tools.map((t) => t.name).sort();
    expect(listed).toEqual(namesOf(["corpus"], true));
    expect(listed).toEqual(["corpus_checkpoint_get", "rag_get", "rag_search"]);
    expect(await refusal(h.client, "pubmed_sync_delta")).toContain(
      "Unknown tool pubmed_sync_delta.",
    );
    expect(await refusal(h.client, "pubmed_search")).toContain("Unknown tool pubmed_search.");
  });

  it("drops the corpus resources without the corpus toolset, and says so in help", async () => {
    h = await startHarness({ env: { MCP_TOOLSETS: "live,trust" } });
    const uris = (await h.client.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual([
      "resource://pubmed/help",
      "resource://pubmed/info",
      "resource://pubmed/stats",
    ]);
    expect((await h.client.listResourceTemplates()).resourceTemplates).toEqual([]);
    await expect(h.client.readResource({ uri: "resource://pubmed/corpus" })).rejects.toThrow(
      /-32002.*not found/,
    );
    const help = await h.client.readResource({ uri: "resource://pubmed/help" });
    const text = help.contents[0] && "text" in help.contents[0] ? help.contents[0].text : "";
    expect(text).toContain(
      "This server offers the toolsets live, trust; its operator left reading, corpus, review off",
    );
    expect(text).not.toContain("`rag_search` —");
    const info = await h.client.readResource({ uri: "resource://pubmed/info" });
    const json = info.contents[0] && "text" in info.contents[0] ? info.contents[0].text : "{}";
    expect(JSON.parse(String(json))).toMatchObject({ toolsets: ["live", "trust"] });
  });

  it("keeps the prompts, naming only offered tools", async () => {
    for (const toolsets of ["live", "corpus", "live,corpus"]) {
      h = await startHarness({ env: { MCP_TOOLSETS: toolsets } });
      const offered = new Set((await h.client.listTools()).tools.map((t) => t.name));
      const res = await h.client.getPrompt({
        name: "systematic_review_plan",
        arguments: { question: "aspirin and stroke" },
      });
      const message = res.messages[0]?.content;
      const text = message?.type === "text" ? message.text : "";
      const named = [
        ...text.matchAll(
          /\b((?:pubmed|rag|corpus)_[a-z_]+|review_(?:create|add|screen|decide|status|export))\b/g,
        ),
      ].map((m) => m[1]!);
      if (toolsets === "live,corpus") {
        // No review tools: the plan syncs into the corpus and screens with rag_search.
        expect(named.filter((n) => !offered.has(n))).toEqual([]);
        expect(text).toContain("pubmed_sync_delta");
        expect(named.some((n) => n.startsWith("review_"))).toBe(false);
      } else if (toolsets === "live") {
        expect(named.filter((n) => !offered.has(n))).toEqual([]);
        expect(text).toContain("MCP_TOOLSETS leaves out corpus");
      } else {
        expect(text).toContain("does not offer the live PubMed tools these steps name");
      }
      await h.close();
      h = undefined;
    }
  });
});

describe("a selection that leaves no tool", () => {
  it("serves an empty tools/list rather than failing to start", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-toolsets-"));
    await setStateForTests(
      loadConfig({ PUBMED_MCP_DATA_DIR: dataDir, LOG_LEVEL: "error", MCP_TOOLSETS: "trust" }),
    );
    const session = createSession({ tools: TOOLS.filter((t) => t.toolset === "live") });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.connect(serverSide);
    const client = new Client({ name: "toolsets", version: "1" });
    await client.connect(clientSide);
    try {
      expect((await client.listTools()).tools).toEqual([]);
      expect(await refusal(client, "pubmed_search")).toBe(
        "McpError: MCP error -32602: Unknown tool pubmed_search. Available tools: none.",
      );
    } finally {
      await client.close();
      await session.close();
      await closeProcess();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
