/**
 * The HTTP front: one node:http server that owns every route, so the guards (Origin, bearer
 * token, body size) sit in front of the MCP transports rather than inside a framework.
 *
 *   GET  /          identity (name, version, endpoints)
 *   GET  /health    liveness: no dependencies, always fast, never behind the token
 *   GET  /readyz    readiness probes (state.readiness); 200 or 503 with each check's state
 *   POST /mcp       Streamable HTTP (stateless)             — bearer token when configured
 *   GET  /sse       legacy SSE stream; POST /messages?sessionId=… — bearer token when configured
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { Config } from "../config.js";
import { log } from "../log.js";
import { createServer, SERVER_NAME, type ServerOptions } from "../server.js";
import { getReadiness } from "../state.js";
import { VERSION } from "../version.js";
import {
  DEFAULT_MAX_BODY_BYTES,
  checkBearer,
  checkOrigin,
  corsHeaders,
  sendJson,
} from "./guards.js";
import { SSE_MESSAGES_PATH, createMcpHandlers } from "./mcp.js";
import { checkReadiness } from "./readiness.js";

export interface HttpServerOptions extends ServerOptions {
  /** Largest accepted request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
}

export interface RunningHttpServer {
  /** Base URL, e.g. http://127.0.0.1:3000 (the real port when configured with 0). */
  url: string;
  port: number;
  close: () => Promise<void>;
}

const ENDPOINTS = { mcp: "/mcp", sse: "/sse", health: "/health", readyz: "/readyz" };

/** Above common load-balancer idle timeouts (AWS ALB: 60 s), so the balancer closes first. */
const KEEP_ALIVE_MS = 65_000;

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

function onlyGet(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method === "GET" || req.method === "HEAD") return true;
  sendJson(res, 405, { error: "Method not allowed" }, { Allow: "GET, HEAD" });
  return false;
}

export async function startHttpServer(
  config: Config,
  opts: HttpServerOptions = {},
): Promise<RunningHttpServer> {
  const { host, port, authToken, allowedOrigins } = config.http;
  const mcp = createMcpHandlers(createServer(opts), opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    for (const [name, value] of Object.entries(corsHeaders(req, allowedOrigins))) {
      res.setHeader(name, value);
    }
    if (!checkOrigin(req, res, allowedOrigins)) return;
    if (req.method === "OPTIONS") {
      res.writeHead(204).end();
      return;
    }
    switch (path) {
      case "/health":
        if (onlyGet(req, res)) sendJson(res, 200, { status: "ok" });
        return;
      case "/readyz":
        if (onlyGet(req, res)) {
          const readiness = await checkReadiness(getReadiness());
          sendJson(res, readiness.status === "ready" ? 200 : 503, readiness);
        }
        return;
      case "/":
        if (onlyGet(req, res))
          sendJson(res, 200, { name: SERVER_NAME, version: VERSION, endpoints: ENDPOINTS });
        return;
      case ENDPOINTS.mcp:
        if (checkBearer(req, res, authToken)) await mcp.streamable(req, res);
        return;
      case ENDPOINTS.sse:
        if (checkBearer(req, res, authToken)) await mcp.sseOpen(req, res);
        return;
      case SSE_MESSAGES_PATH:
        if (checkBearer(req, res, authToken)) await mcp.sseMessage(req, res);
        return;
      default:
        sendJson(res, 404, { error: `No route for ${path}`, endpoints: ENDPOINTS });
    }
  };

  const server = createHttpServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      log.error("HTTP request failed", { error: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) sendJson(res, 500, { error: "Internal error" });
      else res.end();
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  if (!isLoopback(host) && authToken === undefined) {
    log.warn(
      `Serving MCP on ${host}:${actual} without MCP_AUTH_TOKEN: anyone who can reach this address can call every tool. Set MCP_AUTH_TOKEN (and MCP_ALLOWED_ORIGINS for browser clients).`,
    );
  }
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${actual}`,
    port: actual,
    close: async () => {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
