/**
 * JSON-RPC errors as this server puts them on the wire.
 */
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";

/**
 * A JSON-RPC error whose message goes on the wire as written. The SDK's McpError prefixes
 * "MCP error <code>:" to its message, and the SDK client prefixes it a second time, so a client
 * would read "MCP error -32602: MCP error -32602: …".
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** -32602: the request names something that does not exist, or its params are malformed. */
export const invalidParams = (message: string, data?: Record<string, unknown>): ProtocolError =>
  new ProtocolError(ErrorCode.InvalidParams, message, data);

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
