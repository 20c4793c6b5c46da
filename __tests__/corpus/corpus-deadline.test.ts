/**
 * A corpus call that waits for its store past CORPUS_DEADLINE_MS says so: STORE, naming the local
 * store and CORPUS_DEADLINE_MS, never UPSTREAM and NCBI_DEADLINE_MS (a local wait blamed on NCBI
 * was what a loaded machine saw). The store here is a PostgreSQL address whose server accepts
 * connections and never answers, so the wait is certain whatever the machine's speed.
 */
import { afterAll, beforeAll, expect, it, jest } from "@jest/globals";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { startHarness, type Harness } from "../helpers/mcp.js";

jest.setTimeout(120_000);

let silent: Server;
const sockets: Socket[] = [];
let h: Harness;

beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.push(socket); // held open, never answered
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const port = (silent.address() as AddressInfo).port;
  h = await startHarness({
    env: {
      DATABASE_URL: `postgres://nobody@127.0.0.1:${port}/pubmed`,
      CORPUS_DEADLINE_MS: "1500",
      NCBI_DEADLINE_MS: "600000",
    },
  });
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  // The worker may still be waiting for the silent server: closing must not hang on it.
  await h?.close();
});

it.each([
  ["rag_search", { query: "asthma" }],
  ["rag_get", { doc_id: "pmid:123" }],
  ["corpus_checkpoint_get", { query_key: "k" }],
])("%s waiting for its store answers STORE with CORPUS_DEADLINE_MS", async (name, args) => {
  const res = await h.client.callTool({ name, arguments: args });
  expect(res.isError).toBe(true);
  const env = JSON.parse((res.content as { text: string }[])[0]!.text) as {
    error: { code: string; message: string };
  };
  expect(env.error.code).toBe("STORE");
  expect(env.error.message).toMatch(
    /local corpus did not answer within 2 s \(CORPUS_DEADLINE_MS\)/,
  );
  expect(env.error.message).not.toMatch(/NCBI/);
});
