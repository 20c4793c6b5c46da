/**
 * Drives pubmed-mcp the way users do: the official MCP SDK client, connected in-memory to a
 * server session (state installed through the one test hook) or to a spawned stdio process,
 * with NCBI replaced by the local fake E-utilities server.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.js";
import { EutilsClient, type ClientDeps } from "../../src/ncbi/client.js";
import { createSession } from "../../src/server.js";
import { ServiceClients } from "../../src/net/clients.js";
import type { ClientDeps as ServiceDeps } from "../../src/net/polite-client.js";
import { closeProcess, setStateForTests } from "../../src/worker/process.js";
import { startFakeEutils, type FakeEutils, type Route } from "./fake-eutils.js";
import { REPO_DIR } from "./paths.js";

export interface Harness {
  client: Client;
  fake: FakeEutils;
  dataDir: string;
  close: () => Promise<void>;
}

/** Environment for a server pointed at the fake NCBI, fast and isolated. */
export function testEnv(fake: FakeEutils, dataDir: string, env: Record<string, string> = {}) {
  return {
    NCBI_EUTILS_BASE_URL: fake.baseUrl,
    NCBI_MAX_RPS: "50",
    NCBI_MAX_RETRIES: "2",
    NCBI_TIMEOUT_MS: "5000",
    NCBI_DEADLINE_MS: "20000",
    PUBMED_MCP_DATA_DIR: dataDir,
    LOG_LEVEL: "error",
    // The run's temporary cache (global-setup.ts), where a server saves its store template.
    ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}),
    ...env,
  };
}

export async function startHarness(
  opts: {
    routes?: Route[];
    env?: Record<string, string>;
    fake?: FakeEutils;
    /** The E-utilities client's injected parts, e.g. `{ backoffBaseMs: 10 }` for quick retries. */
    eutils?: ClientDeps;
    /** The same for the Europe PMC, Unpaywall and PubTator clients. */
    services?: ServiceDeps;
  } = {},
): Promise<Harness> {
  const fake = opts.fake ?? (await startFakeEutils({ routes: opts.routes }));
  const dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-test-"));
  const state = await setStateForTests(loadConfig(testEnv(fake, dataDir, opts.env)));
  if (opts.eutils) state.eutils = new EutilsClient(state.config.ncbi, opts.eutils);
  if (opts.services) state.services = new ServiceClients(state.config, opts.services);
  const session = createSession();
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await session.connect(serverTransport);
  const client = new Client({ name: "pubmed-mcp-tests", version: "1.0.0" });
  await client.connect(clientTransport);
  return {
    client,
    fake,
    dataDir,
    close: async () => {
      await client.close();
      await session.close();
      await closeProcess();
      if (!opts.fake) await fake.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Spawns `src/main.ts` over stdio (through tsx, so it always runs the current sources). */
export async function startStdioClient(
  env: Record<string, string>,
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", join(REPO_DIR, "src", "main.ts")],
    cwd: REPO_DIR,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "pubmed-mcp-stdio-tests", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

export interface ToolOutcome {
  isError: boolean;
  json: unknown;
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent: unknown;
}

/** Calls a tool and decodes the JSON text of its first content block. */
export async function callTool(client: Client, name: string, args: unknown): Promise<ToolOutcome> {
  // The SDK's 60 s request timeout is not the test's business: jest's test timeout bounds a call.
  const res = await client.callTool(
    { name, arguments: args as Record<string, unknown> },
    undefined,
    {
      timeout: 600_000,
    },
  );
  const content = res.content as ToolOutcome["content"];
  const first = content[0];
  return {
    isError: res.isError === true,
    json: first?.type === "text" && first.text ? JSON.parse(first.text) : undefined,
    content,
    structuredContent: res.structuredContent,
  };
}
