/**
 * A corpus indexed with one embedder, reopened with another (hash, 768 dimensions → Cohere
 * embed-v4.0, 1536): rag_search and pubmed_sync_delta refuse with an EMBEDDINGS error that names
 * `pubmed-mcp reindex`; after that command (run as a real process, with the server stopped, as
 * the embedded store requires), search works on the new embedder's vectors and the new embedding
 * settings are what the store remembers. On both Postgres backends.
 */
import { afterAll, beforeAll, beforeEach, expect, it, jest } from "@jest/globals";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  expectConverged,
  pgvectorIds,
  storedPmids,
  type ErrOut,
  type SearchOut,
  type SyncOut,
} from "../helpers/corpus.js";
import { describeEachBackend } from "../helpers/db.js";
import { fakeVector, startFakeCohere, type FakeCohere } from "../helpers/fake-cohere.js";
import { useCorpusServer } from "../helpers/corpus-server.js";
import { useSynthNcbi } from "../helpers/synth-ncbi.js";
import { callTool, testEnv } from "../helpers/mcp.js";
import { REPO_DIR } from "../helpers/shared.js";

// Each test starts several CLI or server processes under tsx, each opening the embedded store:
// with two other test runs beside this one (load about 15) one test took over 120 s.
jest.setTimeout(600_000);

const TERM = "long covid fatigue";
const KEY = "long-covid";
/** The dense embedder these switches start from (the default is none, lexical only). */
const HASH = { EMBEDDINGS_PROVIDER: "hash" };

describeEachBackend("changing the embedder", (kind) => {
  const ncbi = useSynthNcbi({
    seed: 5,
    now: new Date("2025-06-30T12:00:00Z"),
    terms: [{ term: TERM, count: 120, edatFrom: "2021-01-01", edatTo: "2025-06-20" }],
  });
  const server = useCorpusServer(kind, ncbi, HASH);
  let cohere: FakeCohere;

  beforeAll(async () => {
    cohere = await startFakeCohere("test");
  });
  afterAll(async () => {
    await cohere.stop();
  });
  beforeEach(() => {
    cohere.requests.length = 0;
  });

  const open = (env: Record<string, string> = {}) => server.open(env);
  /** `pubmed-mcp reindex --json` on this store, after stopping the in-process server. */
  const reindexCli = async (env: Record<string, string> = {}) => {
    await server.close();
    const dataDir = server.backend.env.PUBMED_MCP_DATA_DIR ?? "";
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", join(REPO_DIR, "src", "main.ts"), "reindex", "--json"],
      {
        cwd: REPO_DIR,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          ...testEnv(ncbi.fake, dataDir, { ...server.backend.env, ...HASH, ...env }),
        },
      },
    );
    return JSON.parse(stdout) as { documents: number; embedding: string };
  };
  const withCohere = () => ({
    EMBEDDINGS_PROVIDER: "cohere",
    COHERE_API_KEY: "test",
    COHERE_BASE_URL: cohere.url,
  });

  it("refuses search and sync until `pubmed-mcp reindex`, then serves the new vectors", async () => {
    const hashed = await open();
    expect(
      (await callTool(hashed.client, "pubmed_sync_delta", { query_key: KEY, term: TERM })).isError,
    ).toBe(false);
    const pmids = ncbi.corpus.pmidsFor(TERM);
    const target = pmids[9] ?? "";

    const { client } = await open(withCohere());
    const title = (
      (await callTool(client, "rag_get", { doc_id: `pmid:${target}` })).json as { title: string }
    ).title;
    const refused = [
      await callTool(client, "rag_search", { query: title }),
      await callTool(client, "pubmed_sync_delta", { query_key: KEY, term: TERM }),
    ];
    for (const r of refused) {
      expect(r.isError).toBe(true);
      expect((r.json as ErrOut).error.code).toBe("EMBEDDINGS");
      expect((r.json as ErrOut).error.message).toContain("pubmed-mcp reindex");
      expect((r.json as ErrOut).error.message).toMatch(/hash\/.*cohere\/embed-v4\.0 \(1536/);
    }
    // Refusing touched neither Cohere nor NCBI, and the stored papers stay readable.
    expect(cohere.requests).toEqual([]);
    expect(ncbi.fake.requests.filter((r) => r.utility === "efetch")).toHaveLength(1);
    expect(await storedPmids()).toHaveLength(pmids.length);

    const reindexed = await reindexCli(withCohere());
    expect(reindexed).toEqual({
      documents: pmids.length,
      embedding: "cohere/embed-v4.0 (1536 dimensions)",
    });
    expect(cohere.requests.every((r) => r.body.input_type === "search_document")).toBe(true);
    expect(cohere.requests.length).toBeGreaterThan(0);

    const restarted = await open(withCohere());
    const found = await callTool(restarted.client, "rag_search", {
      query: title,
      top_k: 3,
      quality_bias: false,
    });
    expect(found.isError).toBe(false);
    const top = (found.json as SearchOut).results[0];
    expect(top?.doc_id).toBe(`pmid:${target}`);
    expect(cohere.requests.at(-1)?.body).toMatchObject({
      input_type: "search_query",
      texts: [title],
    });
    // The dense similarity is the cosine of the fake Cohere's vectors for query and passage (the
    // chunk as indexed: the title, then the passage rag_search returns without it), to the 4
    // significant digits rag_search gives.
    const q = fakeVector(title, "search_query", 1536);
    const chunk = top?.text ? `${top.title}\n${top.text}` : (top?.title ?? "");
    const d = fakeVector(chunk, "search_document", 1536);
    expect(top?.sim).toBeCloseTo(
      q.reduce((s, x, i) => s + x * (d[i] ?? 0), 0),
      3,
    );

    // The new embedder is remembered: it syncs again without another reindex.
    const resync = await callTool(restarted.client, "pubmed_sync_delta", {
      query_key: KEY,
      term: TERM,
    });
    expect(resync.isError).toBe(false);
    expect((resync.json as SyncOut).inserted).toBe(0);
    await expectConverged(restarted.client, {
      queryKey: KEY,
      expected: pmids,
      vectorIds: pgvectorIds,
    });
  });

  it("the reverse switch (Cohere → hash) is refused and repaired the same way", async () => {
    const first = await open(withCohere());
    expect(
      (await callTool(first.client, "pubmed_sync_delta", { query_key: KEY, term: TERM })).isError,
    ).toBe(false);
    const { client } = await open();
    const refused = await callTool(client, "rag_search", { query: "fatigue" });
    expect((refused.json as ErrOut).error).toMatchObject({
      code: "EMBEDDINGS",
      message: expect.stringMatching(/cohere\/embed-v4\.0 \(1536 dimensions\).*hash\//),
    });
    expect((await reindexCli()).embedding).toMatch(/^hash\//);
    const found = await callTool((await open()).client, "rag_search", {
      query: "fatigue",
      top_k: 5,
    });
    expect(found.isError).toBe(false);
    expect((found.json as SearchOut).results.length).toBeGreaterThan(0);
  });
});
