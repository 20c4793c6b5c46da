/**
 * The command line, run by the entry point (src/main.ts) once start-up is prepared:
 * `pubmed-mcp [serve [--http]]`, and the corpus commands `sync`, `search`, `reindex`.
 * Loads the configuration (exit 1 listing every problem), initialises the state and the corpus
 * host once (src/worker/process.ts), then serves over stdio (default) or HTTP, or runs the
 * command.
 *
 * Each path imports only what it uses: a stdio session never loads the HTTP server (hono, jose)
 * and no server loads the corpus CLI (which reaches the store, Cohere and Qdrant clients), so an
 * IDE's stdio start-up pays for neither (issue 11; __tests__/startup/lazy-modules.test.ts).
 */
import { ConfigError, loadConfig, type Config } from "./config.js";
import { toEnvelope } from "./errors.js";
import { log } from "./log.js";
import { closeProcess, getCorpusHost, initProcess } from "./worker/process.js";
import { VERSION } from "./version.js";

/** Each command's own help (`pubmed-mcp <command> --help`), the usage's lines for it. */
const HELP: Record<string, string> = {
  serve: `pubmed-mcp serve [--http]
    Serve MCP over stdio (the default), or over HTTP with --http (or MCP_TRANSPORT=http):
    Streamable HTTP at /mcp, SSE at /sse, /health, /readyz (MCP_HTTP_HOST, MCP_HTTP_PORT).`,
  sync: `pubmed-mcp sync --query-key K --term T [--overlap-days N] [--max-records N] [--json]
    Sync a query into the local corpus (as pubmed_sync_delta); a progress bar on a TTY.`,
  search: `pubmed-mcp search "…" [--top-k N] [--no-quality-bias] [--json]
    Search the local corpus (as rag_search).`,
  reindex: `pubmed-mcp reindex [--json]
    Rebuild the index with the configured embedder (EMBEDDINGS_PROVIDER=none: lexical only).`,
};

const USAGE = `Usage:
  pubmed-mcp                 serve MCP over stdio (same as \`pubmed-mcp serve\`)
${Object.values(HELP)
  .map((h) => `  ${h}`)
  .join("\n")}
  pubmed-mcp <command> --help   one command's help
  pubmed-mcp --version          the version
Configuration is read from the environment (docs/configuration.md); PUBMED_MCP_DATA_DIR is
where the embedded store lives.`;

const HELP_FLAGS = new Set(["--help", "-h", "help"]);

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
  await initProcess(config);
  let closeTransport = async () => {};
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await closeTransport().catch(() => undefined);
    await closeProcess();
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
  await initProcess(config);
  let code = 0;
  try {
    await command(argv);
  } catch (err) {
    const { error } = toEnvelope(err);
    process.stderr.write(`pubmed-mcp: ${error.code}: ${error.message}\n`);
    code = 1;
  }
  await closeProcess();
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  const [command = "serve", ...rest] = argv;
  // Help and the version go to stdout and exit 0, before any configuration is read.
  if (HELP_FLAGS.has(command)) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  // Options only: `pubmed-mcp search help` searches for the word.
  if (HELP[command] && rest.some((a) => a === "--help" || a === "-h")) {
    process.stdout.write(`Usage:\n  ${HELP[command]}\n`);
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
