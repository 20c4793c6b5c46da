/**
 * The MCP endpoints behind the guards.
 *
 * Streamable HTTP at /mcp is stateful when the client wants a session, stateless otherwise:
 * - POST initialize (no Mcp-Session-Id) opens a session (sessions.ts) and answers its id; every
 *   later request carries it, GET opens the session's server→client stream (notifications such
 *   as notifications/message and notifications/resources/updated), DELETE ends it. An unknown
 *   or expired id gets 404, which tells a client to initialize again (spec, session management).
 * - Any other POST without a session id is served statelessly by a one-request session, as
 *   before: one-shot callers (curl, scripts) and replicas without sticky routing keep working.
 *
 * Legacy SSE at /sse is inherently stateful (the POSTs to /messages must reach the replica that
 * holds the stream), so it needs sticky sessions behind a load balancer, as /mcp sessions do.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { log } from "../log.js";
import { checkMessage, refusalResponse } from "../protocol/messages.js";
import type { SessionFactory } from "../server.js";
import { readJsonBody, sendJson, sendRpcError } from "./guards.js";
import { SessionTable, type SessionLimits } from "./sessions.js";

export const SSE_MESSAGES_PATH = "/messages";

/** Proxies commonly drop connections idle for 60 s; an SSE comment line keeps the stream alive. */
const SSE_KEEPALIVE_MS = 20_000;

/** Each handler takes the authenticated principal's id: sessions are bound to it. */
type Handler = (req: IncomingMessage, res: ServerResponse, principal: string) => Promise<void>;

export interface McpHandlers {
  streamable: Handler;
  sseOpen: Handler;
  sseMessage: Handler;
  /** Ends every Streamable HTTP session and SSE stream. */
  close: () => Promise<void>;
}

export interface McpOptions {
  maxBodyBytes: number;
  sessions: SessionLimits;
}

/**
 * The POSTed message, or undefined once refused: 413 over the size limit, 400 with -32700 for a
 * body that is not JSON and -32600 for JSON that is not one JSON-RPC message (a batch, an id JSON
 * cannot hold exactly: src/protocol/messages.ts). The SDK would serve batches and such ids, and
 * answer a non-message -32700 (SSE: a text/plain 400); the session is not touched either way.
 */
async function readMessage(
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number,
): Promise<JSONRPCMessage | undefined> {
  const read = await readJsonBody(req, res, maxBodyBytes);
  if (!read.ok) return undefined;
  const checked = checkMessage(read.body);
  if (checked.ok) return checked.message;
  sendJson(res, 400, refusalResponse(checked.refusal));
  return undefined;
}

function sessionIdOf(req: IncomingMessage): string | undefined {
  const value = req.headers["mcp-session-id"];
  return Array.isArray(value) ? value[0] : value;
}

function failed(res: ServerResponse, err: unknown, what: string): void {
  log.error(`MCP ${what} failed`, { error: err instanceof Error ? err.message : String(err) });
  if (!res.headersSent) sendRpcError(res, 500, -32603, "Internal error");
  else res.end();
}

export function createMcpHandlers(newSession: SessionFactory, opts: McpOptions): McpHandlers {
  const { maxBodyBytes } = opts;
  const sseStreams = new Map<string, { transport: SSEServerTransport; principal: string }>();
  const sessions = new SessionTable(newSession, opts.sessions);

  /** A POST with no session id that is not initialize: a session for this request only. */
  const stateless = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const session = newSession("httpStream");
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // Closing the session aborts tool calls still running for a client that hung up.
    res.once("close", () => {
      void transport.close();
      void session.close();
    });
    await session.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const streamable: Handler = async (req, res, principal) => {
    const method = req.method ?? "";
    if (!["GET", "POST", "DELETE"].includes(method)) {
      sendRpcError(res, 405, -32000, `Method not allowed: /mcp takes POST, GET and DELETE`, {
        Allow: "GET, POST, DELETE",
      });
      return;
    }
    let body: JSONRPCMessage | undefined;
    if (method === "POST") {
      body = await readMessage(req, res, maxBodyBytes);
      if (!body) return;
    }
    const id = sessionIdOf(req);
    try {
      if (id !== undefined) {
        if ((await sessions.handle(id, req, res, body, principal)) === "unknown") {
          sendRpcError(
            res,
            404,
            -32001,
            "Session not found: this Mcp-Session-Id is unknown, expired or ended. Send a new initialize request without Mcp-Session-Id.",
          );
        }
      } else if (method === "POST" && isInitializeRequest(body)) {
        if ((await sessions.open(req, res, body, principal)) === "full") {
          sendRpcError(res, 503, -32000, "Too many open MCP sessions; retry shortly", {
            "Retry-After": "5",
          });
        }
      } else if (method === "POST") {
        await stateless(req, res, body);
      } else {
        sendRpcError(
          res,
          400,
          -32000,
          `Bad Request: ${method} /mcp needs the Mcp-Session-Id header that initialize returned`,
        );
      }
    } catch (err) {
      failed(res, err, "request");
    }
  };

  const sseOpen: Handler = async (req, res, principal) => {
    if (req.method !== "GET") {
      sendRpcError(res, 405, -32000, "Method not allowed: open the SSE stream with GET /sse", {
        Allow: "GET",
      });
      return;
    }
    const transport = new SSEServerTransport(SSE_MESSAGES_PATH, res);
    const session = newSession("httpStream");
    sseStreams.set(transport.sessionId, { transport, principal });
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

  const sseMessage: Handler = async (req, res, principal) => {
    const id = new URL(req.url ?? "", "http://localhost").searchParams.get("sessionId") ?? "";
    const stream = sseStreams.get(id);
    const transport = stream?.principal === principal ? stream.transport : undefined;
    if (req.method !== "POST" || !transport) {
      sendRpcError(res, 404, -32001, "Unknown SSE session: open a stream with GET /sse first");
      return;
    }
    const message = await readMessage(req, res, maxBodyBytes);
    if (!message) return;
    try {
      await transport.handlePostMessage(req, res, message);
    } catch (err) {
      failed(res, err, "SSE message");
    }
  };

  const close = async () => {
    await sessions.closeAll();
    await Promise.all([...sseStreams.values()].map((s) => s.transport.close()));
    sseStreams.clear();
  };

  return { streamable, sseOpen, sseMessage, close };
}
