/**
 * The MCP endpoints behind the guards.
 *
 * Streamable HTTP at /mcp is stateless: every POST gets a fresh session and transport that live
 * for that request only, so any replica behind a load balancer can answer any request and there
 * is no session table to lose. GET/DELETE /mcp (the standalone notification stream and session
 * teardown) therefore answer 405, which the spec and the SDK client treat as "not offered".
 *
 * Legacy SSE at /sse is inherently stateful (the POSTs to /messages must reach the replica that
 * holds the stream), so it needs sticky sessions behind a load balancer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { log } from "../log.js";
import type { SessionFactory } from "../server.js";
import { readJsonBody, sendRpcError } from "./guards.js";

export const SSE_MESSAGES_PATH = "/messages";

/** Proxies commonly drop connections idle for 60 s; an SSE comment line keeps the stream alive. */
const SSE_KEEPALIVE_MS = 20_000;

export interface McpHandlers {
  streamable: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  sseOpen: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  sseMessage: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Ends every open SSE stream. */
  close: () => Promise<void>;
}

function failed(res: ServerResponse, err: unknown, what: string): void {
  log.error(`MCP ${what} failed`, { error: err instanceof Error ? err.message : String(err) });
  if (!res.headersSent) sendRpcError(res, 500, -32603, "Internal error");
  else res.end();
}

export function createMcpHandlers(newSession: SessionFactory, maxBodyBytes: number): McpHandlers {
  const sseStreams = new Map<string, SSEServerTransport>();

  const streamable = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") {
      sendRpcError(
        res,
        405,
        -32000,
        "Method not allowed: this server is stateless; POST JSON-RPC to /mcp",
        {
          Allow: "POST",
        },
      );
      return;
    }
    const body = await readJsonBody(req, res, maxBodyBytes);
    if (!body.ok) return;
    const session = newSession("httpStream");
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // Closing the session aborts tool calls still running for a client that hung up.
    res.once("close", () => {
      void transport.close();
      void session.close();
    });
    try {
      await session.connect(transport);
      await transport.handleRequest(req, res, body.body);
    } catch (err) {
      failed(res, err, "request");
    }
  };

  const sseOpen = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "GET") {
      sendRpcError(res, 405, -32000, "Method not allowed: open the SSE stream with GET /sse", {
        Allow: "GET",
      });
      return;
    }
    const transport = new SSEServerTransport(SSE_MESSAGES_PATH, res);
    const session = newSession("httpStream");
    sseStreams.set(transport.sessionId, transport);
    const keepalive = setInterval(() => res.write(": keepalive\n\n"), SSE_KEEPALIVE_MS);
    res.once("close", () => {
      clearInterval(keepalive);
      sseStreams.delete(transport.sessionId);
      void session.close();
    });
    try {
      await session.connect(transport);
    } catch (err) {
      failed(res, err, "SSE stream");
    }
  };

  const sseMessage = async (req: IncomingMessage, res: ServerResponse) => {
    const id = new URL(req.url ?? "", "http://localhost").searchParams.get("sessionId") ?? "";
    const transport = sseStreams.get(id);
    if (req.method !== "POST" || !transport) {
      sendRpcError(res, 404, -32001, "Unknown SSE session: open a stream with GET /sse first");
      return;
    }
    const body = await readJsonBody(req, res, maxBodyBytes);
    if (!body.ok) return;
    try {
      await transport.handlePostMessage(req, res, body.body);
    } catch (err) {
      failed(res, err, "SSE message");
    }
  };

  const close = async () => {
    await Promise.all([...sseStreams.values()].map((t) => t.close()));
    sseStreams.clear();
  };

  return { streamable, sseOpen, sseMessage, close };
}
