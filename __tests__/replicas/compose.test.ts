/**
 * The two-replica deployment of docker-compose.yml, checked where it is written (no Docker engine
 * runs in CI): replicas behind one published port, routed so a session stays on the replica that
 * created it, sharing the Postgres that carries their common NCBI budget.
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

describe("docker-compose.yml: replicas behind one port", () => {
  const compose = read("docker-compose.yml");
  const server = service(compose, "pubmed-mcp");
  const lb = service(compose, "lb");

  it("runs two server replicas on one Postgres, published only through the balancer", () => {
    expect(server).toMatch(/\n {4}deploy:\n {6}replicas: \$\{PUBMED_MCP_REPLICAS:-2\}/);
    expect(server).not.toMatch(/\n {4}ports:/);
    expect(server).toMatch(/DATABASE_URL: postgres:\/\/\S+@postgres:5432\//);
    expect(lb).toMatch(/\n {4}ports:\n {6}- "\$\{MCP_PUBLISHED_PORT:-3000\}:3000"/);
    expect(lb).toMatch(/\.\/deploy\/haproxy\.cfg:\/usr\/local\/etc\/haproxy\/haproxy\.cfg:ro/);
    expect(lb).toMatch(/pubmed-mcp:\n\s+condition: service_healthy/);
    expect(lb).toMatch(/\n {4}healthcheck:/);
  });

  it("keeps each MCP session on the replica that answered its initialize", () => {
    const cfg = read("deploy/haproxy.cfg");
    const backend = cfg.slice(cfg.indexOf("\nbackend replicas\n"));
    // Learned from the reply that hands out the id, matched on the header clients send back.
    expect(backend).toMatch(/^\s+stick store-response res\.hdr\(mcp-session-id\)$/m);
    expect(backend).toMatch(/^\s+stick match req\.hdr\(mcp-session-id\)$/m);
    expect(cfg).toMatch(/^\s+bind :3000$/m);
    // Every replica the compose file can start has a slot, found through Compose's DNS.
    expect(cfg).toMatch(/server-template pubmed-mcp \d+ pubmed-mcp:3000 check resolvers docker/);
    expect(cfg).toMatch(/nameserver dns 127\.0\.0\.11:53/);
  });
});
