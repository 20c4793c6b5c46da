/**
 * A resource is a plain object (uri, name, description, mimeType, read), like a tool. The server
 * answers resources/read from these definitions itself (src/server.ts) so that every transport
 * reports an unknown URI the same way: MCP error -32002 with a message saying how to get it.
 */
import type { ToolDef } from "../tools/tool.js";

/** One line of the manual: a resource URI (or template) or a prompt name, and what it is for. */
export interface Entry {
  name: string;
  description: string;
}

/** What the serving session offers, so help and info describe exactly this session. */
export interface ResourceContext {
  serverName: string;
  tools: readonly ToolDef[];
  resources: readonly Entry[];
  prompts: readonly Entry[];
}

export interface ResourceDef {
  uri: string;
  name: string;
  description: string;
  mimeType: "application/json" | "text/markdown";
  read: (ctx: ResourceContext) => Promise<string>;
}

/** A family of resources under one RFC 6570 level-1 template, e.g. resource://pubmed/paper/{pmid}. */
export interface ResourceTemplateDef {
  uriTemplate: string;
  name: string;
  description: string;
  mimeType: "application/json" | "text/markdown";
  arguments: { name: string; description: string }[];
  /** Throws NotFoundError when the URI is well formed but names nothing we have. */
  read: (args: Record<string, string>, ctx: ResourceContext) => Promise<string>;
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
export function matchTemplate(template: string, uri: string): Record<string, string> | undefined {
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
  const match = new RegExp(`^${pattern}$`).exec(uri);
  if (!match) return undefined;
  try {
    return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? "")]));
  } catch {
    return undefined; // malformed %-escapes name nothing
  }
}
