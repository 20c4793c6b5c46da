/**
 * The command line, run by the entry point (src/main.ts) once start-up is prepared:
 * `pubmed-mcp [serve [--http]]`, and the corpus commands `sync`, `search`, `reindex`.
 * Loads the configuration (exit 1 listing every problem), initialises state once, then serves
 * over stdio (default) or HTTP, or runs the command.
 *
 * Each path imports only what it uses: a stdio session never loads the HTTP server (hono, jose)
 * and no server loads the corpus CLI (which reaches the store, Cohere and Qdrant clients), so an
 * IDE's stdio start-up pays for neither (issue 11; __tests__/startup/lazy-modules.test.ts).
 */
import { ConfigError, loadConfig, type Config } from "./config.js";
import { toEnvelope } from "./errors.js";
import { log } from "./log.js";
import { closeState, getCorpusHost, initState } from "./state.js";

const USAGE = `Usage:
  pubmed-mcp                 serve MCP over stdio (same as \`pubmed-mcp serve\`)
  pubmed-mcp serve [--http]  serve over stdio, or HTTP with --http (or MCP_TRANSPORT=http):
                             Streamable HTTP at /mcp, SSE at /sse, /health, /readyz
  pubmed-mcp sync --query-key K --term T [--overlap-days N] [--max-records N] [--json]
                             sync a query into the local corpus (progress bar on a TTY)
  pubmed-mcp search "…" [--top-k N] [--no-quality-bias] [--json]
                             search the local corpus
  pubmed-mcp reindex [--json]
                             rebuild the index with the configured embedder
                             (EMBEDDINGS_PROVIDER=none: lexical only, no vectors)
  pubmed-mcp --help          this text
Configuration is read from the environment; see README.md.`;

/** stdio: one session for the life of the process; it ends when the client closes stdin. */
async function serveStdio(stop: () => Promise<void>): Promise<() => Promise<void>> {
  const [{ createSession }, { StdioTransport }] = await Promise.all([
    import("./server.js"),
    import("./protocol/stdio.js"),
  ]);
  const session = createSession();
  await session.connect(new StdioTransport());
  process.stdin.once("end", stop);
  process.stdin.once("close", stop);
  log.info("pubmed-mcp serving on stdio");
  return () => session.close();
}

async function serve(config: Config): Promise<void> {
  await initState(config);
  let closeTransport = async () => {};
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await closeTransport().catch(() => undefined);
    await closeState();
    process.exit(0);
  };
  if (config.transport === "stdio") {
    closeTransport = await serveStdio(stop);
  } else {
    const { startHttpServer } = await import("./http/server.js");
    const http = await startHttpServer(config);
    closeTransport = http.close;
    log.info("pubmed-mcp serving over HTTP", { url: http.url, port: http.port });
    // A deployment serves the corpus, so the worker opens its stores now (seconds of CPU on
    // the embedded store, off this loop); /readyz says "starting" until they are open. Over
    // stdio they open on first use: an IDE session may never touch the corpus.
    getCorpusHost().open();
  }
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

type Command = (argv: string[]) => Promise<void>;
const cli = () => import("./cli/corpus.js");
const COMMANDS: Record<string, () => Promise<Command>> = {
  sync: async () => (await cli()).syncCommand,
  search: async () => (await cli()).searchCommand,
  reindex: async () => (await cli()).reindexCommand,
};

/** A corpus command: same services as the tools; errors print the envelope's message, exit 1. */
async function runCommand(config: Config, load: () => Promise<Command>, argv: string[]) {
  const command = await load();
  await initState(config);
  let code = 0;
  try {
    await command(argv);
  } catch (err) {
    const { error } = toEnvelope(err);
    process.stderr.write(`pubmed-mcp: ${error.code}: ${error.message}\n`);
    code = 1;
  }
  await closeState();
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  const [command = "serve", ...rest] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  const corpusCommand = COMMANDS[command];
  if (command !== "serve" && !corpusCommand) {
    process.stderr.write(`Unknown command "${command}".\n${USAGE}\n`);
    process.exit(2);
  }
  const overrides = rest.includes("--http") ? { MCP_TRANSPORT: "http" } : {};
  let config: Config;
  try {
    config = loadConfig(undefined, overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`pubmed-mcp: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  if (corpusCommand) await runCommand(config, corpusCommand, rest);
  else await serve(config);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  log.error("pubmed-mcp failed to start", {
    error: err instanceof Error ? err.message : String(err),
  });
  process.exit(1);
});
