/**
 * Access to a request before the SDK validates it.
 *
 * The SDK's Protocol stores one handler per method that first parses the raw JSON-RPC request
 * against the method's schema, and Server additionally re-checks every tools/call against
 * CallToolRequestSchema. A tools/call whose `arguments` is null, a string or an array therefore
 * fails in the SDK as a -32603 carrying a raw zod issue list, before fastmcp or our tool adapter
 * could answer it with a VALIDATION result (docs/reference.md#tool-errors). Neither class offers a hook there, so
 * this reads the handler table (`_requestHandlers`, a private field) and wraps the stored entry;
 * __tests__/protocol/calls.test.ts fails if an SDK upgrade moves it.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";

export type RawHandler = (request: JSONRPCRequest, extra: unknown) => Promise<unknown>;

export function interceptRequest(
  server: Server,
  method: string,
  wrap: (next: RawHandler) => RawHandler,
): void {
  const table = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(table instanceof Map)) {
    throw new Error("MCP SDK changed: Protocol._requestHandlers is no longer a Map");
  }
  const handlers = table as Map<string, RawHandler>;
  const next = handlers.get(method);
  if (!next) throw new Error(`no ${method} handler to intercept`);
  handlers.set(method, wrap(next));
}
