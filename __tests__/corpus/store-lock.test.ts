/**
 * The embedded store's directory lock at the MCP level: while a spawned stdio server holds
 * PUBMED_MCP_DATA_DIR, a second server on the same directory answers corpus tools with a STORE
 * error naming the holder's pid, keeps serving the live tools, and opens the store once the
 * holder has gone. PGlite only: a server Postgres has no directory lock.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";
import { checkpointOf, type ErrOut } from "../helpers/corpus.js";
import { backendEnv } from "../helpers/db.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { callTool, startHarness, startStdioClient, testEnv, type Harness } from "../helpers/mcp.js";

jest.setTimeout(60_000);

describe("the embedded store held by another process", () => {
  let fake: FakeEutils;
  let backend: Awaited<ReturnType<typeof backendEnv>>;
  let holder: { client: Client; transport: StdioClientTransport } | undefined;
  let h: Harness | undefined;

  beforeAll(async () => {
    const handle = synthHandler(
      createSynthCorpus({
        seed: 2,
        terms: [{ term: "asthma", count: 20, edatFrom: "2024-01-01", edatTo: "2024-12-31" }],
      }),
    );
    fake = await startFakeEutils({ routes: [(req) => handle(req)] });
    backend = await backendEnv("pglite");
  });
  afterAll(async () => {
    await h?.close();
    await holder?.client.close();
    await backend.cleanup();
    await fake.close();
  });

  it("answers corpus tools with STORE naming the holder, live tools as usual, and recovers", async () => {
    const dataDir = backend.env.PUBMED_MCP_DATA_DIR ?? "";
    holder = await startStdioClient(testEnv(fake, dataDir));
    // The corpus opens on first use: this call makes the spawned server take the lock.
    expect(await checkpointOf(holder.client, "asthma")).toBeNull();
    const pid = holder.transport.pid;
    expect(pid).toEqual(expect.any(Number));

    h = await startHarness({ fake, env: { PUBMED_MCP_DATA_DIR: dataDir } });
    const refused = await callTool(h.client, "rag_search", { query: "asthma" });
    expect(refused.isError).toBe(true);
    expect((refused.json as ErrOut).error).toMatchObject({
      code: "STORE",
      message: expect.stringContaining(`pid ${pid}`),
      details: expect.objectContaining({ holderPid: pid }),
    });
    expect((refused.json as ErrOut).error.message).toContain("PUBMED_MCP_DATA_DIR");

    const spell = await callTool(h.client, "pubmed_spell", { query: "asthmaa" });
    expect(spell.isError).toBe(false);
    expect(spell.json).toEqual({ original: "asthmaa", corrected: "asthma", hasSuggestion: true });

    // The holder still owns a working store.
    const sync = await callTool(holder.client, "pubmed_sync_delta", {
      query_key: "asthma",
      term: "asthma",
    });
    expect(sync.isError).toBe(false);

    // Once the holder exits, the next corpus call opens the store (a failed open is not cached).
    await holder.client.close();
    holder = undefined;
    expect(await checkpointOf(h.client, "asthma")).not.toBeNull();
    const found = await callTool(h.client, "rag_search", { query: "asthma", top_k: 3 });
    expect(found.isError).toBe(false);
  });
});
