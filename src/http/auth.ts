/**
 * Bearer authentication for the MCP routes: the static MCP_AUTH_TOKEN and/or JWTs (HS256 with
 * MCP_AUTH_JWT_SECRET, or keys from MCP_AUTH_JWKS_URL) with audience, issuer and expiry checks;
 * and the OAuth protected-resource metadata (RFC 9728) that tells clients where to get tokens.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from "jose";
import type { HttpConfig, JwtConfig } from "../config.js";
import { log } from "../log.js";
import { SERVER_NAME } from "../server.js";
import { sendRpcError } from "./guards.js";

export const PRM_PATH = "/.well-known/oauth-protected-resource";

/** Who a request authenticated as; a session is bound to the principal that opened it. */
export interface Principal {
  id: string;
  info: AuthInfo | undefined;
}

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: string[];
  resource_name: string;
}

export interface Authenticator {
  /** The principal, or undefined once a 401/503 has been answered. */
  authenticate: (req: IncomingMessage, res: ServerResponse) => Promise<Principal | undefined>;
  /** RFC 9728 metadata for PRM_PATH and its /mcp, /sse suffixed forms, when configured. */
  metadataFor: (path: string) => ProtectedResourceMetadata | undefined;
}

const ANONYMOUS: Principal = { id: "anonymous", info: undefined };

/** Asymmetric algorithms only for JWKS keys: no HS* confusion with a public key as secret. */
const JWKS_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
];

/** Clock skew tolerated on exp/nbf/iat, in seconds. */
const CLOCK_TOLERANCE_S = 30;

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Both sides are hashed first so the comparison is constant-time whatever the lengths. */
const sameToken = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

type Verify = (token: string) => Promise<JWTPayload>;

function jwtVerifier(jwt: JwtConfig): Verify {
  const options = {
    audience: jwt.audience,
    issuer: jwt.issuer,
    clockTolerance: CLOCK_TOLERANCE_S,
    requiredClaims: ["exp"],
  };
  if (jwt.secret !== undefined) {
    const key = new TextEncoder().encode(jwt.secret);
    return async (token) =>
      (await jwtVerify(token, key, { ...options, algorithms: ["HS256"] })).payload;
  }
  // Keys are fetched on first use, cached, and refetched when a token names an unknown kid.
  const keys = createRemoteJWKSet(new URL(jwt.jwksUrl!), { timeoutDuration: 5000 });
  return async (token) =>
    (await jwtVerify(token, keys, { ...options, algorithms: JWKS_ALGORITHMS })).payload;
}

/** Why a token was refused, in words safe to return (RFC 6750 error_description). */
function refusal(err: unknown): string | undefined {
  if (err instanceof errors.JWTExpired) return "the token has expired";
  if (err instanceof errors.JWTClaimValidationFailed)
    return `the token's "${err.claim}" claim is not accepted here`;
  if (err instanceof errors.JWKSNoMatchingKey) return "the token is signed with an unknown key";
  if (err instanceof errors.JOSEAlgNotAllowed)
    return "the token's signing algorithm is not accepted";
  // The key set could not be fetched or read (timeout, non-200, not a JWKS): not the client's fault.
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) return undefined;
  if (err instanceof errors.JOSEError && !/JSON Web Key Set/.test(err.message))
    return "the token is not a valid signed JWT";
  return undefined;
}

function principalOf(token: string, payload: JWTPayload): Principal {
  const clientId = [payload.client_id, payload.azp, payload.sub].find(
    (v): v is string => typeof v === "string",
  );
  const scope = typeof payload.scope === "string" ? payload.scope.split(" ") : [];
  return {
    id: `jwt:${payload.iss ?? ""}:${payload.sub ?? clientId ?? ""}`,
    info: {
      token,
      clientId: clientId ?? "unknown",
      scopes: scope.filter(Boolean),
      expiresAt: payload.exp,
      extra: { sub: payload.sub, iss: payload.iss },
    },
  };
}

export function createAuthenticator(http: HttpConfig): Authenticator {
  const { authToken, jwt, publicUrl, authorizationServers } = http;
  const verify = jwt ? jwtVerifier(jwt) : undefined;
  const prmUrl = authorizationServers && publicUrl ? `${publicUrl}${PRM_PATH}` : undefined;

  const challenge = (error?: string, description?: string) =>
    [
      `Bearer realm="${SERVER_NAME}"`,
      ...(prmUrl ? [`resource_metadata="${prmUrl}"`] : []),
      ...(error ? [`error="${error}"`] : []),
      ...(description ? [`error_description="${description}"`] : []),
    ].join(", ");

  const unauthorized = (res: ServerResponse, presented: boolean, reason?: string) => {
    const what = jwt
      ? `a JWT issued by ${jwt.issuer} for ${jwt.audience}${authToken ? " or MCP_AUTH_TOKEN" : ""}`
      : "<MCP_AUTH_TOKEN>";
    const message = presented
      ? `Unauthorized: the bearer token was refused${reason ? `: ${reason}` : ""}`
      : `Unauthorized: send Authorization: Bearer ${what}`;
    // RFC 6750 §3.1: no error code when the request carried no credentials at all.
    const header = presented ? challenge("invalid_token", reason) : challenge();
    sendRpcError(res, 401, -32001, message, { "WWW-Authenticate": header });
  };

  const authenticate = async (
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<Principal | undefined> => {
    if (authToken === undefined && !verify) return ANONYMOUS;
    const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
    const token = match?.[1]?.trim() ?? "";
    if (!token) return void unauthorized(res, false);
    if (authToken !== undefined && sameToken(token, authToken)) {
      return { id: "token", info: { token, clientId: "static-token", scopes: [] } };
    }
    if (!verify) return void unauthorized(res, true);
    try {
      return principalOf(token, await verify(token));
    } catch (err) {
      const reason = refusal(err);
      if (reason !== undefined) return void unauthorized(res, true, reason);
      log.warn("JWT verification unavailable", {
        error: err instanceof Error ? err.message : String(err),
      });
      sendRpcError(res, 503, -32000, "Cannot verify bearer tokens right now; retry shortly", {
        "Retry-After": "5",
      });
      return undefined;
    }
  };

  const prm: ProtectedResourceMetadata | undefined =
    prmUrl && publicUrl && authorizationServers
      ? {
          resource: publicUrl,
          authorization_servers: authorizationServers,
          bearer_methods_supported: ["header"],
          resource_name: SERVER_NAME,
        }
      : undefined;
  const prmPaths = [PRM_PATH, `${PRM_PATH}/mcp`, `${PRM_PATH}/sse`];
  const metadataFor = (path: string) => (prmPaths.includes(path) ? prm : undefined);

  return { authenticate, metadataFor };
}
