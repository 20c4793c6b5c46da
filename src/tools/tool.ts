/**
 * A tool is a plain object (name, description, annotations, zod parameters, execute). This module
 * adapts one to fastmcp: arguments are validated here, not by the framework, so invalid calls come
 * back as a VALIDATION tool result the model can read and correct (fastmcp would raise JSON-RPC
 * -32602), and every failure goes through the one envelope mapping in errors.ts.
 */
import type { ContentResult, Context, FastMCPSessionAuth, Tool as FastMcpTool } from "fastmcp";
import { z } from "zod";
import { ValidationError, toEnvelope } from "../errors.js";
import { getConfig } from "../state.js";

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

export interface ToolContext {
  /** Aborts on client cancel or when the call's deadline (NCBI_DEADLINE_MS) passes. */
  signal: AbortSignal;
  reportProgress: (progress: number, total?: number, message?: string) => Promise<void>;
}

/** Content blocks for tools whose output is not one JSON object (pubmed_trend's chart). */
export interface RawContent {
  content: ContentResult["content"];
}

export interface ToolDef<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  annotations: ToolAnnotations;
  parameters: S;
  /** Long-running tools (sync) manage their own per-request deadlines instead of NCBI_DEADLINE_MS. */
  noDeadline?: boolean;
  execute: (args: z.output<S>, ctx: ToolContext) => Promise<object>;
}

export const defineTool = <S extends z.ZodObject>(tool: ToolDef<S>): ToolDef<S> => tool;

/** Empty strings in optional arguments count as absent (CONTRACTS §4); nested objects too. */
export function dropEmptyStrings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropEmptyStrings);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== "")
        .map(([k, v]) => [k, dropEmptyStrings(v)]),
    );
  }
  return value;
}

/** "pmids[2]: must be digits" style, one line per problem. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => {
      const path = i.path.reduce<string>(
        (acc, p) =>
          typeof p === "number" ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p),
        "",
      );
      return path ? `${path} ${i.message}` : i.message;
    })
    .join("; ");
}

export function validateArgs<S extends z.ZodObject>(tool: ToolDef<S>, raw: unknown): z.output<S> {
  const parsed = tool.parameters.safeParse(dropEmptyStrings(raw ?? {}));
  if (!parsed.success) {
    throw new ValidationError(
      `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error.issues)}. See the tool's input schema.`,
      {
        issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
      },
    );
  }
  return parsed.data;
}

export function errorResult(err: unknown): ContentResult {
  const envelope = toEnvelope(err);
  return {
    content: [{ type: "text", text: JSON.stringify(envelope) }],
    isError: true,
    structuredContent: envelope as unknown as Record<string, unknown>,
  };
}

export function jsonResult(value: object): ContentResult {
  if ("content" in value && Array.isArray((value as RawContent).content)) {
    return value as ContentResult;
  }
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** The JSON Schema advertised in tools/list comes from the zod schema; validation happens in execute. */
function passThroughSchema(schema: z.ZodObject) {
  const json = z.toJSONSchema(schema, { target: "draft-07", io: "input" });
  return {
    "~standard": {
      version: 1 as const,
      vendor: "pubmed-mcp",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

export function toFastMcpTool(tool: ToolDef): FastMcpTool<FastMCPSessionAuth> {
  return {
    name: tool.name,
    description: tool.description,
    annotations: tool.annotations,
    parameters: passThroughSchema(
      tool.parameters,
    ) as unknown as FastMcpTool<FastMCPSessionAuth>["parameters"],
    execute: async (raw: unknown, context: Context<FastMCPSessionAuth>) => {
      const limits = [
        ...(context.signal ? [context.signal] : []),
        ...(tool.noDeadline ? [] : [AbortSignal.timeout(getConfig().ncbi.deadlineMs)]),
      ];
      const signal = AbortSignal.any(limits);
      try {
        const args = validateArgs(tool, raw);
        const result = await tool.execute(args, {
          signal,
          reportProgress: (progress, total, message) =>
            context.reportProgress({ progress, total, ...(message ? { message } : {}) }),
        });
        return jsonResult(result);
      } catch (err) {
        return errorResult(err);
      }
    },
  };
}
