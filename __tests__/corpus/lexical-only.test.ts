/**
 * EMBEDDINGS_PROVIDER=none, the default without COHERE_API_KEY: a sync stores chunks and their
 * BM25 postings but no vectors, rag_search ranks by the lexical leg alone (sim null), and
 * switching between a lexical corpus and a dense one is explained rather than silently mixed.
 * On both Postgres backends.
 */
import { expect, it, jest } from "@jest/globals";
import { sql } from "kysely";
import { corpusSummary, reindexCorpus } from "../../src/worker/corpus-api.js";
import { docSparseVector, idf, querySparseVector, tokenize } from "../../src/retrieval/bm25.js";
import { chunkIds, type ErrOut, type SearchOut, type SyncOut } from "../helpers/corpus.js";
import { corpusDb } from "../helpers/corpus-db.js";
import { describeEachBackend } from "../helpers/db.js";
import { useCorpusServer } from "../helpers/corpus-server.js";
import { useSynthNcbi } from "../helpers/synth-ncbi.js";
import { callTool, type Harness } from "../helpers/mcp.js";

jest.setTimeout(120_000);

const TERM = "statin myopathy";
const KEY = "statins";

/** Papers by their best chunk's BM25 score (ties by chunk id), retracted papers left out. */
async function bm25Ranking(query: string): Promise<string[]> {
  const { rows } = await sql<{ id: string; pmid: string; text: string; retracted: boolean }>`
    select id, pmid, text, retracted from chunk_vectors`.execute(corpusDb);
  const docs = rows.map((r) => {
    const v = docSparseVector(tokenize(r.text));
    return { ...r, weights: new Map(v.indices.map((t, k) => [t, v.values[k] ?? 0])) };
  });
  const q = querySparseVector(tokenize(query)).indices;
  const idfs = q.map((t) => idf(docs.length, docs.filter((d) => d.weights.has(t)).length));
  const scored = docs
    .filter((d) => !d.retracted)
    .map((d) => ({
      ...d,
      score: q.reduce((s, t, k) => s + (idfs[k] ?? 0) * (d.weights.get(t) ?? 0), 0),
    }))
    .filter((d) => d.score > 0)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return [...new Set(scored.map((d) => `pmid:${d.pmid}`))];
}

describeEachBackend("lexical-only corpus (EMBEDDINGS_PROVIDER=none)", (kind) => {
  const ncbi = useSynthNcbi({
    seed: 11,
    now: new Date("2025-06-30T12:00:00Z"),
    terms: [{ term: TERM, count: 80, edatFrom: "2021-01-01", edatTo: "2025-06-20" }],
  });
  const server = useCorpusServer(kind, ncbi);

  const open = async (env: Record<string, string> = {}) => (await server.open(env)).client;
  const sync = async (client: Harness["client"]) =>
    callTool(client, "pubmed_sync_delta", { query_key: KEY, term: TERM });
  const titleOf = async (client: Harness["client"], pmid: string) =>
    ((await callTool(client, "rag_get", { doc_id: `pmid:${pmid}` })).json as { title: string })
      .title;

  it("is the default: a sync stores no vectors, and rag_search ranks by BM25 alone", async () => {
    const client = await open();
    // Before any sync, an empty answer says that the corpus is empty; after, it is just no match.
    const empty = await callTool(client, "rag_search", { query: "statin" });
    expect(empty.json).toEqual({
      results: [],
      note: expect.stringContaining("The local corpus is empty"),
    });
    const out = await sync(client);
    expect(out.isError).toBe(false);
    expect((out.json as SyncOut).inserted).toBe(ncbi.corpus.pmidsFor(TERM).length);
    expect((await corpusSummary()).embedding.provider).toBe("none");
    const { rows } = await sql<{ n: number; with_vectors: number }>`select count(*)::int as n,
      count(embedding)::int as with_vectors from chunk_vectors`.execute(corpusDb);
    expect(rows[0]).toEqual({ n: (await chunkIds()).length, with_vectors: 0 });

    const query = await titleOf(client, ncbi.corpus.pmidsFor(TERM)[5] ?? "");
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
    // Without the quality boost the papers come in the order of their best chunk's BM25 score,
    // here recomputed from the stored chunk texts by the formula of src/retrieval/bm25.ts.
    expect(results.map((r) => r.doc_id)).toEqual((await bm25Ranking(query)).slice(0, 10));
    expect(results[0]?.score).toBe(1);
    const none = await callTool(client, "rag_search", { query: "zyxwvut qqqq" });
    expect(none.json).toEqual({ results: [] });
    const stopWords = await callTool(client, "rag_search", { query: "the of and ?" });
    expect(stopWords.json).toEqual({
      results: [],
      note: expect.stringContaining("The query has no word the index searches"),
    });
  });

  it("searches a hash corpus lexically, refuses to sync it, and reindex makes it lexical", async () => {
    expect((await sync(await open({ EMBEDDINGS_PROVIDER: "hash" }))).isError).toBe(false);
    const client = await open();
    const query = await titleOf(client, ncbi.corpus.pmidsFor(TERM)[3] ?? "");
    const found = await callTool(client, "rag_search", { query, top_k: 3 });
    expect(found.isError).toBe(false);
    expect((found.json as SearchOut).results[0]?.sim).toBeNull();
    expect((found.json as SearchOut).results[0]?.doc_id).toBe(
      `pmid:${ncbi.corpus.pmidsFor(TERM)[3]}`,
    );

    const refused = await sync(client);
    expect(refused.isError).toBe(true);
    expect((refused.json as ErrOut).error).toMatchObject({
      code: "EMBEDDINGS",
      message: expect.stringMatching(/EMBEDDINGS_PROVIDER=hash.*pubmed-mcp reindex/),
    });

    expect(await reindexCorpus()).toEqual({
      documents: ncbi.corpus.pmidsFor(TERM).length,
      embedding: "none (lexical only)",
    });
    const reopened = await open();
    expect((await sync(reopened)).isError).toBe(false);
    const { rows } = await sql<{
      n: number;
    }>`select count(embedding)::int as n from chunk_vectors`.execute(corpusDb);
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
