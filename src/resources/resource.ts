/**
 * A resource is a plain object (uri, name, description, mimeType, read), like a tool. The server
 * answers resources/read from these definitions itself (src/server.ts) so that every transport
 * reports an unknown URI the same way: MCP error -32002 with a message saying how to get it.
 */
import type { ToolDef } from "../tools/tool.js";
import type { Toolset } from "../toolsets.js";

/** One line of the manual: a resource URI (or template) or a prompt name, and what it is for. */
export interface Entry {
  name: string;
  description: string;
}

/** What the serving session offers, so help and info describe exactly this session. */
export interface ResourceContext {
  serverName: string;
  tools: readonly ToolDef[];
  /** MCP_TOOLSETS: the toolsets switched on (every toolset by default). */
  toolsets: readonly Toolset[];
  resources: readonly Entry[];
  prompts: readonly Entry[];
}

export interface ResourceDef {
  uri: string;
  name: string;
  description: string;
  mimeType: "application/json" | "text/markdown";
  /** Offered only with this toolset (MCP_TOOLSETS); absent: always offered. */
  toolset?: Toolset;
  read: (ctx: ResourceContext) => Promise<string>;
}

/** A family of resources under one RFC 6570 level-1 template, e.g. resource://pubmed/paper/{pmid}. */
export interface ResourceTemplateDef {
  uriTemplate: string;
  name: string;
  description: string;
  /** The usual type; a `read` returning { text, mimeType } overrides it per resource. */
  mimeType: "application/json" | "text/markdown" | "text/plain";
  arguments: { name: string; description: string }[];
  /** Query parameters the template takes after its path (`?which=all`), passed to `read`. */
  query?: readonly string[];
  /** Offered only with this toolset (MCP_TOOLSETS); absent: always offered. */
  toolset?: Toolset;
  /** Throws NotFoundError when the URI is well formed but names nothing we have. */
  read: (
    args: Record<string, string>,
    ctx: ResourceContext,
  ) => Promise<string | { text: string; mimeType: string }>;
  /** Values of `argument` that start with the typed `value`, at most `limit` (completion/complete). */
  complete?: (argument: string, value: string, limit: number) => Promise<string[]>;
}

export const defineResource = (r: ResourceDef): ResourceDef => r;
export const defineResourceTemplate = (t: ResourceTemplateDef): ResourceTemplateDef => t;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Matches a URI against a `{name}` template; each variable takes one non-empty path segment.
 * Returns the decoded variables, or undefined when the URI is not of this template's shape.
 */
export function matchTemplate(
  template: string,
  uri: string,
  query: readonly string[] = [],
): Record<string, string> | undefined {
  const at = query.length > 0 ? uri.indexOf("?") : -1;
  const path = at >= 0 ? uri.slice(0, at) : uri;
  const names: string[] = [];
  const pattern = template
    .split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/)
    .map((part) => {
      const m = /^\{(.+)\}$/.exec(part);
      if (!m?.[1]) return escapeRegExp(part);
      names.push(m[1]);
      return "([^/?#]+)";
    })
    .join("");
  const match = new RegExp(`^${pattern}$`).exec(path);
  if (!match) return undefined;
  try {
    const args = Object.fromEntries(
      names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? "")]),
    );
    if (at < 0) return args;
    // Only the declared query parameters: anything else names no resource.
    const params = new URLSearchParams(uri.slice(at + 1));
    for (const [key, value] of params) {
      if (!query.includes(key) || key in args) return undefined;
      args[key] = value;
    }
    return args;
  } catch {
    return undefined; // malformed %-escapes name nothing
  }
}
