/**
 * The HTTP front's settings (transport, DNS-rebinding guard, bearer/JWT auth, OAuth metadata,
 * sessions) from already-parsed variables, and the cross-variable rules that keep it safe by
 * default. Only config.ts calls this; see docs/http-and-container.md for what each one means.
 */

/** The variables this part reads, as config.ts's schema parsed them. */
export interface HttpEnv {
  MCP_TRANSPORT: "stdio" | "http";
  MCP_HTTP_HOST: string;
  MCP_HTTP_PORT: number;
  MCP_AUTH_TOKEN?: string | undefined;
  MCP_ALLOWED_ORIGINS?: string | undefined;
  MCP_ALLOWED_HOSTS?: string | undefined;
  MCP_PUBLIC_URL?: string | undefined;
  MCP_AUTH_JWT_SECRET?: string | undefined;
  MCP_AUTH_JWKS_URL?: string | undefined;
  MCP_AUTH_JWT_AUDIENCE?: string | undefined;
  MCP_AUTH_JWT_ISSUER?: string | undefined;
  MCP_AUTH_AUTHORIZATION_SERVERS?: string | undefined;
  MCP_SESSION_IDLE_SECONDS: number;
  MCP_MAX_SESSIONS: number;
}

export interface JwtConfig {
  /** HS256 shared secret; exactly one of secret and jwksUrl is set. */
  secret: string | undefined;
  jwksUrl: string | undefined;
  audience: string;
  issuer: string;
}

export interface HttpConfig {
  host: string;
  port: number;
  authToken: string | undefined;
  allowedOrigins: string[] | undefined;
  /**
   * Host header values accepted ("name" matches any port, "name:port" one port), lower-case;
   * undefined = no Host check (a non-loopback bind behind auth, without MCP_ALLOWED_HOSTS).
   */
  allowedHosts: string[] | undefined;
  /** The externally visible base URL (no trailing slash): the OAuth resource identifier. */
  publicUrl: string | undefined;
  jwt: JwtConfig | undefined;
  /** Issuer URLs named in the protected-resource metadata; undefined = no metadata served. */
  authorizationServers: string[] | undefined;
  sessionIdleMs: number;
  maxSessions: number;
}

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** The Host names a loopback bind accepts by default (the conformance suite's list). */
export const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

function isHttpUrl(value: string): boolean {
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}

const list = (v: string | undefined) =>
  v
    ?.split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/**
 * "name" or "name:port" as a Host header carries it (lower-case; an explicit port is kept even
 * when it is the default one), or undefined when it is not one.
 */
export function normalizeHost(value: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/?#@\s]+)(?::(\d{1,5}))?$/.exec(value);
  if (!m?.[1]) return undefined;
  try {
    const { hostname } = new URL(`http://${m[1]}`);
    return m[2] ? `${hostname}:${Number(m[2])}` : hostname;
  } catch {
    return undefined;
  }
}

export function httpConfig(e: HttpEnv, problems: string[]): HttpConfig {
  const publicUrl = e.MCP_PUBLIC_URL?.replace(/\/+$/, "");
  const allowedHosts: string[] = [];
  for (const entry of list(e.MCP_ALLOWED_HOSTS) ?? []) {
    const host = normalizeHost(entry);
    if (host) allowedHosts.push(host);
    else problems.push(`MCP_ALLOWED_HOSTS entry "${entry}" is not a host name or host:port`);
  }
  const loopback = isLoopback(e.MCP_HTTP_HOST);
  const publicHost = publicUrl ? new URL(publicUrl).host : undefined;
  const hosts =
    e.MCP_ALLOWED_HOSTS !== undefined
      ? allowedHosts
      : loopback
        ? [...LOOPBACK_HOSTS, ...(publicHost ? [publicHost] : [])]
        : undefined;

  const jwtSource = e.MCP_AUTH_JWT_SECRET ?? e.MCP_AUTH_JWKS_URL;
  const servers = list(e.MCP_AUTH_AUTHORIZATION_SERVERS);
  for (const s of servers ?? []) {
    if (!isHttpUrl(s))
      problems.push(`MCP_AUTH_AUTHORIZATION_SERVERS entry "${s}" must be an http(s) URL`);
  }
  let jwt: JwtConfig | undefined;
  if (e.MCP_AUTH_JWT_SECRET && e.MCP_AUTH_JWKS_URL) {
    problems.push("set only one of MCP_AUTH_JWT_SECRET (HS256) and MCP_AUTH_JWKS_URL");
  } else if (jwtSource) {
    const name = e.MCP_AUTH_JWT_SECRET ? "MCP_AUTH_JWT_SECRET" : "MCP_AUTH_JWKS_URL";
    // Audience binding (RFC 8707, MCP authorization): a token minted for another service must
    // not open this one, so there is no "any audience" default.
    const audience = e.MCP_AUTH_JWT_AUDIENCE ?? publicUrl;
    const issuer = e.MCP_AUTH_JWT_ISSUER ?? (servers?.length === 1 ? servers[0] : undefined);
    if (!audience)
      problems.push(
        `${name} needs MCP_AUTH_JWT_AUDIENCE (the "aud" this server accepts) or MCP_PUBLIC_URL (the audience then defaults to it)`,
      );
    if (!issuer)
      problems.push(
        `${name} needs MCP_AUTH_JWT_ISSUER (the "iss" this server accepts), or exactly one MCP_AUTH_AUTHORIZATION_SERVERS entry to default to`,
      );
    if (audience && issuer)
      jwt = {
        secret: e.MCP_AUTH_JWT_SECRET,
        jwksUrl: e.MCP_AUTH_JWKS_URL,
        audience,
        issuer,
      };
  } else {
    for (const v of ["MCP_AUTH_JWT_AUDIENCE", "MCP_AUTH_JWT_ISSUER"] as const) {
      if (e[v]) problems.push(`${v} needs MCP_AUTH_JWT_SECRET or MCP_AUTH_JWKS_URL`);
    }
  }
  if (servers) {
    if (!publicUrl)
      problems.push(
        "MCP_AUTH_AUTHORIZATION_SERVERS needs MCP_PUBLIC_URL (the resource the metadata describes)",
      );
    if (!jwtSource)
      problems.push(
        "MCP_AUTH_AUTHORIZATION_SERVERS needs MCP_AUTH_JWKS_URL or MCP_AUTH_JWT_SECRET to verify the tokens those servers issue",
      );
  }

  const authConfigured = e.MCP_AUTH_TOKEN !== undefined || jwtSource !== undefined;
  if (e.MCP_TRANSPORT === "http") {
    const problem = exposureProblem(e.MCP_HTTP_HOST, authConfigured, hosts);
    if (problem) problems.push(problem);
  }
  return {
    host: e.MCP_HTTP_HOST,
    port: e.MCP_HTTP_PORT,
    authToken: e.MCP_AUTH_TOKEN,
    allowedOrigins: list(e.MCP_ALLOWED_ORIGINS),
    allowedHosts: hosts,
    publicUrl,
    jwt,
    authorizationServers: servers,
    sessionIdleMs: e.MCP_SESSION_IDLE_SECONDS * 1000,
    maxSessions: e.MCP_MAX_SESSIONS,
  };
}

/**
 * A bind other machines can reach needs authentication or an explicit Host list: without either,
 * anyone on the network (or a rebinding web page) could call every tool.
 */
function exposureProblem(
  host: string,
  authConfigured: boolean,
  allowedHosts: readonly string[] | undefined,
): string | undefined {
  if (isLoopback(host) || authConfigured || allowedHosts !== undefined) return undefined;
  return (
    `MCP_HTTP_HOST=${host} serves MCP beyond this machine without authentication: ` +
    "set MCP_AUTH_TOKEN (or MCP_AUTH_JWT_SECRET / MCP_AUTH_JWKS_URL) to require a bearer token, " +
    "or MCP_ALLOWED_HOSTS to the host names clients use (e.g. pubmed.example.org) when a proxy in front authenticates, " +
    "or MCP_HTTP_HOST=127.0.0.1 to serve this machine only"
  );
}

/** The same rule for a Config built by hand (startHttpServer checks what it is given). */
export function httpProblems(http: HttpConfig): string[] {
  const authConfigured = http.authToken !== undefined || http.jwt !== undefined;
  const problem = exposureProblem(http.host, authConfigured, http.allowedHosts);
  return problem ? [problem] : [];
}
