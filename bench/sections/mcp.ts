/**
 * §4 MCP overhead: a `tools/call` round trip for a cached pubmed_fetch (five PMIDs, the
 * E-utilities reply already in the client's cache, so no network wait remains) over in-memory,
 * stdio and HTTP (Streamable HTTP, stateless) transports, called round-robin so every stdio/HTTP
 * sample has an in-memory twin measured next to it; HTTP `initialize` latency; idle RSS of the
 * stdio server. Servers run `src/main.ts` through tsx, as `npm run dev` does.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { loadConfig } from "../../src/config.js";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { startSynthServer } from "../../src/devtools/synth-server.js";
import { createSession } from "../../src/server.js";
import { closeProcess, initProcess } from "../../src/worker/process.js";
import { REPO_DIR, freePort } from "../lib/child.js";
import type { BenchOptions } from "../lib/options.js";
import { rssOfPidMb } from "../lib/rss.js";
import { pgliteDir } from "../lib/stores.js";
import { emptySection, figure, ratio, timed, type SectionResult } from "../lib/stats.js";

const MAIN = join(REPO_DIR, "src", "main.ts");
const STARTUP_MS = 60_000;

/** /readyz, not /health: the corpus worker opens the stores after the server listens. */
async function waitForReady(url: string): Promise<void> {
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(100);
  }
  throw new Error(`HTTP server at ${url} was not ready within ${STARTUP_MS} ms`);
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  },
});

async function rawInitialize(url: string): Promise<number> {
  const t = await timed(async () => {
    const res = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: INITIALIZE,
    });
    const text = await res.text();
    if (!res.ok || !text.includes("serverInfo"))
      throw new Error(`initialize failed: ${res.status}`);
  });
  return t.ms;
}

export async function mcpSection(opts: BenchOptions): Promise<SectionResult> {
  const out = emptySection("MCP overhead");
  const calls = opts.sizes.mcp.calls;
  const corpus = createSynthCorpus({
    seed: 3,
    terms: [{ term: "bench mcp", count: 20, edatFrom: "2020-01-01", edatTo: "2024-12-31" }],
  });
  const pmids = corpus.pmidsFor("bench mcp").slice(0, 5);
  const ncbi = await startSynthServer(corpus);
  // A migrated store: the HTTP server opens it at start-up, and initdb would only slow that.
  const scratch = await pgliteDir();
  const dataDir = scratch.dataDir;
  const env = {
    NCBI_EUTILS_BASE_URL: ncbi.baseUrl,
    NCBI_MAX_RPS: "50",
    PUBMED_MCP_DATA_DIR: dataDir,
    EMBEDDINGS_PROVIDER: "hash",
    LOG_LEVEL: "error",
  };
  const clients: Client[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    await initProcess(loadConfig(env));
    cleanups.push(closeProcess);
    const session = createSession();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.connect(serverSide);
    cleanups.push(() => session.close());
    const memory = new Client({ name: "bench", version: "1" });
    clients.push(memory);
    await memory.connect(clientSide);

    const stdioTransport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", MAIN],
      cwd: REPO_DIR,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stderr: "ignore",
    });
    const stdio = new Client({ name: "bench", version: "1" });
    clients.push(stdio);
    await stdio.connect(stdioTransport);
    const stdioPid = stdioTransport.pid;
    await sleep(1000);
    const idleRss: number[] = [];
    for (let i = 0; i < 3; i++, await sleep(200)) {
      const mb = stdioPid === null ? null : rssOfPidMb(stdioPid);
      if (mb !== null) idleRss.push(mb);
    }

    const port = await freePort();
    const httpUrl = `http://127.0.0.1:${port}`;
    const httpProc = spawn(process.execPath, ["--import", "tsx", MAIN, "serve", "--http"], {
      cwd: REPO_DIR,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        ...env,
        MCP_HTTP_PORT: String(port),
      },
      stdio: "ignore",
    });
    cleanups.push(async () => {
      httpProc.kill("SIGTERM");
      await new Promise((res) =>
        httpProc.exitCode === null ? httpProc.once("exit", res) : res(null),
      );
    });
    await waitForReady(httpUrl);
    const http = new Client({ name: "bench", version: "1" });
    clients.push(http);
    await http.connect(new StreamableHTTPClientTransport(new URL(`${httpUrl}/mcp`)));

    const transports = [
      ["in-memory", memory],
      ["stdio", stdio],
      ["http", http],
    ] as const;
    const call = async (client: Client) => {
      const t = await timed(() => client.callTool({ name: "pubmed_fetch", arguments: { pmids } }));
      if (t.value.isError)
        throw new Error(`pubmed_fetch failed: ${JSON.stringify(t.value.content)}`);
      return t.ms;
    };
    for (const [, c] of transports) for (let i = 0; i < 3; i++) await call(c); // warm: cache, JIT
    // In-memory calls back to back first: what the call costs with no other transport's work
    // (a child still finishing its reply, its GC) on the two cores between calls.
    const alone: number[] = [];
    for (let i = 0; i < calls; i++) alone.push(await call(memory));
    out.figures.push(
      figure(
        "mcp.in-memory.alone_fetch_ms",
        "tools/call pubmed_fetch (cached), in-memory, back to back",
        "ms",
        alone,
      ),
    );
    const ms: Record<string, number[]> = { "in-memory": [], stdio: [], http: [] };
    for (let i = 0; i < calls; i++) {
      for (const [name, c] of transports) ms[name]?.push(await call(c));
    }
    for (const [name] of transports) {
      out.figures.push(
        figure(
          `mcp.${name}.fetch_ms`,
          `tools/call pubmed_fetch (cached), ${name}`,
          "ms",
          ms[name] ?? [],
        ),
      );
    }
    for (const name of ["stdio", "http"]) {
      out.ratios.push(
        ratio(
          `mcp.${name}_vs_memory`,
          `${name} vs in-memory round trip`,
          `${name} ÷ in-memory, call by call`,
          ms[name] ?? [],
          ms["in-memory"] ?? [],
        ),
      );
    }
    for (let i = 0; i < 3; i++) await rawInitialize(httpUrl);
    const inits: number[] = [];
    for (let i = 0; i < calls; i++) inits.push(await rawInitialize(httpUrl));
    out.figures.push(
      figure("mcp.http.initialize_ms", "HTTP initialize (one POST /mcp, full reply)", "ms", inits),
    );
    out.figures.push(
      figure(
        "mcp.stdio.idle_rss_mb",
        "stdio server idle RSS (after initialize, under tsx)",
        "MB",
        idleRss,
      ),
    );
    out.notes.push(
      `${calls} calls per transport, round-robin; each pubmed_fetch returns 5 parsed synthetic records from the E-utilities cache (${ncbi.requests} requests reached the fake NCBI in all).`,
      "stdio and HTTP servers are child processes running src/main.ts under tsx; the tsx loader adds to their RSS compared with the built dist/main.js.",
    );
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await ncbi.close();
    await scratch.cleanup();
  }
  return out;
}
