/**
 * Starts the real HTTP front on 127.0.0.1 (port 0) with state pointed at the fake NCBI, and
 * connects the official SDK client over Streamable HTTP or SSE — the doors remote users use.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mkdtempSync, rmSync } from "node:fs";
import { request, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.js";
import {
  startHttpServer,
  type HttpServerOptions,
  type RunningHttpServer,
} from "../../src/http/server.js";
import { closeProcess, setStateForTests } from "../../src/worker/process.js";
import { startFakeEutils, type FakeEutils, type Route } from "../helpers/fake-eutils.js";
import { testEnv } from "../helpers/mcp.js";

export interface HttpHarness {
  fake: FakeEutils;
  http: RunningHttpServer;
  /** The environment the server was configured from (reuse it for a stdio twin). */
  env: Record<string, string>;
  close: () => Promise<void>;
}

export async function startHttpHarness(
  opts: { routes?: Route[]; env?: Record<string, string>; server?: HttpServerOptions } = {},
): Promise<HttpHarness> {
  const fake = await startFakeEutils({ routes: opts.routes });
  const dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-http-"));
  const env = testEnv(fake, dataDir, {
    MCP_TRANSPORT: "http",
    MCP_HTTP_HOST: "127.0.0.1",
    MCP_HTTP_PORT: "0",
    ...opts.env,
  });
  const state = await setStateForTests(loadConfig(env));
  const http = await startHttpServer(state.config, opts.server);
  return {
    fake,
    http,
    env,
    close: async () => {
      await http.close();
      await closeProcess();
      await fake.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const headersFor = (token?: string): Record<string, string> =>
  token ? { Authorization: `Bearer ${token}` } : {};

export async function connectStreamable(baseUrl: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", baseUrl), {
    requestInit: { headers: headersFor(token) },
  });
  const client = new Client({ name: "pubmed-mcp-http-tests", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

export async function connectSse(baseUrl: string, token?: string): Promise<Client> {
  const transport = new SSEClientTransport(new URL("/sse", baseUrl), {
    requestInit: { headers: headersFor(token) },
  });
  const client = new Client({ name: "pubmed-mcp-sse-tests", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** A project-written ESpell reply (same shape as NCBI's eSpellResult). */
export const ESPELL_XML = `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSpellResult PUBLIC "-//NLM//DTD eSpellResult, 23 November 2004//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20041123/espell.dtd">
<eSpellResult>
<Database>pubmed</Database>
<Query>asthmaa childrn</Query>
<CorrectedQuery>asthma children</CorrectedQuery>
<SpelledQuery><Replaced>asthma</Replaced><Original> </Original><Replaced>children</Replaced></SpelledQuery>
<ERROR/>
</eSpellResult>`;

/** A POST /mcp initialize as a raw fetch (for status-code and header checks). */
export function rawInitialize(baseUrl: string, headers: Record<string, string> = {}) {
  return fetch(new URL("/mcp", baseUrl), {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    }),
  });
}

export function initializeMessage(protocolVersion = "2025-06-18", id: number | string = 1) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One HTTP exchange through node:http, which (unlike fetch) sends the Host header as given —
 * what a DNS-rebinding page's requests look like. The body is read to its end.
 */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<RawResponse> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: opts.method ?? (body ? "POST" : "GET"),
      headers: {
        ...(body ? { "Content-Type": "application/json" } : {}),
        Accept: "application/json, text/event-stream",
        ...opts.headers,
      },
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

export interface SseEvent {
  id?: string;
  event?: string;
  retry?: string;
  data: string;
}

/** The events of a complete text/event-stream body. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split(/\n\n/)
    .filter((block) => block.trim() && !block.startsWith(":"))
    .map((block) => {
      const event: SseEvent = { data: "" };
      for (const line of block.split("\n")) {
        const [field, ...rest] = line.split(":");
        const value = rest.join(":").replace(/^ /, "");
        if (field === "data") event.data += value;
        else if (field === "id" || field === "event" || field === "retry") event[field] = value;
      }
      return event;
    });
}
