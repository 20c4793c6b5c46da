/**
 * The HTTP/auth configuration rules: no unauthenticated bind beyond loopback, the Host list's
 * defaults, and JWT/metadata settings that must come together — each refusal one ConfigError
 * listing every problem with what to set.
 */
import { describe, expect, it } from "@jest/globals";
import { ConfigError, loadConfig } from "../../src/config.js";

const http = (env: Record<string, string>) => loadConfig({ MCP_TRANSPORT: "http", ...env });

function problemsOf(env: Record<string, string>): string[] {
  try {
    http(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

const SECRET = "x".repeat(32);

describe("binding beyond loopback", () => {
  it("refuses 0.0.0.0 without auth or a Host list, saying what to set", () => {
    const problems = problemsOf({ MCP_HTTP_HOST: "0.0.0.0" });
    expect(problems).toEqual([expect.stringContaining("MCP_HTTP_HOST=0.0.0.0")]);
    for (const fix of [
      "MCP_AUTH_TOKEN",
      "MCP_AUTH_JWT_SECRET",
      "MCP_AUTH_JWKS_URL",
      "MCP_ALLOWED_HOSTS",
      "MCP_HTTP_HOST=127.0.0.1",
    ])
      expect(problems[0]).toContain(fix);
    // The same for `::` and a LAN address; loopback spellings are fine.
    expect(problemsOf({ MCP_HTTP_HOST: "::" })).toHaveLength(1);
    expect(problemsOf({ MCP_HTTP_HOST: "192.168.1.20" })).toHaveLength(1);
    for (const host of ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
      expect([host, problemsOf({ MCP_HTTP_HOST: host })]).toEqual([host, []]);
  });

  it("starts beyond loopback with a token, a JWT secret or an explicit Host list", () => {
    expect(problemsOf({ MCP_HTTP_HOST: "0.0.0.0", MCP_AUTH_TOKEN: "t" })).toEqual([]);
    expect(
      problemsOf({
        MCP_HTTP_HOST: "0.0.0.0",
        MCP_AUTH_JWT_SECRET: SECRET,
        MCP_AUTH_JWT_AUDIENCE: "a",
        MCP_AUTH_JWT_ISSUER: "i",
      }),
    ).toEqual([]);
    const listed = http({ MCP_HTTP_HOST: "0.0.0.0", MCP_ALLOWED_HOSTS: "pubmed.example.org" });
    expect(listed.http.allowedHosts).toEqual(["pubmed.example.org"]);
  });

  it("does not apply to stdio", () => {
    expect(loadConfig({ MCP_HTTP_HOST: "0.0.0.0" }).transport).toBe("stdio");
  });

  it("lists the exposure problem together with every other problem", () => {
    const problems = problemsOf({ MCP_HTTP_HOST: "0.0.0.0", MCP_ALLOWED_HOSTS: "a b, ok.example" });
    expect(problems).toEqual([expect.stringContaining('MCP_ALLOWED_HOSTS entry "a b"')]);
    const many = problemsOf({ MCP_HTTP_HOST: "0.0.0.0", MCP_AUTH_JWT_AUDIENCE: "a" });
    expect(many).toEqual([
      expect.stringContaining("MCP_AUTH_JWT_AUDIENCE needs MCP_AUTH_JWT_SECRET"),
      expect.stringContaining("MCP_HTTP_HOST=0.0.0.0"),
    ]);
  });
});

describe("the Host list", () => {
  it("defaults to the loopback names on a loopback bind, plus MCP_PUBLIC_URL's host", () => {
    expect(http({}).http.allowedHosts).toEqual(["localhost", "127.0.0.1", "[::1]"]);
    expect(http({ MCP_PUBLIC_URL: "https://pubmed.example.org:8443/" }).http.allowedHosts).toEqual([
      "localhost",
      "127.0.0.1",
      "[::1]",
      "pubmed.example.org:8443",
    ]);
  });

  it("is exactly MCP_ALLOWED_HOSTS when set, normalised to lower case", () => {
    expect(
      http({ MCP_ALLOWED_HOSTS: "Pubmed.Example.org, [::1]:3000 ,x.internal:80" }).http
        .allowedHosts,
    ).toEqual(["pubmed.example.org", "[::1]:3000", "x.internal:80"]);
  });

  it("is off on a non-loopback bind behind auth without MCP_ALLOWED_HOSTS", () => {
    expect(
      http({ MCP_HTTP_HOST: "0.0.0.0", MCP_AUTH_TOKEN: "t" }).http.allowedHosts,
    ).toBeUndefined();
  });
});

describe("JWT and protected-resource metadata settings", () => {
  it("defaults the audience to MCP_PUBLIC_URL and the issuer to the only authorization server", () => {
    const config = http({
      MCP_AUTH_JWT_SECRET: SECRET,
      MCP_PUBLIC_URL: "https://pubmed.example.org/",
      MCP_AUTH_AUTHORIZATION_SERVERS: "https://auth.example.org",
    });
    expect(config.http.jwt).toEqual({
      secret: SECRET,
      jwksUrl: undefined,
      audience: "https://pubmed.example.org",
      issuer: "https://auth.example.org",
    });
    expect(config.http.publicUrl).toBe("https://pubmed.example.org");
    expect(config.http.authorizationServers).toEqual(["https://auth.example.org"]);
  });

  it("requires an audience and an issuer it cannot derive, and a 256-bit secret", () => {
    expect(problemsOf({ MCP_AUTH_JWKS_URL: "https://idp.example.org/jwks" })).toEqual([
      expect.stringMatching(/MCP_AUTH_JWKS_URL needs MCP_AUTH_JWT_AUDIENCE .* or MCP_PUBLIC_URL/),
      expect.stringMatching(/MCP_AUTH_JWKS_URL needs MCP_AUTH_JWT_ISSUER/),
    ]);
    expect(problemsOf({ MCP_AUTH_JWT_SECRET: "short" })).toEqual([
      expect.stringContaining("MCP_AUTH_JWT_SECRET must be at least 32 characters"),
    ]);
  });

  it("refuses contradictory or incomplete combinations", () => {
    expect(
      problemsOf({
        MCP_AUTH_JWT_SECRET: SECRET,
        MCP_AUTH_JWKS_URL: "https://idp.example.org/jwks",
      }),
    ).toEqual([expect.stringContaining("set only one of MCP_AUTH_JWT_SECRET")]);
    expect(
      problemsOf({ MCP_AUTH_AUTHORIZATION_SERVERS: "https://auth.example.org, not a url" }),
    ).toEqual([
      expect.stringContaining('"not a url" must be an http(s) URL'),
      expect.stringContaining("MCP_AUTH_AUTHORIZATION_SERVERS needs MCP_PUBLIC_URL"),
      expect.stringContaining(
        "MCP_AUTH_AUTHORIZATION_SERVERS needs MCP_AUTH_JWKS_URL or MCP_AUTH_JWT_SECRET",
      ),
    ]);
  });

  it("reads the session limits", () => {
    const config = http({ MCP_SESSION_IDLE_SECONDS: "60", MCP_MAX_SESSIONS: "5" });
    expect([config.http.sessionIdleMs, config.http.maxSessions]).toEqual([60_000, 5]);
    expect([http({}).http.sessionIdleMs, http({}).http.maxSessions]).toEqual([1_800_000, 1000]);
  });
});
