/**
 * createServer(): the tool, resource and prompt registries bound into a factory of MCP sessions
 * (fastmcp's FastMCPSession). stdio serves one session; HTTP one per Streamable HTTP session
 * (Mcp-Session-Id, src/http/sessions.ts), per sessionless request, or per legacy SSE stream. No I/O
 * at import or construction; start-up (config, state) happens in main.ts.
 */
import { ErrorCode, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { FastMCPSession, type Prompt, type Resource, type ResourceTemplate } from "fastmcp";
import { NotFoundError, toEnvelope } from "./errors.js";
import { frameworkLogger, withLogOrigin } from "./log.js";
import { PROMPTS } from "./prompts/index.js";
import type { PromptContext, PromptDef } from "./prompts/prompt.js";
import { ProtocolError } from "./protocol/errors.js";
import { installProtocol } from "./protocol/index.js";
import { RESOURCES, RESOURCE_TEMPLATES } from "./resources/index.js";
import { matchTemplate, type ResourceContext } from "./resources/resource.js";
import { getConfig } from "./state.js";
import { TOOLS } from "./tools/index.js";
import { toFastMcpTool, type ToolDef } from "./tools/tool.js";
import { VERSION } from "./version.js";

export const SERVER_NAME = "pubmed-mcp";

export const INSTRUCTIONS = `PubMed for agents: live NCBI E-utilities tools and a local evidence corpus.
Typical flows:
- Live literature: pubmed_search (PubMed query syntax, e.g. "asthma[mh] AND 2020:2025[dp]") finds PMIDs → pubmed_fetch reads abstracts, MeSH and details (up to 200 PMIDs per call) → pubmed_cite formats references (RIS, BibTeX, APA, MLA, Vancouver, CSL-JSON).
- Widen: pubmed_related follows similar, citing and cited articles; pubmed_spell fixes a query that finds nothing; pubmed_match_citations resolves reference lists to PMIDs; pubmed_trend charts publications per year.
- Evidence corpus (when offered): pubmed_sync_delta pulls a query's papers into the local store (call again for updates) → rag_search answers offline with hybrid retrieval boosted by evidence quality → rag_get returns one synced paper.
Prompts pico_search and systematic_review_plan build ready PubMed queries. Read resource://pubmed/help for details and limits, resource://pubmed/info for rate limits and cache state.
All live tools share NCBI's rate limit (3/s, 10/s with an API key): prefer fewer, larger calls.`;

/** MCP's "resource not found" (spec: resources, error handling). */
export const RESOURCE_NOT_FOUND = -32002;

/** Tools this server offers: writing tools disappear in read-only mode (from each tool's own readOnlyHint). */
export function activeTools(
  readOnly: boolean,
  tools: readonly ToolDef[] = TOOLS,
): readonly ToolDef[] {
  return readOnly ? tools.filter((t) => t.annotations.readOnlyHint) : tools;
}

export interface ServerOptions {
  /** The tool registry to serve (read-only filtering still applies); tests add synthetic tools. */
  tools?: readonly ToolDef[];
}

export type SessionFactory = (transportType?: "stdio" | "httpStream") => FastMCPSession;

function notFound(uri: string): ProtocolError {
  const known = [...RESOURCES.map((r) => r.uri), ...RESOURCE_TEMPLATES.map((t) => t.uriTemplate)];
  return new ProtocolError(
    RESOURCE_NOT_FOUND,
    `Resource ${uri} not found. Papers appear as resource://pubmed/paper/{pmid} once synced into ` +
      `the corpus with pubmed_sync_delta; any PubMed record can be read live with pubmed_fetch. ` +
      `Available resources: ${known.join(", ")}.`,
    { uri },
  );
}

/** resources/read for every transport: our registry, and -32002 for anything it does not hold. */
async function readResource(uri: string, ctx: ResourceContext): Promise<ReadResourceResult> {
  const text = (mimeType: string, body: string) => ({ contents: [{ uri, mimeType, text: body }] });
  try {
    const resource = RESOURCES.find((r) => r.uri === uri);
    if (resource) return text(resource.mimeType, await resource.read(ctx));
    for (const template of RESOURCE_TEMPLATES) {
      const args = matchTemplate(template.uriTemplate, uri);
      if (args) return text(template.mimeType, await template.read(args, ctx));
    }
  } catch (err) {
    if (err instanceof NotFoundError)
      throw new ProtocolError(RESOURCE_NOT_FOUND, err.message, { uri });
    const { error } = toEnvelope(err);
    throw new ProtocolError(ErrorCode.InternalError, `Reading ${uri} failed: ${error.message}`, {
      uri,
      code: error.code,
    });
  }
  throw notFound(uri);
}

type Auth = Record<string, unknown> | undefined;

function toFastMcpPrompt(prompt: PromptDef, ctx: PromptContext): Prompt<Auth> {
  return {
    name: prompt.name,
    description: prompt.description,
    arguments: prompt.arguments,
    load: async (args) => ({
      messages: [{ role: "user", content: { type: "text", text: prompt.build(args, ctx) } }],
    }),
  };
}

export function createServer(opts: ServerOptions = {}): SessionFactory {
  const tools = activeTools(getConfig().readOnly, opts.tools);
  const promptCtx: PromptContext = { tools: new Set(tools.map((t) => t.name)) };
  const ctx: ResourceContext = {
    serverName: SERVER_NAME,
    tools,
    resources: [
      ...RESOURCES.map((r) => ({ name: r.uri, description: r.description })),
      ...RESOURCE_TEMPLATES.map((t) => ({ name: t.uriTemplate, description: t.description })),
    ],
    prompts: PROMPTS.map((p) => ({ name: p.name, description: p.description })),
  };
  // Listed by fastmcp; reads never reach these `load`s because readResource replaces the handler
  // (prompts/get and completion/complete are ours too: src/protocol).
  const resources: Resource<Auth>[] = RESOURCES.map((r) => ({
    uri: r.uri,
    name: r.name,
    description: r.description,
    mimeType: r.mimeType,
    load: async () => ({ text: await r.read(ctx) }),
  }));
  const templates = RESOURCE_TEMPLATES.map((t) => ({
    uriTemplate: t.uriTemplate,
    name: t.name,
    description: t.description,
    mimeType: t.mimeType,
    arguments: t.arguments,
    load: async (args: Record<string, string>) => ({ text: await t.read(args, ctx) }),
  })) as ResourceTemplate<Auth>[];
  const shared = {
    name: SERVER_NAME,
    version: VERSION,
    instructions: INSTRUCTIONS,
    logger: frameworkLogger,
    tools: tools.map(toFastMcpTool),
    resources,
    resourcesTemplates: templates,
    prompts: PROMPTS.map((p) => toFastMcpPrompt(p, promptCtx)),
    // `stateless` only skips fastmcp's wait for the client's capabilities in connect() (up to
    // 10 × 100 ms, which delayed every HTTP initialize by a second). Those capabilities feed
    // roots and server pings, neither of which this server uses.
    stateless: true,
    roots: { enabled: false },
    ping: { enabled: false },
  };
  return (transportType = "stdio") => {
    const session = new FastMCPSession<Auth>({ ...shared, transportType });
    session.server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
      withLogOrigin({ session, requestId: extra.requestId }, () =>
        readResource(request.params.uri, ctx),
      ),
    );
    installProtocol(session, {
      tools,
      prompts: PROMPTS,
      promptContext: promptCtx,
      templates: RESOURCE_TEMPLATES,
    });
    return session;
  };
}

/** One MCP session on any transport (stdio, in-memory clients in tests). */
export function createSession(opts: ServerOptions = {}): FastMCPSession {
  return createServer(opts)("stdio");
}
