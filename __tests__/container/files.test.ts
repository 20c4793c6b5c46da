/**
 * No Docker engine runs in CI, so the image's promises are checked where they are written: the
 * Dockerfile and docker-compose.yml. The production-install test exercises what they run.
 */
import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_DIR } from "../helpers/shared.js";

const read = (name: string) => readFileSync(join(REPO_DIR, name), "utf8");

/** The text of one top-level service block in docker-compose.yml. */
function service(compose: string, name: string): string {
  const start = compose.indexOf(`\n  ${name}:\n`);
  expect(start).toBeGreaterThan(-1);
  const rest = compose.slice(start + name.length + 5);
  const end = rest.search(/\n {2}\S|\n\S/);
  return end === -1 ? rest : rest.slice(0, end);
}

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));

  it("is multi-stage on Node 22 and ships production dependencies only, without TypeScript", () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^ARG NODE_VERSION=22$/m);
    expect(dockerfile.match(/^FROM node:\$\{NODE_VERSION\}-\S+ AS \w+$/gm)?.length).toBe(
      dockerfile.match(/^FROM /gm)?.length,
    );
    // The deps stage runs the script the production-install test runs.
    expect(dockerfile).toMatch(/^RUN sh scripts\/install-production\.sh/m);
    expect(read("scripts/install-production.sh")).toMatch(
      /^npm install --omit=dev --omit=peer .*$/m,
    );
    expect(runtime).not.toMatch(/npm (ci|install)/);
    expect(runtime).toMatch(/COPY --from=\S+ .*\/app\/dist/);
    expect(dockerfile).toMatch(/npm run build && rm -rf dist\/devtools/);
  });

  it("runs as a non-root user over HTTP on 0.0.0.0 with a /health HEALTHCHECK", () => {
    expect(runtime).toMatch(/^USER (?!root)\S+/m);
    expect(runtime).toMatch(/MCP_TRANSPORT=http/);
    expect(runtime).toMatch(/MCP_HTTP_HOST=0\.0\.0\.0/);
    expect(runtime).toMatch(/^HEALTHCHECK [\s\S]*\/health/m);
    expect(runtime).toMatch(/^CMD \["node", "dist\/main\.js", "serve", "--http"\]/m);
  });
});

describe("docker-compose.yml", () => {
  const compose = read("docker-compose.yml");

  it("runs the server against Postgres and Qdrant, started healthy first", () => {
    const server = service(compose, "pubmed-mcp");
    expect(server).toMatch(/DATABASE_URL: postgres:\/\/\S+@postgres:5432\//);
    expect(server).toMatch(/QDRANT_URL: http:\/\/qdrant:6333/);
    expect(server).toMatch(/postgres:\n\s+condition: service_healthy/);
    expect(server).toMatch(/qdrant:\n\s+condition: service_healthy/);
  });

  it("passes every authentication setting through and leaves the choice among them to the server", () => {
    const server = service(compose, "pubmed-mcp");
    // Any one of them satisfies the server's start-up rule on 0.0.0.0 (src/config-http.ts), so
    // compose demands none: `${VAR:?…}` on the static token would refuse a JWT-only deployment.
    for (const name of [
      "MCP_AUTH_TOKEN",
      "MCP_AUTH_JWT_SECRET",
      "MCP_AUTH_JWKS_URL",
      "MCP_AUTH_JWT_AUDIENCE",
      "MCP_AUTH_JWT_ISSUER",
      "MCP_AUTH_AUTHORIZATION_SERVERS",
      "MCP_ALLOWED_HOSTS",
      "MCP_PUBLIC_URL",
    ]) {
      expect([name, server.includes(`\n      ${name}: \${${name}:-}\n`)]).toEqual([name, true]);
    }
    expect(server).not.toMatch(/:\?/);
  });

  it("passes the optional upstream settings through", () => {
    const server = service(compose, "pubmed-mcp");
    for (const name of [
      "NCBI_API_KEY",
      "NCBI_EMAIL",
      "NCBI_MAX_RPS",
      "COHERE_API_KEY",
      "UNPAYWALL_EMAIL",
      "CROSSREF_MAILTO",
      "QDRANT_API_KEY",
    ]) {
      expect([name, server.includes(`\n      ${name}: \${${name}:-}\n`)]).toEqual([name, true]);
    }
  });

  it("gives the stores a volume and every service a health check; the replicas keep no volume", () => {
    for (const name of ["pubmed-mcp", "postgres", "qdrant"]) {
      const block = service(compose, name);
      expect([
        name,
        /\n {4}healthcheck:/.test(block),
        /\n {4}volumes:\n {6}- \S+:\//.test(block),
      ]).toEqual([name, true, name !== "pubmed-mcp"]);
    }
    expect(compose).not.toMatch(/pubmed-data/);
  });
});
