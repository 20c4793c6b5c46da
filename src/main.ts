#!/usr/bin/env node
/**
 * Entry point: `pubmed-mcp [serve [--http]]`. Loads the configuration (exit 1 listing every
 * problem), initialises state once, then serves over stdio (default) or HTTP.
 */
import { ConfigError, loadConfig, type Config } from "./config.js";
import { log } from "./log.js";
import { createServer } from "./server.js";
import { closeState, initState } from "./state.js";

const USAGE = `Usage:
  pubmed-mcp                 serve MCP over stdio (same as \`pubmed-mcp serve\`)
  pubmed-mcp serve [--http]  serve over stdio, or Streamable HTTP with --http (or MCP_TRANSPORT=http)
  pubmed-mcp --help          this text
Configuration is read from the environment; see README.md.`;

async function serve(config: Config): Promise<void> {
  await initState(config);
  const server = createServer();
  if (config.transport === "stdio") {
    await server.start({ transportType: "stdio" });
    log.info("pubmed-mcp serving on stdio");
  } else {
    await server.start({
      transportType: "httpStream",
      httpStream: { host: config.http.host, port: config.http.port, endpoint: "/mcp" },
    });
    log.info("pubmed-mcp serving over HTTP", { host: config.http.host, port: config.http.port });
  }
  const stop = async () => {
    await server.stop().catch(() => undefined);
    await closeState();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

async function main(argv: string[]): Promise<void> {
  const [command = "serve", ...rest] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  if (command !== "serve") {
    process.stderr.write(`Unknown command "${command}".\n${USAGE}\n`);
    process.exit(2);
  }
  const overrides = rest.includes("--http") ? { MCP_TRANSPORT: "http" } : {};
  let config: Config;
  try {
    config = loadConfig(process.env, overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`pubmed-mcp: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  await serve(config);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  log.error("pubmed-mcp failed to start", {
    error: err instanceof Error ? err.message : String(err),
  });
  process.exit(1);
});
