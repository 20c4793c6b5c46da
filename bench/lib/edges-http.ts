/**
 * The edges section over Streamable HTTP: a server process (`serve --http`, probe preloaded),
 * one session opened by the SDK Client, then each raw body POSTed to /mcp within that session,
 * declared (Content-Length) and, for the oversized ones, also streamed (chunked, no length); after
 * each, the session must still answer a ping.
 */
import { request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { alive, type RawOutcome } from "./edges-fuzz.js";
import type { RawMessage } from "./edges-raw.js";
import { ServerProcess } from "./edges-server.js";
import { freePort } from "./child.js";

const STARTUP_MS = 60_000;
const MiB = 1024 * 1024;

async function waitForReady(url: string, server: ServerProcess): Promise<void> {
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (server.child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`HTTP server at ${url} not ready: ${server.stderrTail}`);
}

/**
 * The status and JSON-RPC code of one POST, or how the connection ended. node:http rather than
 * fetch: a server that answers 413 and closes while the body is still going out leaves fetch
 * with ECONNRESET, whereas the response is read here as soon as it arrives.
 */
function post(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  streamed: boolean,
): Promise<{ got: string; bytes: number }> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: "POST",
      headers: streamed ? headers : { ...headers, "content-length": String(body.length) },
    });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      const done = () => {
        const code = /"code":\s*(-?\d+)/.exec(text)?.[1];
        const envelope = /\{\\?"error\\?":\{\\?"code\\?":\\?"([A-Z_]+)/.exec(text)?.[1];
        resolve({
          got: `HTTP ${res.statusCode}${code ? ` ${code}` : ""}${envelope ? ` ${envelope}` : ""}`,
          bytes: Buffer.byteLength(text),
        });
      };
      res.on("end", done);
      res.on("error", done);
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (!answered) resolve({ got: `connection ended (${err.code ?? err.message})`, bytes: 0 });
    });
    (async () => {
      // Chunked when streamed: no Content-Length, so only the bytes read can trip the limit.
      for (let at = 0; at < body.length && !req.destroyed; at += MiB) {
        if (!req.write(body.subarray(at, at + MiB))) {
          await new Promise<void>((res) => {
            const done = () => {
              req.off("drain", done);
              req.off("close", done);
              res();
            };
            req.once("drain", done);
            req.once("close", done);
          });
        }
      }
      req.end();
    })().catch(() => undefined);
  });
}

export interface HttpRun {
  /** Why the HTTP part could not run (the server did not start), if it could not. */
  error?: string;
  outcomes: RawOutcome[];
  rssStartMb: number;
  rssEndMb: number;
  rssPeakMb: number;
}

export async function runRawHttp(
  env: Record<string, string>,
  messages: RawMessage[],
): Promise<HttpRun> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = new ServerProcess(["serve", "--http"], { ...env, MCP_HTTP_PORT: String(port) });
  const client = new Client({ name: "bench-edges-http", version: "1" });
  try {
    try {
      await waitForReady(url, server);
    } catch (err) {
      const error = (err as Error).message.slice(0, 300);
      return { error, outcomes: [], rssStartMb: NaN, rssEndMb: NaN, rssPeakMb: NaN };
    }
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`));
    await client.connect(transport);
    const rssStartMb = server.memory().rss;
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": transport.sessionId ?? "",
      "mcp-protocol-version": transport.protocolVersion ?? "2025-06-18",
    };
    const outcomes: RawOutcome[] = [];
    for (const m of messages) {
      const ways = m.body.length > MiB ? [false, true] : [false];
      for (const streamed of ways) {
        const { got, bytes } = await post(`${url}/mcp`, headers, m.body, streamed);
        outcomes.push({
          name: `${m.name}${streamed ? ", streamed" : ""}`,
          expect: m.expect,
          got,
          answerBytes: bytes,
          alive: await alive(client),
        });
      }
    }
    const mem = server.memory();
    return { outcomes, rssStartMb, rssEndMb: mem.rss, rssPeakMb: mem.peak };
  } finally {
    await client.close().catch(() => undefined);
    await server.stop();
  }
}
