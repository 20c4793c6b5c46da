/**
 * Request guards for the HTTP front: Host and Origin checks (DNS-rebinding defence) and a
 * bounded JSON body reader. Each answers the refusal itself and returns false, so a
 * handler reads `if (!guard(...)) return;`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { normalizeHost } from "../config.js";
import { INVALID_REQUEST, PARSE_ERROR, PARSE_ERROR_MESSAGE } from "../protocol/messages.js";

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

/** Whether a normalised "name[:port]" is on the list ("name" entries match any port). */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  return allowed.includes(host) || allowed.includes(name ?? host);
}

/**
 * DNS-rebinding guard: a page on evil.example.com whose name resolves to 127.0.0.1 reaches a
 * loopback server with `Host: evil.example.com`. Hosts off the list get 403 (with what to set).
 * `allowed` undefined means no Host check (a non-loopback bind behind authentication).
 */
export function checkHost(
  req: IncomingMessage,
  res: ServerResponse,
  allowed: readonly string[] | undefined,
): boolean {
  if (!allowed) return true;
  const raw = req.headers.host ?? "";
  const host = normalizeHost(raw);
  if (host !== undefined && hostAllowed(host, allowed)) return true;
  sendRpcError(
    res,
    403,
    -32000,
    `Forbidden: Host "${raw}" is not allowed (DNS-rebinding guard). To serve requests addressed to it, add it to MCP_ALLOWED_HOSTS (comma-separated host or host:port; now: ${allowed.join(", ")}).`,
  );
  return false;
}

/**
 * Browsers send Origin on cross-site requests, so it is checked whenever present: against
 * MCP_ALLOWED_ORIGINS when set; otherwise the origin's host must be an allowed host (loopback
 * names by default), or — with no Host list — the request's own Host (same origin). Requests
 * without Origin (SDKs, curl, probes) are not subject to it.
 */
export function checkOrigin(
  req: IncomingMessage,
  res: ServerResponse,
  allowedOrigins: readonly string[] | undefined,
  allowedHosts: readonly string[] | undefined,
): boolean {
  const origin = req.headers.origin;
  if (origin === undefined || originAllowed(origin, req, allowedOrigins, allowedHosts)) return true;
  const fix = allowedOrigins
    ? "add it to MCP_ALLOWED_ORIGINS"
    : "list it in MCP_ALLOWED_ORIGINS (comma-separated origins, e.g. https://app.example.org)";
  sendRpcError(res, 403, -32000, `Forbidden: origin ${origin} is not allowed; to admit it, ${fix}`);
  return false;
}

function originAllowed(
  origin: string,
  req: IncomingMessage,
  allowedOrigins: readonly string[] | undefined,
  allowedHosts: readonly string[] | undefined,
): boolean {
  if (allowedOrigins) return allowedOrigins.includes(origin);
  let host: string | undefined;
  try {
    const u = new URL(origin);
    host = /^https?:$/.test(u.protocol) ? normalizeHost(u.host) : undefined;
  } catch {
    host = undefined; // "null" (sandboxed frames, file://) and garbage
  }
  if (host === undefined) return false;
  if (allowedHosts) return hostAllowed(host, allowedHosts);
  return host === normalizeHost(req.headers.host ?? "");
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
  const bytes = await readBounded(req, maxBytes);
  if (bytes === undefined) {
    const drained = await discardRest(req);
    if (!drained) res.setHeader("Connection", "close");
    sendRpcError(
      res,
      413,
      INVALID_REQUEST,
      `Payload Too Large: the request body exceeds ${maxBytes} bytes, the most one message may hold. Send smaller arguments: split a long list over several calls.`,
    );
    if (!drained) res.once("finish", () => req.destroy());
    return { ok: false };
  }
  try {
    // JSON is UTF-8 (RFC 8259 §8.1): bytes that are not are a parse error, not U+FFFD.
    return { ok: true, body: JSON.parse(utf8.decode(bytes)) };
  } catch {
    sendRpcError(res, 400, PARSE_ERROR, PARSE_ERROR_MESSAGE);
    return { ok: false };
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The most of a refused body read and thrown away so that its sender can read the 413. */
const DRAIN_MAX_BYTES = 128 * 1024 * 1024;
/** How long a refused body may take to arrive before the connection is dropped. */
const DRAIN_MAX_MS = 10_000;

/**
 * Reads the rest of a refused body and throws it away, so that the 413 goes out after it and the
 * connection can serve the client's next request. Answering first and closing while the client
 * is still sending makes the kernel answer with a reset that often arrives before the 413: a
 * client slow to read saw ECONNRESET or EPIPE instead of the answer. False past DRAIN_MAX_BYTES
 * or DRAIN_MAX_MS: the connection is then answered and dropped.
 */
function discardRest(req: IncomingMessage): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    let size = 0;
    const done = (drained: boolean) => {
      clearTimeout(timer);
      req.off("data", count);
      req.off("end", ended);
      req.off("close", closed);
      if (!drained) req.pause();
      resolve(drained);
    };
    const count = (chunk: Buffer) => {
      size += chunk.length;
      if (size > DRAIN_MAX_BYTES) done(false);
    };
    const ended = () => done(true);
    const closed = () => done(false);
    const timer = setTimeout(() => done(false), DRAIN_MAX_MS);
    timer.unref();
    req.on("data", count);
    req.once("end", ended);
    req.once("close", closed);
    req.resume();
  });
}

/** The body's bytes, or undefined once they are known to exceed `maxBytes`. */
function readBounded(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off("data", onData);
        chunks.length = 0;
        resolve(undefined);
      } else chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}
