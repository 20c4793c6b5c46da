/**
 * A tool is a plain object (name, description, annotations, zod parameters and output, execute).
 * runTool answers a call: arguments are validated here, not by the framework, so invalid calls come
 * back as a VALIDATION tool result the model can read and correct (fastmcp would raise JSON-RPC
 * -32602), and every failure goes through the one envelope mapping in errors.ts.
 */
import type { ContentResult, Context, FastMCPSessionAuth, Tool as FastMcpTool } from "fastmcp";
import { z } from "zod";
import { abortedCall, AppError, StoreError, toEnvelope } from "../errors.js";
import { setDeadline } from "../net/limiter.js";
import { getConfig } from "../state.js";
import type { Toolset } from "../toolsets.js";
import { fitAnswer, moreSchema, type Pages } from "./answer.js";
import { validateArgs } from "./validate.js";

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

export type Content = ContentResult["content"];

export interface ToolDef<S extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  annotations: ToolAnnotations;
  /** The family MCP_TOOLSETS switches this tool on with (src/toolsets.ts). */
  toolset: Toolset;
  parameters: S;
  /**
   * The result object's shape, advertised as `outputSchema`; the result is returned as JSON text
   * and as `structuredContent`. Every registered tool has one (the inventory test checks it).
   */
  output?: O;
  /** Long-running tools (sync) manage their own per-request deadlines instead of NCBI_DEADLINE_MS. */
  noDeadline?: boolean;
  /**
   * "corpus" for tools that only reach the local corpus: their deadline is CORPUS_DEADLINE_MS and
   * running out of it is a STORE error about the store, never NCBI's deadline.
   */
  budget?: "ncbi" | "corpus";
  execute: (args: z.output<S>, ctx: ToolContext) => Promise<z.output<O>>;
  /** Content blocks after the result's JSON text block (pubmed_trend's chart). */
  moreContent?: (result: z.output<O>, ctx: Pick<ToolContext, "signal">) => Promise<Content>;
  /**
   * The most bytes this tool's answer may hold, below MCP_MAX_ANSWER_BYTES (the lower one
   * applies). Absent: MCP_MAX_ANSWER_BYTES alone. See src/tools/answer.ts.
   */
  maxAnswerBytes?: number;
  /** How the result splits into records, for an answer over its ceiling to page (`more`). */
  pages?: Pages;
  /** What to ask for instead when an answer cannot fit, e.g. "ask for fewer pmids". */
  narrower?: string;
}

/** The tool as registered: a paged tool's output declares `more` (src/tools/answer.ts). */
export const defineTool = <S extends z.ZodObject, O extends z.ZodObject = z.ZodObject>(
  tool: ToolDef<S, O>,
): ToolDef<S, O> =>
  tool.pages && tool.output
    ? { ...tool, output: tool.output.extend({ more: moreSchema.optional() }) as unknown as O }
    : tool;

/** The ceiling on a tool's answer in bytes of JSON text: its own, or MCP_MAX_ANSWER_BYTES. */
export const answerCeiling = (tool: Pick<ToolDef, "maxAnswerBytes">): number =>
  Math.min(tool.maxAnswerBytes ?? Infinity, getConfig().maxAnswerBytes);

/**
 * The error envelope as text only. A tool with an outputSchema must not put the envelope in
 * `structuredContent`: the MCP SDK client (1.x `Client.callTool`) validates structuredContent
 * against the outputSchema even on `isError` results and would throw instead of returning the
 * error (typescript-sdk#1943). The envelope is sent as text (docs/reference.md#tool-errors).
 */
export function errorResult(err: unknown): ContentResult {
  return { content: [{ type: "text", text: JSON.stringify(toEnvelope(err)) }], isError: true };
}

export function jsonResult(
  value: object,
  more: Content = [],
  text = JSON.stringify(value),
): ContentResult {
  return {
    content: [{ type: "text", text }, ...more],
    structuredContent: value as Record<string, unknown>,
  };
}

/** Bytes of content blocks beside the JSON text (a chart's SVG text or image data). */
const contentBytes = (content: Content) =>
  content.reduce(
    (sum, block) =>
      sum +
      ("text" in block && typeof block.text === "string" ? Buffer.byteLength(block.text) : 0) +
      ("data" in block && typeof block.data === "string" ? block.data.length : 0),
    0,
  );

/**
 * The advertised JSON Schema, trimmed: zod's integer bounds at ±2^53−1 say nothing a client needs,
 * and output objects stay open (no `additionalProperties: false`), so a client holding an older
 * tools/list still accepts a reply with a field added since (a field added to a result is a
 * minor change: docs/reference.md#conventions). The output-schema test checks replies against a closed copy, so no field goes undeclared.
 */
function trim(schema: unknown, openObjects: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((s) => trim(s, openObjects));
  if (!schema || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(
        ([k, v]) =>
          !(k === "maximum" && v === Number.MAX_SAFE_INTEGER) &&
          !(k === "minimum" && v === Number.MIN_SAFE_INTEGER) &&
          !(openObjects && k === "additionalProperties" && v === false),
      )
      .map(([k, v]) => [k, trim(v, openObjects)]),
  );
}

/**
 * A Standard Schema whose JSON Schema fastmcp advertises and whose `validate` passes values
 * through: arguments are validated in execute (for the VALIDATION result), and outputs are
 * checked against their schemas by the tests, not on every call.
 */
function advertised(schema: z.ZodObject, io: "input" | "output") {
  // Converted on the first tools/list, not at start-up: about 35 ms of CPU for every tool
  // together, which a stdio server would otherwise spend before its first initialize reply.
  let json: unknown;
  const toJson = () =>
    (json ??= trim(z.toJSONSchema(schema, { target: "draft-07", io }), io === "output"));
  return {
    "~standard": {
      version: 1 as const,
      vendor: "pubmed-mcp",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: toJson, output: toJson },
    },
  };
}

type Schema = FastMcpTool<FastMCPSessionAuth>["parameters"];

/** What a call brings from the protocol: the client's cancel (or session close) and progress. */
export interface CallContext {
  signal?: AbortSignal;
  reportProgress: ToolContext["reportProgress"];
}

/** A corpus call out of time: the local store was slow (opening, or busy with a sync), not NCBI. */
function corpusTimeout(deadlineMs: number): StoreError {
  return new StoreError(
    `The local corpus did not answer within ${Math.round(deadlineMs / 1000)} s (CORPUS_DEADLINE_MS): ` +
      "its store may still be opening or busy with a sync; try again shortly.",
  );
}

/**
 * One tools/call: arguments validated, the NCBI deadline armed, the tool run, and every outcome
 * (a VALIDATION refusal, an abort, any failure) turned into a result the model can read.
 */
export async function runTool(
  tool: ToolDef,
  raw: unknown,
  call: CallContext,
): Promise<ContentResult> {
  const local = tool.budget === "corpus";
  const deadlineMs = local ? getConfig().corpusDeadlineMs : getConfig().ncbi.deadlineMs;
  // The call's signal: the client's cancel, or the deadline's TimeoutError (as AbortSignal.timeout
  // gives it). A timer and a listener cleared when the call ends, not AbortSignal.timeout + any:
  // those hold each call's timer and signals until the deadline (120 s), tens of MB under load.
  const controller = new AbortController();
  const timer = tool.noDeadline
    ? undefined
    : setTimeout(() => {
        controller.abort(new DOMException("The operation timed out.", "TimeoutError"));
      }, deadlineMs);
  timer?.unref(); // as AbortSignal.timeout's: a pending deadline never holds the process open
  const cancel = () => controller.abort(call.signal?.reason);
  if (call.signal?.aborted) cancel();
  else call.signal?.addEventListener("abort", cancel, { once: true });
  const signal = controller.signal;
  // NCBI waits that outlast the deadline fail at once with RATE_LIMIT (eutils/limiter.ts).
  if (timer && !local) setDeadline(signal, performance.now() + deadlineMs);
  try {
    const args = validateArgs(tool, raw);
    const result = await tool.execute(args, { signal, reportProgress: call.reportProgress });
    const more = (await tool.moreContent?.(result, { signal })) ?? [];
    const fitted = fitAnswer(tool, args, result, answerCeiling(tool), contentBytes(more));
    return jsonResult(fitted.value, more, fitted.text);
  } catch (err) {
    // Work stopped by the abort throws whatever the abort carried (possibly the client's bare
    // cancel reason); typed errors raised on the way out keep their own message.
    if (signal.aborted && !(err instanceof AppError)) {
      const by = call.signal?.aborted ? "client" : "deadline";
      return errorResult(
        local && by === "deadline"
          ? corpusTimeout(deadlineMs)
          : abortedCall(tool.name, by, deadlineMs),
      );
    }
    return errorResult(err);
  } finally {
    clearTimeout(timer);
    call.signal?.removeEventListener("abort", cancel);
  }
}

/**
 * The tool as fastmcp registers it, for tools/list. Calls never reach this `execute`: the
 * session answers tools/call itself (src/protocol/calls.ts) with the same runTool.
 */
export function toFastMcpTool(tool: ToolDef): FastMcpTool<FastMCPSessionAuth> {
  return {
    name: tool.name,
    description: tool.description,
    annotations: tool.annotations,
    parameters: advertised(tool.parameters, "input") as unknown as Schema,
    ...(tool.output && {
      outputSchema: advertised(tool.output, "output") as unknown as Schema,
    }),
    execute: (raw: unknown, context: Context<FastMCPSessionAuth>) =>
      runTool(tool, raw, {
        signal: context.signal,
        reportProgress: (progress, total, message) =>
          context.reportProgress({ progress, total, ...(message ? { message } : {}) }),
      }),
  };
}
