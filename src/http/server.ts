/**
 * The HTTP front: one node:http server that owns every route, so the guards (Host, Origin,
 * bearer token/JWT, body size) sit in front of the MCP transports rather than inside a framework.
 *
 *   GET  /health    liveness: no dependencies, always fast, never behind Host check or token
 *   GET  /readyz    readiness probes (src/worker/process.ts); 200 or 503 with each check's state
 *   GET  /          identity (name, version, endpoints)
 *   GET  /.well-known/oauth-protected-resource[/mcp|/sse]  RFC 9728 metadata, when configured
 *   POST|GET|DELETE /mcp   Streamable HTTP (sessions.ts)           — bearer auth when configured
 *   GET  /sse       legacy SSE stream; POST /messages?sessionId=…  — bearer auth when configured
 *
 * Probes (/health, /readyz) skip the Host check: orchestrators address pods by IP, and neither
 * route serves anything a rebinding page could use. Every other route is Host-checked.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { ConfigError, type Config, httpProblems } from "../config.js";
import { log } from "../log.js";
import { createServer, SERVER_NAME, type ServerOptions, type SessionFactory } from "../server.js";
import { VERSION } from "../version.js";
import { getReadiness } from "../worker/process.js";
import { createAuthenticator } from "./auth.js";
import { DEFAULT_MAX_BODY_BYTES, checkHost, checkOrigin, corsHeaders, sendJson } from "./guards.js";
import { SSE_MESSAGES_PATH, createMcpHandlers } from "./mcp.js";
import { checkReadiness } from "./readiness.js";
import type { SessionLimits } from "./sessions.js";

export interface HttpServerOptions extends ServerOptions {
  /** Largest accepted request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Overrides of the session limits from config (tests use short ones). */
  sessions?: Partial<SessionLimits>;
  /** The MCP sessions to serve; default createServer(opts). */
  sessionFactory?: SessionFactory;
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

function onlyGet(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method === "GET" || req.method === "HEAD") return true;
  sendJson(res, 405, { error: "Method not allowed" }, { Allow: "GET, HEAD" });
  return false;
}

export async function startHttpServer(
  config: Config,
  opts: HttpServerOptions = {},
): Promise<RunningHttpServer> {
  // Configs built by hand (tests, embedders) get the same refusal loadConfig gives.
  const problems = httpProblems(config.http);
  if (problems.length > 0) throw new ConfigError(problems);
  const { host, port, allowedOrigins, allowedHosts } = config.http;
  const auth = createAuthenticator(config.http);
  const mcp = createMcpHandlers(opts.sessionFactory ?? createServer(opts), {
    maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    sessions: {
      idleMs: config.http.sessionIdleMs,
      max: config.http.maxSessions,
      ...opts.sessions,
    },
  });
  /** Runs an MCP handler for the authenticated principal; its AuthInfo reaches tools as authInfo. */
  const authenticated = async (
    req: IncomingMessage,
    res: ServerResponse,
    handler: (req: IncomingMessage, res: ServerResponse, principal: string) => Promise<void>,
  ) => {
    const principal = await auth.authenticate(req, res);
    if (!principal) return;
    (req as IncomingMessage & { auth?: AuthInfo }).auth = principal.info;
    await handler(req, res, principal.id);
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const probe = path === "/health" || path === "/readyz";
    if (!probe && !checkHost(req, res, allowedHosts)) return;
    for (const [name, value] of Object.entries(corsHeaders(req, allowedOrigins))) {
      res.setHeader(name, value);
    }
    if (!checkOrigin(req, res, allowedOrigins, allowedHosts)) return;
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
        await authenticated(req, res, mcp.streamable);
        return;
      case ENDPOINTS.sse:
        await authenticated(req, res, mcp.sseOpen);
        return;
      case SSE_MESSAGES_PATH:
        await authenticated(req, res, mcp.sseMessage);
        return;
      default:
        if (auth.metadataFor(path)) {
          if (onlyGet(req, res)) sendJson(res, 200, auth.metadataFor(path));
          return;
        }
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
