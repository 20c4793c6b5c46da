/**
 * The DNS-rebinding guard with default settings and with MCP_ALLOWED_HOSTS: Host checked on
 * every route but the probes, Origin checked whenever present (against the allowed hosts when
 * MCP_ALLOWED_ORIGINS is unset). Requests go through node:http so the Host header is sent as
 * given, as a rebinding page's browser would send it.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { onUtility } from "../helpers/fake-eutils.js";
import {
  ESPELL_XML,
  initializeMessage,
  rawRequest,
  startHttpHarness,
  type HttpHarness,
} from "./harness.js";

const initialize = (url: string, headers: Record<string, string>) =>
  rawRequest(`${url}/mcp`, { headers, body: initializeMessage() });

const errorOf = (text: string) =>
  (JSON.parse(text) as { error: { code: number; message: string } }).error;

describe("default settings on a loopback bind", () => {
  let h: HttpHarness;
  let port: number;
  beforeAll(async () => {
    h = await startHttpHarness({ routes: [onUtility("espell", { body: ESPELL_XML })] });
    port = h.http.port;
  });
  afterAll(() => h.close());

  it("refuses Host evil.example.com with 403 and a JSON-RPC error naming MCP_ALLOWED_HOSTS", async () => {
    const res = await initialize(h.http.url, {
      Host: "evil.example.com",
      Origin: "http://evil.example.com",
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: expect.stringContaining("MCP_ALLOWED_HOSTS") },
    });
    // Also without Origin, with the attacker's port, and on the other MCP routes.
    for (const path of ["/mcp", "/sse", "/messages?sessionId=x", "/"]) {
      const r = await rawRequest(`${h.http.url}${path}`, {
        headers: { Host: `evil.example.com:${port}` },
      });
      expect([path, r.status]).toEqual([path, 403]);
    }
  });

  it("accepts localhost, 127.0.0.1 and [::1] with any port, and their Origins", async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, "LOCALHOST"]) {
      const res = await initialize(h.http.url, { Host: host, Origin: `http://${host}` });
      expect([host, res.status]).toEqual([host, 200]);
    }
    // The Inspector's UI on another loopback port is a loopback origin too.
    const inspector = await initialize(h.http.url, { Origin: "http://localhost:6274" });
    expect(inspector.status).toBe(200);
  });

  it("refuses a foreign or opaque Origin even with a loopback Host", async () => {
    for (const origin of [
      "https://evil.example.com",
      "null",
      "file://",
      "http://127.0.0.1.evil.example.com",
    ]) {
      const res = await initialize(h.http.url, { Origin: origin });
      expect([origin, res.status]).toEqual([origin, 403]);
      expect(errorOf(res.text).message).toContain("MCP_ALLOWED_ORIGINS");
    }
  });

  it("keeps /health and /readyz reachable for probes addressed by any Host", async () => {
    const health = await rawRequest(`${h.http.url}/health`, { headers: { Host: "10.1.2.3:3000" } });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toEqual({ status: "ok" });
    const ready = await rawRequest(`${h.http.url}/readyz`, { headers: { Host: "pod-7" } });
    expect([200, 503]).toContain(ready.status);
  });
});

describe("MCP_ALLOWED_HOSTS", () => {
  let h: HttpHarness;
  beforeAll(async () => {
    h = await startHttpHarness({
      env: { MCP_ALLOWED_HOSTS: "mcp.example.org, proxy.internal:8443" },
    });
  });
  afterAll(() => h.close());

  it("accepts exactly the listed hosts (a name with any port, a host:port with that port)", async () => {
    const cases: [string, number][] = [
      ["mcp.example.org", 200],
      ["MCP.example.org:443", 200],
      ["proxy.internal:8443", 200],
      ["proxy.internal:9000", 403],
      ["proxy.internal", 403],
      ["evil.example.com", 403],
      // The list replaces the loopback default.
      [`127.0.0.1:${h.http.port}`, 403],
    ];
    const got: [string, number][] = [];
    for (const [host] of cases)
      got.push([host, (await initialize(h.http.url, { Host: host })).status]);
    expect(got).toEqual(cases);
  });

  it("admits an Origin whose host is listed, refuses others", async () => {
    const ok = await initialize(h.http.url, {
      Host: "mcp.example.org",
      Origin: "https://mcp.example.org",
    });
    expect(ok.status).toBe(200);
    const foreign = await initialize(h.http.url, {
      Host: "mcp.example.org",
      Origin: "https://evil.example.com",
    });
    expect(foreign.status).toBe(403);
  });
});

describe("a non-loopback bind behind a token, without MCP_ALLOWED_HOSTS/ORIGINS", () => {
  let h: HttpHarness;
  beforeAll(async () => {
    h = await startHttpHarness({
      env: { MCP_HTTP_HOST: "0.0.0.0", MCP_AUTH_TOKEN: "t0ken-t0ken-t0ken" },
    });
  });
  afterAll(() => h.close());

  it("checks no Host (the token protects it); admits same-origin requests only", async () => {
    const url = `http://127.0.0.1:${h.http.port}`;
    const auth = { Authorization: "Bearer t0ken-t0ken-t0ken", Host: "pubmed.example.org" };
    expect((await initialize(url, auth)).status).toBe(200);
    const sameOrigin = await initialize(url, { ...auth, Origin: "https://pubmed.example.org" });
    expect(sameOrigin.status).toBe(200);
    const crossOrigin = await initialize(url, { ...auth, Origin: "https://app.example.org" });
    expect(crossOrigin.status).toBe(403);
    expect(errorOf(crossOrigin.text).message).toContain("MCP_ALLOWED_ORIGINS");
  });
});
