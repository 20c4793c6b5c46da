/**
 * JWT bearer tokens (HS256 secret; a JWKS served on loopback) with audience, issuer and expiry
 * checks, next to the static token; the RFC 9728 protected-resource metadata and the
 * WWW-Authenticate challenge that points to it; sessions bound to the principal that opened them.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT, UnsecuredJWT, exportJWK, generateKeyPair, type CryptoKey } from "jose";
import { onUtility } from "../helpers/fake-eutils.js";
import {
  ESPELL_XML,
  connectSse,
  connectStreamable,
  initializeMessage,
  rawRequest,
  startHttpHarness,
  type HttpHarness,
} from "./harness.js";

const SECRET = "a-test-secret-of-at-least-32-characters!";
const PUBLIC_URL = "https://pubmed.example.org";
const ISSUER = "https://auth.example.org";
const STATIC = "static-token-for-jwt-tests";
const PRM = `${PUBLIC_URL}/.well-known/oauth-protected-resource`;

type Claims = { sub?: string; aud?: string; iss?: string; exp?: number | null };

async function sign(key: Uint8Array | CryptoKey, alg: string, claims: Claims = {}, kid?: string) {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ scope: "pubmed:read" })
    .setProtectedHeader({ alg, ...(kid ? { kid } : {}) })
    .setSubject(claims.sub ?? "alice")
    .setAudience(claims.aud ?? PUBLIC_URL)
    .setIssuer(claims.iss ?? ISSUER)
    .setIssuedAt(now);
  if (claims.exp !== null) jwt.setExpirationTime(claims.exp ?? now + 600);
  return jwt.sign(key);
}

const hs = (claims?: Claims, secret = SECRET) =>
  sign(new TextEncoder().encode(secret), "HS256", claims);

describe("HS256 tokens with protected-resource metadata", () => {
  let h: HttpHarness;
  const init = (token?: string, extra: Record<string, string> = {}) =>
    rawRequest(`${h.http.url}/mcp`, {
      body: initializeMessage(),
      headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra },
    });

  beforeAll(async () => {
    h = await startHttpHarness({
      routes: [onUtility("espell", { body: ESPELL_XML })],
      env: {
        MCP_AUTH_JWT_SECRET: SECRET,
        MCP_PUBLIC_URL: PUBLIC_URL, // the audience defaults to it
        MCP_AUTH_AUTHORIZATION_SERVERS: ISSUER, // the issuer defaults to the only one
        MCP_AUTH_TOKEN: STATIC,
      },
    });
  });
  afterAll(() => h.close());

  it("serves a valid token over Streamable HTTP and SSE through the SDK clients", async () => {
    const token = await hs();
    for (const connect of [connectStreamable, connectSse]) {
      const client = await connect(h.http.url, token);
      const res = await client.callTool({
        name: "pubmed_spell",
        arguments: { query: "asthmaa childrn" },
      });
      expect(res.structuredContent).toMatchObject({ corrected: "asthma children" });
      await client.close();
    }
  });

  it("still accepts the static token", async () => {
    expect((await init(STATIC)).status).toBe(200);
  });

  it("challenges a request without a token, pointing at the metadata, with no error code", async () => {
    const res = await init();
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toBe(
      `Bearer realm="pubmed-mcp", resource_metadata="${PRM}"`,
    );
    expect(JSON.parse(res.text).error.message).toContain(`a JWT issued by ${ISSUER}`);
  });

  it("refuses expired, wrong-audience, wrong-issuer, non-expiring, badly signed and unsigned tokens", async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string, string][] = [
      ["expired", await hs({ exp: now - 3600 }), "the token has expired"],
      ["audience", await hs({ aud: "https://other.example.org" }), `the token's "aud" claim`],
      ["issuer", await hs({ iss: "https://evil.example.com" }), `the token's "iss" claim`],
      ["no exp", await hs({ exp: null }), `the token's "exp" claim`],
      [
        "other secret",
        await hs({}, "another-secret-of-at-least-32-characters"),
        "the token is not a valid signed JWT",
      ],
      [
        "unsigned",
        new UnsecuredJWT({})
          .setSubject("alice")
          .setAudience(PUBLIC_URL)
          .setIssuer(ISSUER)
          .setExpirationTime("10m")
          .encode(),
        "the token's signing algorithm is not accepted",
      ],
    ];
    for (const [what, token, reason] of cases) {
      const res = await init(token);
      expect([what, res.status]).toEqual([what, 401]);
      const challenge = res.headers["www-authenticate"] ?? "";
      expect([what, challenge]).toEqual([
        what,
        expect.stringContaining(
          `resource_metadata="${PRM}", error="invalid_token", error_description="${reason}`,
        ),
      ]);
      expect(JSON.parse(res.text).error).toEqual({
        code: -32001,
        message: expect.stringContaining(reason),
      });
    }
  });

  it("serves RFC 9728 metadata at the root and path-suffixed well-known URIs, without a token", async () => {
    const expected = {
      resource: PUBLIC_URL,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ["header"],
      resource_name: "pubmed-mcp",
    };
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]) {
      const res = await fetch(`${h.http.url}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
      expect(await res.json()).toEqual(expected);
    }
    const post = await fetch(`${h.http.url}/.well-known/oauth-protected-resource`, {
      method: "POST",
    });
    expect(post.status).toBe(405);
  });

  it("binds a session to the subject that opened it", async () => {
    const alice = await hs({ sub: "alice" });
    const opened = await init(alice);
    const id = opened.headers["mcp-session-id"] as string;
    expect(id).toBeTruthy();
    const list = (token: string) =>
      rawRequest(`${h.http.url}/mcp`, {
        body: { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
        headers: { Authorization: `Bearer ${token}`, "Mcp-Session-Id": id },
      });
    expect((await list(await hs({ sub: "bob" }))).status).toBe(404);
    expect((await list(STATIC)).status).toBe(404);
    expect((await list(alice)).status).toBe(200);
  });
});

/** A JWKS endpoint on loopback, as an identity provider publishes its signing keys. */
async function startJwks(keys: object[]): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, server };
}

describe("tokens verified against a JWKS", () => {
  const AUDIENCE = "https://pubmed.example.org/mcp";
  const IDP = "https://idp.example.org";
  let h: HttpHarness;
  let jwks: Server;
  let signing: CryptoKey;
  let stranger: CryptoKey;
  const es = (key: CryptoKey, claims: Claims = {}, kid = "k1") =>
    sign(key, "ES256", { aud: AUDIENCE, iss: IDP, ...claims }, kid);
  const init = (token: string) =>
    rawRequest(`${h.http.url}/mcp`, {
      body: initializeMessage(),
      headers: { Authorization: `Bearer ${token}` },
    });

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256");
    signing = pair.privateKey;
    stranger = (await generateKeyPair("ES256")).privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    const served = await startJwks([jwk]);
    jwks = served.server;
    h = await startHttpHarness({
      env: {
        MCP_AUTH_JWKS_URL: served.url,
        MCP_AUTH_JWT_AUDIENCE: AUDIENCE,
        MCP_AUTH_JWT_ISSUER: IDP,
      },
    });
  });
  afterAll(async () => {
    await h.close();
    await new Promise((r) => jwks.close(r));
  });

  it("accepts a token signed with a published key", async () => {
    expect((await init(await es(signing))).status).toBe(200);
  });

  it("reports in resource://pubmed/info that auth is required when only JWTs would do", async () => {
    const client = await connectStreamable(h.http.url, await es(signing));
    const res = await client.readResource({ uri: "resource://pubmed/info" });
    const text = res.contents[0] && "text" in res.contents[0] ? res.contents[0].text : "";
    expect(JSON.parse(text).http).toMatchObject({ authRequired: true });
    await client.close();
  });

  it("refuses a token from another key, an unknown kid, an HS256 token and a wrong audience", async () => {
    const cases: [string, string, string][] = [
      ["stranger's key", await es(stranger), "the token is not a valid signed JWT"],
      ["unknown kid", await es(stranger, {}, "k2"), "unknown key"],
      [
        "HS256",
        await sign(new TextEncoder().encode(SECRET), "HS256", { aud: AUDIENCE, iss: IDP }),
        "algorithm",
      ],
      ["audience", await es(signing, { aud: PUBLIC_URL }), `"aud" claim`],
    ];
    for (const [what, token, reason] of cases) {
      const res = await init(token);
      expect([what, res.status, JSON.parse(res.text).error.message]).toEqual([
        what,
        401,
        expect.stringContaining(reason),
      ]);
      // No metadata configured: the challenge names no resource_metadata.
      expect(res.headers["www-authenticate"]).not.toContain("resource_metadata");
    }
  });

  it("serves no protected-resource metadata when no authorization server is configured", async () => {
    expect((await fetch(`${h.http.url}/.well-known/oauth-protected-resource`)).status).toBe(404);
  });
});

describe("an unreachable JWKS", () => {
  let h: HttpHarness;
  beforeAll(async () => {
    const closed = await startJwks([]);
    const url = closed.url;
    await new Promise((r) => closed.server.close(r)); // nothing listens there now
    h = await startHttpHarness({
      env: { MCP_AUTH_JWKS_URL: url, MCP_AUTH_JWT_AUDIENCE: "a", MCP_AUTH_JWT_ISSUER: "i" },
    });
  });
  afterAll(() => h.close());

  it("answers 503 with Retry-After (the client's token may be fine), not 401", async () => {
    const key = (await generateKeyPair("ES256")).privateKey;
    const token = await sign(key, "ES256", { aud: "a", iss: "i" }, "k1");
    const res = await rawRequest(`${h.http.url}/mcp`, {
      body: initializeMessage(),
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("5");
  });
});
