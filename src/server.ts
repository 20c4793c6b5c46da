/**
 * createServer(): the tool, resource and prompt registries bound into a factory of MCP sessions
 * (fastmcp's FastMCPSession). stdio serves one session; HTTP one per Streamable HTTP session
 * (Mcp-Session-Id, src/http/sessions.ts), per sessionless request, or per legacy SSE stream. No I/O
 * at import or construction; start-up (config, state) happens in main.ts.
 */
import { ErrorCode, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { FastMCPSession, type Prompt, type Resource, type ResourceTemplate } from "fastmcp";
import type { Config } from "./config.js";
import { NotFoundError, toEnvelope } from "./errors.js";
import { frameworkLogger, withLogOrigin } from "./log.js";
import { PROMPTS } from "./prompts/index.js";
import type { PromptContext, PromptDef } from "./prompts/prompt.js";
import { ProtocolError } from "./protocol/errors.js";
import { installProtocol } from "./protocol/index.js";
import { RESOURCES, RESOURCE_TEMPLATES } from "./resources/index.js";
import {
  matchTemplate,
  type ResourceContext,
  type ResourceDef,
  type ResourceTemplateDef,
} from "./resources/resource.js";
import { getConfig } from "./state.js";
import { TOOLS } from "./tools/index.js";
import { toFastMcpTool, type ToolDef } from "./tools/tool.js";
import type { Toolset } from "./toolsets.js";
import { VERSION } from "./version.js";

export const SERVER_NAME = "pubmed-mcp";

export const INSTRUCTIONS = `PubMed for agents: live NCBI E-utilities tools and a local evidence corpus.
Typical flows:
- Live literature: pubmed_search (PubMed query syntax, e.g. "asthma[mh] AND 2020:2025[dp]") finds PMIDs → pubmed_fetch reads abstracts, MeSH and details (up to 200 PMIDs per call) → pubmed_cite formats references (RIS, BibTeX, APA, MLA, Vancouver, CSL-JSON).
- Widen: pubmed_related follows similar, citing and cited articles; pubmed_spell fixes a query that finds nothing; pubmed_match_citations resolves reference lists to PMIDs; pubmed_trend charts publications per year.
- Evidence corpus (when offered): pubmed_sync_delta pulls a query's papers into the local store (call again for updates) → rag_search answers offline with hybrid retrieval boosted by evidence quality → rag_get returns one synced paper.
- Systematic review (when offered): review_create → review_add (every record of a search, deduplicated) → review_screen / review_decide until progress.stop_suggested → review_status (PRISMA 2020) → review_export.
Prompts pico_search and systematic_review_plan build ready PubMed queries. Read resource://pubmed/help for details and limits, resource://pubmed/info for rate limits and cache state.
All live tools share NCBI's rate limit (3/s, 10/s with an API key): prefer fewer, larger calls.`;

/** MCP's "resource not found" (spec: resources, error handling). */
export const RESOURCE_NOT_FOUND = -32002;

/** What decides which tools a session offers (MCP_READ_ONLY, MCP_TOOLSETS). */
export type Exposure = Pick<Config, "readOnly" | "toolsets">;

/**
 * Whether this server offers a tool: the one place that decides it, for tools/list and tools/call
 * alike (a tool not offered is an unknown tool, __tests__/protocol/toolsets.test.ts). Its toolset
 * must be switched on, and in read-only mode its own readOnlyHint must say it writes nothing —
 * both from the tool's own definition, never from a second list.
 */
export function offers(
  exposure: Exposure,
  tool: Pick<ToolDef, "toolset" | "annotations">,
): boolean {
  return (
    exposure.toolsets.includes(tool.toolset) &&
    (!exposure.readOnly || tool.annotations.readOnlyHint)
  );
}

/** The tools this server offers, in registry order. */
export function activeTools(
  exposure: Exposure,
  tools: readonly ToolDef[] = TOOLS,
): readonly ToolDef[] {
  return tools.filter((t) => offers(exposure, t));
}

/**
 * Resources follow toolsets too: the corpus ones (resource://pubmed/corpus, paper/{pmid}) go with
 * the corpus tools, so a server without them never opens the corpus store. Read-only mode keeps
 * them: reading the corpus writes nothing.
 */
const offersResource = (exposure: Exposure, r: { toolset?: Toolset }) =>
  r.toolset === undefined || exposure.toolsets.includes(r.toolset);

export interface ServerOptions {
  /** The tool registry to serve (`offers` still applies); tests add synthetic tools. */
  tools?: readonly ToolDef[];
}

export type SessionFactory = (transportType?: "stdio" | "httpStream") => FastMCPSession;

/** The resources and templates a session offers. */
interface Offered {
  resources: readonly ResourceDef[];
  templates: readonly ResourceTemplateDef[];
}

function notFound(uri: string, { resources, templates }: Offered): ProtocolError {
  const known = [...resources.map((r) => r.uri), ...templates.map((t) => t.uriTemplate)];
  return new ProtocolError(
    RESOURCE_NOT_FOUND,
    `Resource ${uri} not found. ` +
      (templates.length > 0
        ? "Papers appear as resource://pubmed/paper/{pmid} once synced into the corpus with " +
          "pubmed_sync_delta; any PubMed record can be read live with pubmed_fetch. "
        : "") +
      `Available resources: ${known.join(", ")}.`,
    { uri },
  );
}

/** resources/read for every transport: our registry, and -32002 for anything it does not hold. */
async function readResource(
  uri: string,
  ctx: ResourceContext,
  offered: Offered,
): Promise<ReadResourceResult> {
  const text = (mimeType: string, body: string) => ({ contents: [{ uri, mimeType, text: body }] });
  try {
    const resource = offered.resources.find((r) => r.uri === uri);
    if (resource) return text(resource.mimeType, await resource.read(ctx));
    for (const template of offered.templates) {
      const args = matchTemplate(template.uriTemplate, uri, template.query);
      if (!args) continue;
      const body = await template.read(args, ctx);
      return typeof body === "string"
        ? text(template.mimeType, body)
        : text(body.mimeType, body.text);
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
  throw notFound(uri, offered);
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
  const config = getConfig();
  const tools = activeTools(config, opts.tools);
  const offered: Offered = {
    resources: RESOURCES.filter((r) => offersResource(config, r)),
    templates: RESOURCE_TEMPLATES.filter((t) => offersResource(config, t)),
  };
  const promptCtx: PromptContext = { tools: new Set(tools.map((t) => t.name)) };
  const ctx: ResourceContext = {
    serverName: SERVER_NAME,
    tools,
    toolsets: config.toolsets,
    resources: [
      ...offered.resources.map((r) => ({ name: r.uri, description: r.description })),
      ...offered.templates.map((t) => ({ name: t.uriTemplate, description: t.description })),
    ],
    prompts: PROMPTS.map((p) => ({ name: p.name, description: p.description })),
  };
  // Listed by fastmcp; reads never reach these `load`s because readResource replaces the handler
  // (prompts/get and completion/complete are ours too: src/protocol).
  const resources: Resource<Auth>[] = offered.resources.map((r) => ({
    uri: r.uri,
    name: r.name,
    description: r.description,
    mimeType: r.mimeType,
    load: async () => ({ text: await r.read(ctx) }),
  }));
  const templates = offered.templates.map((t) => ({
    uriTemplate: t.uriTemplate,
    name: t.name,
    description: t.description,
    mimeType: t.mimeType,
    arguments: t.arguments,
    load: async (args: Record<string, string>) => {
      const body = await t.read(args, ctx);
      return { text: typeof body === "string" ? body : body.text };
    },
  })) as ResourceTemplate<Auth>[];
  const shared = {
    name: SERVER_NAME,
    version: VERSION,
    instructions: INSTRUCTIONS,
    logger: frameworkLogger,
    tools: tools.map(toFastMcpTool),
    // Declared even when MCP_TOOLSETS and MCP_READ_ONLY leave no tool (fastmcp would then omit the
    // capability and the SDK refuse our tools/call handler): tools/list is empty, a call unknown.
    hasTools: true,
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
        readResource(request.params.uri, ctx, offered),
      ),
    );
    installProtocol(session, {
      tools,
      prompts: PROMPTS,
      promptContext: promptCtx,
      templates: offered.templates,
      corpus: offersResource(config, { toolset: "corpus" }),
    });
    return session;
  };
}

/** One MCP session on any transport (stdio, in-memory clients in tests). */
export function createSession(opts: ServerOptions = {}): FastMCPSession {
  return createServer(opts)("stdio");
}
