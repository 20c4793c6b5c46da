/**
 * The MCP protocol surface a FastMCPSession does not give the way this server wants it: unknown
 * names as -32602, non-object tool arguments as VALIDATION results, tools/call without fastmcp's
 * pause after every call, prompts/get, completions, logging per session, resource subscriptions.
 * Installed on every session the factory makes.
 */
import type { FastMCPSession } from "fastmcp";
import type { PromptContext, PromptDef } from "../prompts/prompt.js";
import type { ResourceTemplateDef } from "../resources/resource.js";
import type { ToolDef } from "../tools/tool.js";
import { guardToolCalls, handlePrompts, handleToolCalls } from "./calls.js";
import { installCompletion } from "./completion.js";
import { installLogging } from "./logging.js";
import { corpusChanged, installSubscriptions } from "./subscriptions.js";

export interface ProtocolOptions {
  tools: readonly ToolDef[];
  prompts: readonly PromptDef[];
  promptContext: PromptContext;
  templates: readonly ResourceTemplateDef[];
  /** Whether the session offers the corpus resources (the corpus toolset, MCP_TOOLSETS). */
  corpus: boolean;
}

export function installProtocol(session: FastMCPSession, opts: ProtocolOptions): void {
  const server = session.server;
  handleToolCalls(server, opts.tools);
  guardToolCalls(server, opts.tools, session, corpusChanged);
  handlePrompts(server, opts.prompts, opts.promptContext);
  installCompletion(server, opts.prompts, opts.templates);
  const stopLogging = installLogging(server, session);
  const stopSubscriptions = installSubscriptions(server, opts.corpus);
  // fastmcp's own onclose aborts the session's running tool calls; keep it.
  const previous = server.onclose;
  server.onclose = () => {
    previous?.();
    stopLogging();
    stopSubscriptions();
  };
}
