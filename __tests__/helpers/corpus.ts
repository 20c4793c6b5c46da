/**
 * Shared pieces of the corpus suites: the tool output shapes, reads of what the metadata store
 * and the vector store hold (through the state's corpus, the same handles the tools use), and a
 * gate — a switchable HTTP proxy in front of a fake upstream (Cohere, Qdrant) that takes it
 * down and back up without losing the upstream's state, as a restarted service would.
 */
import { expect } from "@jest/globals";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { sql } from "kysely";
import { loadConfig, type Config } from "../../src/config.js";
import { chunkArticle } from "../../src/corpus/chunk.js";
import type { RagResult } from "../../src/corpus/search.js";
import type { SyncResult } from "../../src/corpus/sync.js";
import { decodeRecord } from "../../src/store/record-codec.js";
import { corpusDb, corpusVectorCount } from "./corpus-db.js";
import type { TestStore } from "./db.js";
import { callTool } from "./mcp.js";

export type SyncOut = SyncResult;
export type ErrOut = { error: { code: string; message: string; details: unknown } };
export type SearchOut = { results: RagResult[] };

/**
 * The configuration of a corpus opened straight on `scratch` (openCorpus), NCBI at `ncbiUrl`: for
 * suites that call syncDelta directly rather than through a server.
 */
export function storeConfig(ncbiUrl: string, scratch: TestStore): Config {
  return loadConfig({
    NCBI_EUTILS_BASE_URL: ncbiUrl,
    NCBI_MAX_RPS: "100",
    PUBMED_MCP_DATA_DIR: scratch.dataDir,
    DATABASE_URL: scratch.databaseUrl,
    LOG_LEVEL: "error",
  });
}

export async function storedPmids(): Promise<string[]> {
  const rows = await corpusDb.selectFrom("documents").select("pmid").orderBy("pmid").execute();
  return rows.map((r) => r.pmid);
}

/** PMIDs whose stored version is not (or not yet) in the vector store. */
export async function unindexedPmids(): Promise<string[]> {
  const rows = await corpusDb
    .selectFrom("documents")
    .select("pmid")
    .where(sql.ref("indexed_version"), "is distinct from", sql.ref("version"))
    .orderBy("pmid")
    .execute();
  return rows.map((r) => r.pmid);
}

/**
 * The chunk uuids of the stored documents, sorted: each stored record chunked as a sync chunks it
 * (where the chunks live depends on the vector store: pgvector's rows or the chunks table).
 */
export async function chunkIds(): Promise<string[]> {
  const rows = await corpusDb.selectFrom("documents").select("record").execute();
  return rows.flatMap((r) => chunkArticle(decodeRecord(r.record)).map((c) => c.id)).sort();
}

/** Point ids in the pgvector tables, sorted (Qdrant suites read the fake's collection instead). */
export async function pgvectorIds(): Promise<string[]> {
  const { rows } = await sql<{
    id: string;
  }>`select id::text as id from chunk_vectors order by id`.execute(corpusDb);
  return rows.map((r) => r.id);
}

export async function vectorCount(): Promise<number> {
  return corpusVectorCount();
}

export async function checkpointOf(client: Client, queryKey: string): Promise<string | null> {
  const out = await callTool(client, "corpus_checkpoint_get", { query_key: queryKey });
  if (out.isError) throw new Error(`corpus_checkpoint_get failed: ${JSON.stringify(out.json)}`);
  return (out.json as { last_edat: string | null }).last_edat;
}

/** What a down upstream does to a request: answer with an error status, or drop the connection. */
export type Fault = { status: number; body?: unknown } | "hangup";

export interface GateRequest {
  method: string;
  path: string;
}

export interface Gate {
  url: string;
  /** Every request that reached the gate (answered, faulted or refused mid-stream). */
  requests: GateRequest[];
  /** From now on, requests the predicate picks (default: all) get the fault. */
  fail(fault: Fault, when?: (req: GateRequest) => boolean): void;
  /** Requests pass through again. */
  heal(): void;
  /** Stops listening: connections are refused, as when the service is stopped. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["host", "connection", "content-length", "transfer-encoding"]);

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startGate(target: string): Promise<Gate> {
  const requests: GateRequest[] = [];
  let fault: { fault: Fault; when: (req: GateRequest) => boolean } | undefined;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const payload = await body(req);
      const seen = { method: req.method ?? "GET", path: req.url ?? "/" };
      requests.push(seen);
      const f = fault?.when(seen) ? fault.fault : undefined;
      if (f === "hangup") return void req.socket.destroy();
      if (f) {
        res.writeHead(f.status, { "content-type": "application/json" });
        return void res.end(JSON.stringify(f.body ?? { message: `gate: HTTP ${f.status}` }));
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).flatMap(([k, v]) =>
          HOP_BY_HOP.has(k) || v === undefined ? [] : [[k, String(v)]],
        ),
      );
      const upstream = await fetch(`${target}${seen.path}`, {
        method: seen.method,
        headers,
        body: payload.length > 0 ? payload : undefined,
      });
      const text = Buffer.from(await upstream.arrayBuffer());
      res.writeHead(upstream.status, {
        "content-type": upstream.headers.get("content-type") ?? "application/json",
      });
      res.end(text);
    })().catch(() => res.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fail: (f, when = () => true) => {
      fault = { fault: f, when };
    },
    heal: () => {
      fault = undefined;
    },
    stop,
    start: () => listen(port),
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}

/**
 * The corpus a sync must converge to: exactly the expected PMIDs stored, every one indexed, one
 * vector per stored chunk (`vectorIds` reads the vector store's point ids), a checkpoint, and a
 * synced paper findable by its title.
 */
export async function expectConverged(
  client: Client,
  opts: { queryKey: string; expected: string[]; vectorIds: () => Promise<string[]> },
): Promise<void> {
  const expected = [...opts.expected].sort();
  expect(await storedPmids()).toEqual(expected);
  expect(await unindexedPmids()).toEqual([]);
  const chunks = await chunkIds();
  expect(chunks.length).toBeGreaterThanOrEqual(expected.length);
  expect([...(await opts.vectorIds())].sort()).toEqual(chunks);
  expect(await vectorCount()).toBe(chunks.length);
  expect(await checkpointOf(client, opts.queryKey)).not.toBeNull();
  const pmid = expected[17] ?? expected[0] ?? "";
  const paper = (await callTool(client, "rag_get", { doc_id: `pmid:${pmid}` })).json as {
    title: string;
  };
  const found = await callTool(client, "rag_search", {
    query: paper.title,
    top_k: 5,
    quality_bias: false,
  });
  expect(found.isError).toBe(false);
  expect((found.json as SearchOut).results[0]?.doc_id).toBe(`pmid:${pmid}`);
}
