/**
 * Request guards for the HTTP front: Origin allow-list (DNS-rebinding defence), bearer token,
 * and a bounded JSON body reader. Each answers the refusal itself and returns false, so a
 * handler reads `if (!guard(...)) return;`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/** Largest MCP request body accepted; real calls (200 PMIDs, 25 citations) are a few KB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(text)),
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(text);
}

/** A JSON-RPC error body with no id, as the transports send for refused HTTP requests. */
export function sendRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { jsonrpc: "2.0", id: null, error: { code, message } }, headers);
}

/**
 * With an allow-list, a request whose Origin is not on it gets 403. Requests without an Origin
 * (non-browser clients: SDKs, curl, load-balancer probes) are not subject to it.
 */
export function checkOrigin(
  req: IncomingMessage,
  res: ServerResponse,
  allowed: readonly string[] | undefined,
): boolean {
  const origin = req.headers.origin;
  if (!allowed || origin === undefined || allowed.includes(origin)) return true;
  sendRpcError(
    res,
    403,
    -32000,
    `Forbidden: origin ${origin} is not allowed (MCP_ALLOWED_ORIGINS)`,
  );
  return false;
}

/** CORS for allowed browser origins only; without an allow-list no cross-origin reads are granted. */
export function corsHeaders(req: IncomingMessage, allowed: readonly string[] | undefined) {
  const origin = req.headers.origin;
  if (!allowed || origin === undefined || !allowed.includes(origin)) return {};
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
    "Access-Control-Allow-Headers":
      "Content-Type, Authorization, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id",
    "Access-Control-Expose-Headers": "Mcp-Session-Id",
    Vary: "Origin",
  };
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/**
 * `Authorization: Bearer <token>` when a token is configured. Both sides are hashed first so
 * the comparison is constant-time whatever the presented length.
 */
export function checkBearer(
  req: IncomingMessage,
  res: ServerResponse,
  token: string | undefined,
): boolean {
  if (token === undefined) return true;
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
  const presented = match?.[1]?.trim() ?? "";
  if (presented && timingSafeEqual(digest(presented), digest(token))) return true;
  const reason = presented ? "invalid_token" : "invalid_request";
  sendRpcError(res, 401, -32001, "Unauthorized: send Authorization: Bearer <MCP_AUTH_TOKEN>", {
    "WWW-Authenticate": `Bearer realm="pubmed-mcp", error="${reason}"`,
  });
  return false;
}

export type BodyResult = { ok: true; body: unknown } | { ok: false };

/**
 * Reads and parses a JSON body of at most `maxBytes`, answering 413 (declared or observed
 * oversize) or 400 (not JSON) itself. Stops reading as soon as the bound is passed.
 */
export async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
): Promise<BodyResult> {
  const text = await readBounded(req, maxBytes);
  if (text === undefined) {
    // Answer first, then drop the connection: destroying it outright would leave the client
    // with a bare ECONNRESET instead of a 413 it can understand.
    req.pause();
    res.setHeader("Connection", "close");
    sendRpcError(res, 413, -32600, `Payload Too Large: request body exceeds ${maxBytes} bytes`);
    res.once("finish", () => req.destroy());
    return { ok: false };
  }
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch {
    sendRpcError(res, 400, -32700, "Parse error: the request body is not valid JSON");
    return { ok: false };
  }
}

/** The body as text, or undefined once it is known to exceed `maxBytes`. */
function readBounded(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off("data", onData);
        resolve(undefined);
      } else chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.once("error", reject);
  });
}
