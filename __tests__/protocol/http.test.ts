/**
 * Server-initiated notifications over the HTTP front's stateful transports (legacy SSE and
 * Streamable HTTP sessions): a session's log messages and resource updates reach it, caused by
 * its own calls or by another client's, and nobody else.
 */
import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  connectSse,
  connectStreamable,
  startHttpHarness,
  type HttpHarness,
} from "../http/harness.js";
import { settle, waitFor } from "./sessions.js";

jest.setTimeout(90_000);

let h: HttpHarness;
const clients: Client[] = [];
beforeAll(async () => {
  h = await startHttpHarness();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await h.close();
});

async function sse(
  connect = connectSse,
): Promise<{ client: Client; updated: string[]; logged: string[] }> {
  const client = await connect(h.http.url);
  clients.push(client);
  const updated: string[] = [];
  const logged: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logged.push((n.params.data as { message: string }).message);
  });
  return { client, updated, logged };
}

it("sends log messages and corpus updates on each session's own stream", async () => {
  const [watcher, writer] = [await sse(), await sse()];
  await watcher.client.setLoggingLevel("debug");
  await watcher.client.subscribeResource({ uri: "resource://pubmed/corpus" });

  await watcher.client.callTool({ name: "pubmed_spell", arguments: { query: "asthmaa" } });
  await waitFor(() => watcher.logged.includes("ncbi request"), "the watcher's log line");

  const set = await writer.client.callTool({
    name: "corpus_checkpoint_set",
    arguments: { query_key: "q", last_edat: "2024-01-01T00:00:00Z" },
  });
  expect(set.isError).toBeFalsy();
  await waitFor(() => watcher.updated.length > 0, "the corpus update");
  await settle();
  expect(watcher.updated).toEqual(["resource://pubmed/corpus"]);
  expect(writer.updated).toEqual([]);
  expect(writer.logged).toEqual([]);
});

it("does the same over Streamable HTTP sessions", async () => {
  const [watcher, writer] = [await sse(connectStreamable), await sse(connectStreamable)];
  await watcher.client.setLoggingLevel("debug");
  await watcher.client.subscribeResource({ uri: "resource://pubmed/corpus" });

  // The call's log lines travel on the call's own response stream.
  await watcher.client.callTool({ name: "pubmed_spell", arguments: { query: "asthmaa" } });
  expect(watcher.logged).toContain("ncbi request");

  await writer.client.callTool({
    name: "corpus_checkpoint_set",
    arguments: { query_key: "q2", last_edat: "2024-01-01T00:00:00Z" },
  });
  await waitFor(() => watcher.updated.length > 0, "the corpus update on the GET stream");
  await settle();
  expect(watcher.updated).toEqual(["resource://pubmed/corpus"]);
  expect(writer.updated).toEqual([]);
  expect(writer.logged).toEqual([]);
});
