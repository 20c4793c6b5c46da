/**
 * The HTTP security switches: bearer token on /mcp, /sse and /messages (constant-time compare,
 * /health open), Origin allow-list, request-body limit, and the public identity/health routes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { request } from "node:http";
import { startHttpServer } from "../../src/http/server.js";
import { getConfig } from "../../src/state.js";
import { onUtility } from "../helpers/fake-eutils.js";
import {
  ESPELL_XML,
  connectSse,
  connectStreamable,
  rawInitialize,
  startHttpHarness,
  type HttpHarness,
} from "./harness.js";

const TOKEN = "s3cret-token-for-tests";
const ALLOWED = "https://agent.example.org";

describe("HTTP guards", () => {
  let h: HttpHarness;
  beforeAll(async () => {
    h = await startHttpHarness({
      routes: [onUtility("espell", { body: ESPELL_XML })],
      env: { MCP_AUTH_TOKEN: TOKEN, MCP_ALLOWED_ORIGINS: `${ALLOWED}, http://localhost:6274` },
      server: { maxBodyBytes: 64 * 1024 },
    });
  });
  afterAll(() => h.close());

  describe("bearer token", () => {
    it("refuses /mcp without a token with 401 and a Bearer challenge", async () => {
      const res = await rawInitialize(h.http.url);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(await res.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32001, message: expect.stringContaining("Authorization: Bearer") },
      });
    });

    it("refuses a wrong token, including one that differs only in length", async () => {
      for (const wrong of ["nope", `${TOKEN}x`, TOKEN.slice(0, -1), `Basic ${TOKEN}`]) {
        const res = await rawInitialize(h.http.url, { Authorization: `Bearer ${wrong}` });
        expect(res.status).toBe(401);
      }
      const basic = await rawInitialize(h.http.url, { Authorization: TOKEN });
      expect(basic.status).toBe(401);
    });

    it("refuses the SDK client with a wrong token on both transports", async () => {
      await expect(connectStreamable(h.http.url, "wrong")).rejects.toThrow();
      await expect(connectSse(h.http.url, "wrong")).rejects.toThrow();
    });

    it("accepts the right token on Streamable HTTP and SSE and serves a tool", async () => {
      for (const connect of [connectStreamable, connectSse]) {
        const client = await connect(h.http.url, TOKEN);
        const res = await client.callTool({
          name: "pubmed_spell",
          arguments: { query: "asthmaa childrn" },
        });
        expect(res.structuredContent).toEqual({
          original: "asthmaa childrn",
          corrected: "asthma children",
          hasSuggestion: true,
        });
        await client.close();
      }
    });

    it("guards the SSE stream and its message endpoint", async () => {
      const stream = await fetch(new URL("/sse", h.http.url));
      expect(stream.status).toBe(401);
      const post = await fetch(new URL("/messages?sessionId=x", h.http.url), {
        method: "POST",
        body: "{}",
      });
      expect(post.status).toBe(401);
    });

    it("leaves /health, /readyz and / open", async () => {
      const health = await fetch(new URL("/health", h.http.url));
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
      const identity = await fetch(new URL("/", h.http.url));
      expect(await identity.json()).toEqual({
        name: "pubmed-mcp",
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        endpoints: { mcp: "/mcp", sse: "/sse", health: "/health", readyz: "/readyz" },
      });
      const ready = await fetch(new URL("/readyz", h.http.url));
      expect([200, 503]).toContain(ready.status);
    });
  });

  describe("origin allow-list", () => {
    it("refuses another origin with 403 on every route", async () => {
      for (const path of ["/mcp", "/sse", "/health", "/"]) {
        const res = await fetch(new URL(path, h.http.url), {
          headers: { Origin: "https://evil.example.com", Authorization: `Bearer ${TOKEN}` },
        });
        expect(res.status).toBe(403);
      }
    });

    it("admits a listed origin and grants it CORS", async () => {
      const res = await rawInitialize(h.http.url, {
        Origin: ALLOWED,
        Authorization: `Bearer ${TOKEN}`,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(ALLOWED);
      const preflight = await fetch(new URL("/mcp", h.http.url), {
        method: "OPTIONS",
        headers: { Origin: ALLOWED, "Access-Control-Request-Method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
    });

    it("admits requests without an Origin header (non-browser clients)", async () => {
      const res = await rawInitialize(h.http.url, { Authorization: `Bearer ${TOKEN}` });
      expect(res.status).toBe(200);
    });
  });

  describe("request body", () => {
    const post = (body: string) =>
      fetch(new URL("/mcp", h.http.url), {
        method: "POST",
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body,
      });

    it("answers 413 to a body over the limit", async () => {
      const huge = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "pubmed_spell", arguments: { query: "x".repeat(100 * 1024) } },
      });
      const res = await post(huge);
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
    });

    it("answers 413 to a chunked body (no Content-Length) once it passes the limit", async () => {
      const url = new URL("/mcp", h.http.url);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(url, {
          method: "POST",
          headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
        });
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`);
        for (let i = 0; i < 100; i++) req.write("x".repeat(1024));
        req.end(`"}}`);
      });
      expect(status).toBe(413);
    });

    it("answers 400 with a JSON-RPC parse error to a body that is not JSON", async () => {
      const res = await post("{not json");
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700);
    });
  });

  it("answers 404 with the endpoint list for unknown paths", async () => {
    const res = await fetch(new URL("/nope", h.http.url));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { endpoints: object }).endpoints).toHaveProperty("mcp", "/mcp");
  });

  it("refuses to start on a non-loopback host with neither auth nor a Host list", async () => {
    const open = {
      ...getConfig(),
      http: { ...getConfig().http, host: "0.0.0.0", authToken: undefined, allowedHosts: undefined },
    };
    await expect(startHttpServer(open)).rejects.toThrow(
      /MCP_HTTP_HOST=0\.0\.0\.0[\s\S]*MCP_AUTH_TOKEN[\s\S]*MCP_ALLOWED_HOSTS/,
    );
    // With the token (this harness's config) the same bind starts.
    const guarded = await startHttpServer({
      ...getConfig(),
      http: { ...getConfig().http, host: "0.0.0.0", port: 0, allowedHosts: undefined },
    });
    const health = await fetch(`http://127.0.0.1:${guarded.port}/health`);
    expect(health.status).toBe(200);
    await guarded.close();
  });
});
