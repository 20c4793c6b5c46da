/**
 * createServer(): the FastMCP server with the tool, resource and prompt registries. No I/O at
 * import or construction; start-up (config, state) happens in main.ts.
 */
import { FastMCP, FastMCPSession } from "fastmcp";
import { frameworkLogger } from "./log.js";
import { getConfig } from "./state.js";
import { TOOLS } from "./tools/index.js";
import { toFastMcpTool, type ToolDef } from "./tools/tool.js";
import { VERSION } from "./version.js";

export const SERVER_NAME = "pubmed-mcp";

export const INSTRUCTIONS = `PubMed for agents.
Live PubMed: pubmed_search finds PMIDs (PubMed query syntax) → pubmed_fetch reads abstracts and details → pubmed_cite formats references. pubmed_related follows similar/citing/cited articles, pubmed_spell fixes queries, pubmed_match_citations resolves reference lists to PMIDs, pubmed_trend charts publications per year.
All live tools respect NCBI's rate limits; prefer fewer, larger calls (up to 200 PMIDs per fetch).`;

/** Tools this server offers: writing tools disappear in read-only mode (from each tool's own readOnlyHint). */
export function activeTools(readOnly: boolean): readonly ToolDef[] {
  return readOnly ? TOOLS.filter((t) => t.annotations.readOnlyHint) : TOOLS;
}

function options() {
  const tools = activeTools(getConfig().readOnly).map(toFastMcpTool);
  return {
    name: SERVER_NAME,
    version: VERSION as `${number}.${number}.${number}`,
    instructions: INSTRUCTIONS,
    logger: frameworkLogger,
    tools,
  };
}

export function createServer(): FastMCP {
  const { tools, ...rest } = options();
  const server = new FastMCP(rest);
  server.addTools(tools);
  return server;
}

/** One MCP session on any transport (used for in-memory clients and tests). */
export function createSession(): FastMCPSession {
  const { tools, ...rest } = options();
  return new FastMCPSession({
    ...rest,
    prompts: [],
    resources: [],
    resourcesTemplates: [],
    tools,
    transportType: "stdio",
  });
}
