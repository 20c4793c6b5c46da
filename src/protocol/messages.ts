/**
 * One incoming JSON-RPC message, checked before the SDK sees it, for every transport (stdio
 * lines, Streamable HTTP and legacy SSE bodies). The SDK drops a message it cannot parse without
 * a word over stdio, and over HTTP calls a non-request -32700 and serves batches and ids it cannot
 * represent; this answers each as JSON-RPC 2.0 §5.1 asks:
 *
 * - not JSON (a `NaN` literal, a trailing NUL, invalid UTF-8 included) → -32700 Parse error, id null;
 * - JSON that is not one message object → -32600 Invalid Request. A batch is one: MCP 2025-06-18
 *   removed JSON-RPC batching (and 2025-11-25 is what this server speaks), so a batch is refused
 *   whole rather than half-served;
 * - a numeric id outside ±(2^53 − 1) → -32600 with id null: JSON.parse has already rounded it
 *   (9007199254740993 reads as …992), so an answer carrying it could match another request.
 *
 * A refusal carries the request's id when the message is a request whose id survived parsing,
 * otherwise null; a malformed response or notification is answered with id null too, never with
 * its own id, which the client would take for an answer to one of its requests.
 */
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export interface Refusal {
  code: typeof PARSE_ERROR | typeof INVALID_REQUEST;
  message: string;
  id: string | number | null;
}

export type Checked = { ok: true; message: JSONRPCMessage } | { ok: false; refusal: Refusal };

/** The JSON-RPC error response for a refusal, ready to serialise. */
export function refusalResponse(refusal: Refusal) {
  return {
    jsonrpc: "2.0" as const,
    id: refusal.id,
    error: { code: refusal.code, message: refusal.message },
  };
}

const refuse = (code: Refusal["code"], message: string, id: Refusal["id"] = null): Checked => ({
  ok: false,
  refusal: { code, message, id },
});

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The message in one stdio line (without its newline), or why it is refused. */
export function parseLine(line: Uint8Array): Checked {
  let text: string;
  try {
    text = utf8.decode(line);
  } catch {
    return refuse(
      PARSE_ERROR,
      "Parse error: the line is not valid UTF-8 (JSON-RPC messages are UTF-8 JSON).",
    );
  }
  return parseText(text);
}

/** The message in a JSON text, or why it is refused. */
export function parseText(text: string): Checked {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse(PARSE_ERROR, PARSE_ERROR_MESSAGE);
  }
  return checkMessage(value);
}

/** Shared by the HTTP body reader, which parses the body itself. */
export const PARSE_ERROR_MESSAGE =
  "Parse error: the message is not valid JSON (one JSON-RPC object, UTF-8; no NaN or Infinity, no comments, nothing after the closing brace).";

const isSafeId = (id: unknown): id is string | number =>
  typeof id === "string" || Number.isSafeInteger(id);

/** A parsed JSON value as one JSON-RPC message, or why it is not one. */
export function checkMessage(value: unknown): Checked {
  if (Array.isArray(value)) {
    return refuse(
      INVALID_REQUEST,
      "Invalid Request: JSON-RPC batches are not supported (MCP removed batching in 2025-06-18); send each message on its own.",
    );
  }
  if (typeof value !== "object" || value === null) {
    return refuse(INVALID_REQUEST, "Invalid Request: a JSON-RPC message is a JSON object.");
  }
  const fields = value as Record<string, unknown>;
  const id = "method" in fields && isSafeId(fields.id) ? fields.id : null;
  if (typeof fields.id === "number" && !Number.isSafeInteger(fields.id)) {
    return refuse(
      INVALID_REQUEST,
      "Invalid Request: a numeric id must be an integer between -9007199254740991 and 9007199254740991 (2^53 − 1), which JSON numbers hold exactly; use a smaller number or a string id.",
    );
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { ok: true, message: parsed.data };
  return refuse(
    INVALID_REQUEST,
    'Invalid Request: not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0", a string "method", optional object "params" and a string or integer "id"; or a response with "result" or "error"; no other fields).',
    id,
  );
}
