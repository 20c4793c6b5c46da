/**
 * EMBEDDINGS_PROVIDER=none, the default without COHERE_API_KEY: a sync stores chunks and their
 * BM25 postings but no vectors, rag_search ranks by the lexical leg alone (sim null), and
 * switching between a lexical corpus and a dense one is explained rather than silently mixed.
 * On both Postgres backends.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, jest } from "@jest/globals";
import { sql } from "kysely";
import { querySparseVector, tokenize } from "../../src/corpus/bm25.js";
import { reindexCorpus } from "../../src/corpus/reindex.js";
import { createSynthCorpus, type SynthCorpus } from "../../src/devtools/synth.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";
import { getCorpus } from "../../src/state.js";
import { chunkIds, type ErrOut, type SearchOut, type SyncOut } from "../helpers/corpus.js";
import { backendEnv, describeEachBackend } from "../helpers/db.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";

jest.setTimeout(120_000);

const TERM = "statin myopathy";
const KEY = "statins";

describeEachBackend("lexical-only corpus (EMBEDDINGS_PROVIDER=none)", (kind) => {
  let corpus: SynthCorpus;
  let fake: FakeEutils;
  let backend: Awaited<ReturnType<typeof backendEnv>>;
  let h: Harness | undefined;

  beforeAll(async () => {
    fake = await startFakeEutils();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    corpus = createSynthCorpus({
      seed: 11,
      now: new Date("2025-06-30T12:00:00Z"),
      terms: [{ term: TERM, count: 80, edatFrom: "2021-01-01", edatTo: "2025-06-20" }],
    });
    const handle = synthHandler(corpus);
    fake.reset();
    fake.route((req) => handle(req));
    backend = await backendEnv(kind);
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    await backend.cleanup();
  });

  const open = async (env: Record<string, string> = {}) => {
    await h?.close();
    h = await startHarness({ fake, env: { ...backend.env, NCBI_MAX_RPS: "100", ...env } });
    return h.client;
  };
  const sync = async (client: Harness["client"]) =>
    callTool(client, "pubmed_sync_delta", { query_key: KEY, term: TERM });
  const titleOf = async (client: Harness["client"], pmid: string) =>
    ((await callTool(client, "rag_get", { doc_id: `pmid:${pmid}` })).json as { title: string })
      .title;

  it("is the default: a sync stores no vectors, and rag_search ranks by BM25 alone", async () => {
    const client = await open();
    const out = await sync(client);
    expect(out.isError).toBe(false);
    expect((out.json as SyncOut).inserted).toBe(corpus.pmidsFor(TERM).length);
    const c = await getCorpus();
    expect(c.embedder.provider).toBe("none");
    const { rows } = await sql<{ n: number; with_vectors: number }>`select count(*)::int as n,
      count(embedding)::int as with_vectors from chunk_vectors`.execute(c.store.db);
    expect(rows[0]).toEqual({ n: (await chunkIds()).length, with_vectors: 0 });

    const query = await titleOf(client, corpus.pmidsFor(TERM)[5] ?? "");
    const found = await callTool(client, "rag_search", {
      query,
      top_k: 10,
      quality_bias: false,
    });
    expect(found.isError).toBe(false);
    const results = (found.json as SearchOut).results;
    expect(results).toHaveLength(10);
    for (const r of results) {
      expect(r.sim).toBeNull();
      expect(r.bm25).toBeGreaterThan(0);
    }
    // Without the quality boost the papers come in the order of their best chunk's BM25 score.
    const hits = await c.vectors.searchSparse(querySparseVector(tokenize(query)), 300, {
      excludeRetracted: true,
    });
    const byBm25 = [...new Set(hits.map((hit) => `pmid:${hit.pmid}`))].slice(0, 10);
    expect(results.map((r) => r.doc_id)).toEqual(byBm25);
    expect(results[0]?.score).toBe(1);
  });

  it("searches a hash corpus lexically, refuses to sync it, and reindex makes it lexical", async () => {
    expect((await sync(await open({ EMBEDDINGS_PROVIDER: "hash" }))).isError).toBe(false);
    const client = await open();
    const query = await titleOf(client, corpus.pmidsFor(TERM)[3] ?? "");
    const found = await callTool(client, "rag_search", { query, top_k: 3 });
    expect(found.isError).toBe(false);
    expect((found.json as SearchOut).results[0]?.sim).toBeNull();
    expect((found.json as SearchOut).results[0]?.doc_id).toBe(`pmid:${corpus.pmidsFor(TERM)[3]}`);

    const refused = await sync(client);
    expect(refused.isError).toBe(true);
    expect((refused.json as ErrOut).error).toMatchObject({
      code: "EMBEDDINGS",
      message: expect.stringMatching(/EMBEDDINGS_PROVIDER=hash.*pubmed-mcp reindex/),
    });

    expect(await reindexCorpus()).toEqual({
      documents: corpus.pmidsFor(TERM).length,
      embedding: "none (lexical only)",
    });
    const reopened = await open();
    expect((await sync(reopened)).isError).toBe(false);
    const { rows } = await sql<{
      n: number;
    }>`select count(embedding)::int as n from chunk_vectors`.execute((await getCorpus()).store.db);
    expect(rows[0]?.n).toBe(0);
  });

  it("a lexical corpus opened with an embedder asks for reindex before search and sync", async () => {
    expect((await sync(await open())).isError).toBe(false);
    const client = await open({ EMBEDDINGS_PROVIDER: "hash" });
    for (const r of [
      await callTool(client, "rag_search", { query: "statin" }),
      await sync(client),
    ]) {
      expect(r.isError).toBe(true);
      expect((r.json as ErrOut).error).toMatchObject({
        code: "EMBEDDINGS",
        message: expect.stringMatching(/lexical only.*pubmed-mcp reindex/),
      });
    }
    expect((await reindexCorpus()).embedding).toMatch(/^hash\//);
    const found = await callTool(client, "rag_search", { query: "statin", top_k: 3 });
    expect(found.isError).toBe(false);
    expect((found.json as SearchOut).results[0]?.sim).toEqual(expect.any(Number));
  });
});
