/**
 * tools/call and prompts/get as the contract wants them: an unknown name is -32602 naming what
 * exists, `arguments` that are not a JSON object get the tool's VALIDATION result (docs/reference.md#tool-errors),
 * and a prompt's bad arguments are -32602 with the prompt's own message. Tool calls run through
 * runTool directly: fastmcp's own dispatcher waited a timer tick (1 ms or more) after every call.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  type GetPromptResult,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { ContentResult } from "fastmcp";
import { z } from "zod";
import { excerpt, listSome } from "../excerpt.js";
import { toEnvelope, type ErrorEnvelope } from "../errors.js";
import { log, withLogOrigin } from "../log.js";
import type { PromptContext, PromptDef } from "../prompts/prompt.js";
import { errorResult, runTool, type ToolDef } from "../tools/tool.js";
import { resolveName, twinMessage, validateArgs } from "../tools/validate.js";
import { ProtocolError, invalidParams, isPlainObject } from "./errors.js";
import { interceptRequest } from "./intercept.js";
import type { RequestOrigin } from "./logging.js";

/** A session may offer no tool at all (MCP_TOOLSETS, MCP_READ_ONLY). */
const names = (items: readonly { name: string }[]) => items.map((i) => i.name).join(", ") || "none";

/** A VALIDATION refusal changed nothing; anything else a writing tool answered may have. */
function refusedAsInvalid(result: unknown): boolean {
  if (!isPlainObject(result) || result.isError !== true || !Array.isArray(result.content)) {
    return false;
  }
  const first: unknown = result.content[0];
  if (!isPlainObject(first) || typeof first.text !== "string") return false;
  try {
    return (JSON.parse(first.text) as ErrorEnvelope).error.code === "VALIDATION";
  } catch {
    return false;
  }
}

/**
 * Answers tools/call with runTool. The request's signal aborts on notifications/cancelled and when
 * the session's transport closes (the SDK aborts every running handler), so a call whose client
 * left stops its work. Progress goes to the request's own stream, ahead of the result
 * (__tests__/http/progress.test.ts).
 */
export function handleToolCalls(server: Server, tools: readonly ToolDef[]): void {
  const byName = new Map(tools.map((t) => [t.name, t]));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => {
    const tool = byName.get(params.name);
    if (!tool)
      throw invalidParams(
        `Unknown tool ${excerpt(String(params.name))}. Available tools: ${names(tools)}.`,
      );
    const progressToken = params._meta?.progressToken;
    return runTool(tool, params.arguments ?? {}, {
      signal: extra.signal,
      reportProgress: async (progress, total, message) => {
        if (progressToken === undefined) return;
        try {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress, total, ...(message ? { message } : {}) },
          });
        } catch (err) {
          log.warn(`progress of ${tool.name} not sent: ${(err as Error).message}`);
        }
      },
    });
  });
}

/**
 * The tool's VALIDATION result for a call whose arguments it refuses, found before the SDK parses
 * the request: its CallToolRequestSchema reads every key of `arguments` (twice, the Server
 * re-checks tools/call), tens of ms of the loop for 20,000 unknown keys, all for a refusal. It also
 * answers what the SDK would get wrong: `arguments` that are not an object would fail its request
 * schema (-32603 with a zod issue list), and a "__proto__" key, which JSON.parse makes an own key,
 * its parse drops without a word; both are refused as any other bad argument is. A request whose
 * other params the SDK refuses (a malformed `_meta`) still gets the SDK's answer, as before.
 */
function refuseArguments(
  tool: ToolDef,
  request: JSONRPCRequest,
  params: Record<string, unknown>,
): ContentResult | undefined {
  const args = params.arguments;
  try {
    validateArgs(tool, args);
    return undefined;
  } catch (err) {
    const sdkReads =
      args === undefined || (isPlainObject(args) && !Object.hasOwn(args, "__proto__"));
    const rest = { ...request, params: { ...params, arguments: undefined } };
    if (sdkReads && !CallToolRequestSchema.safeParse(rest).success) return undefined;
    return errorResult(err);
  }
}

export function guardToolCalls(
  server: Server,
  tools: readonly ToolDef[],
  session: object,
  onWrite: () => void,
): void {
  const byName = new Map(tools.map((t) => [t.name, t]));
  interceptRequest(server, "tools/call", (next) => async (request, extra) => {
    const params: unknown = request.params;
    const name = isPlainObject(params) ? params.name : undefined;
    const tool = typeof name === "string" ? byName.get(name) : undefined;
    if (!tool || !isPlainObject(params)) {
      throw invalidParams(
        typeof name === "string"
          ? `Unknown tool ${excerpt(name)}. Available tools: ${names(tools)}.`
          : `tools/call needs params.name, the name of a tool. Available tools: ${names(tools)}.`,
      );
    }
    const origin: RequestOrigin = { session, requestId: request.id };
    const refusal = withLogOrigin(origin, () => refuseArguments(tool, request, params));
    if (refusal) return refusal;
    const result = await withLogOrigin(origin, () => next(request, extra));
    if (!tool.annotations.readOnlyHint && !refusedAsInvalid(result)) onWrite();
    return result;
  });
}

const GetPromptRequest = z.object({
  method: z.literal("prompts/get"),
  params: z.looseObject({ name: z.unknown(), arguments: z.unknown() }),
});

export function handlePrompts(
  server: Server,
  prompts: readonly PromptDef[],
  ctx: PromptContext,
): void {
  server.setRequestHandler(GetPromptRequest, ({ params }): GetPromptResult => {
    const prompt = prompts.find((p) => p.name === params.name);
    if (!prompt) {
      throw invalidParams(
        `Unknown prompt ${excerpt(String(params.name))}. Available prompts: ${names(prompts)}.`,
      );
    }
    const raw = params.arguments ?? {};
    if (!isPlainObject(raw) || Object.values(raw).some((v) => typeof v !== "string")) {
      throw invalidParams(
        `Arguments of prompt ${prompt.name} must be an object of strings, e.g. ` +
          `{"${prompt.arguments[0]?.name ?? "name"}": "…"}.`,
      );
    }
    const args = promptArgs(prompt, raw as Record<string, string>);
    // Blank values reach build(), which says what a usable value looks like.
    const missing = prompt.arguments.filter((a) => a.required && args[a.name] === undefined);
    if (missing.length > 0) {
      throw invalidParams(
        `Prompt ${prompt.name} needs ${missing.map((a) => `${a.name} (${a.description})`).join("; ")}.`,
      );
    }
    try {
      const text = prompt.build(args, ctx);
      return {
        description: prompt.description,
        messages: [{ role: "user", content: { type: "text", text } }],
      };
    } catch (err) {
      const { error } = toEnvelope(err);
      if (error.code === "VALIDATION")
        throw invalidParams(`Prompt ${prompt.name}: ${error.message}`);
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Prompt ${prompt.name} failed: ${error.message}`,
      );
    }
  });
}

/**
 * The arguments under the prompt's own names, matched as tools match theirs
 * (../tools/validate.ts): a name in another case or separator style is that argument; a name the
 * prompt does not have is refused with the ones it has.
 */
function promptArgs(prompt: PromptDef, raw: Record<string, string>): Record<string, string> {
  const names = prompt.arguments.map((a) => a.name);
  const out: Record<string, string> = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const { name, twin } = resolveName(names, key, raw);
    if (name !== undefined) out[name] = value;
    else
      problems.push(
        twin ? `${excerpt(key)} ${twinMessage(twin)}` : `has no argument ${excerpt(key)}`,
      );
  }
  if (problems.length > 0) {
    throw invalidParams(
      `Prompt ${prompt.name} ${listSome(problems)}; its arguments: ${names.join(", ")}.`,
    );
  }
  return out;
}
