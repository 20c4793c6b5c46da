/**
 * Start-up loads only what a session needs (issue 11 item 7): a stdio server answers
 * `initialize` and `tools/list` without loading the chart (Vega, Vega-Lite), citation
 * (citation-js), corpus store (PGlite, Kysely, pg), embedding (Cohere), vector (Qdrant) libraries or
 * fastmcp's unused HTTP server (mcp-proxy); each loads on first use, and the corpus stores never
 * load on the MCP thread (they open in the corpus worker, issue 12). The real process is spawned
 * with a module recorder (helpers/module-log.mjs); `npm run bench -- --only startup` measures
 * what this saves.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { onUtility, startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { callTool, testEnv } from "../helpers/mcp.js";
import { REPO_DIR } from "../helpers/shared.js";

/** Packages that no session needs before it calls the tool (or reads the resource) using them. */
const DEFERRED = {
  vega: /\/node_modules\/vega\//,
  "vega-lite": /\/node_modules\/vega-lite\//,
  "@citation-js": /\/node_modules\/@citation-js\//,
  "@electric-sql/pglite": /\/node_modules\/@electric-sql\/pglite/,
  kysely: /\/node_modules\/kysely\//,
  pg: /\/node_modules\/pg\//,
  "cohere-ai": /\/node_modules\/cohere-ai\//,
  "@qdrant": /\/node_modules\/@qdrant\//,
  "mcp-proxy": /^file:.*\/node_modules\/mcp-proxy\//,
  xml2js: /\/node_modules\/xml2js\//,
  usearch: /\/node_modules\/usearch\//,
};

const ESEARCH_COUNT = `<?xml version="1.0"?><eSearchResult><Count>42</Count></eSearchResult>`;
const EFETCH = `<?xml version="1.0"?><PubmedArticleSet><PubmedArticle>
<MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">31452104</PMID>
<Article PubModel="Print"><Journal><JournalIssue CitedMedium="Internet"><Volume>12</Volume>
<PubDate><Year>2019</Year><Month>Aug</Month></PubDate></JournalIssue><Title>Test Journal</Title>
<ISOAbbreviation>Test J</ISOAbbreviation></Journal><ArticleTitle>A study of start-up.</ArticleTitle>
<AuthorList><Author ValidYN="Y"><LastName>Doe</LastName><ForeName>Jane</ForeName><Initials>J</Initials></Author></AuthorList>
</Article></MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">31452104</ArticleId></ArticleIdList></PubmedData>
</PubmedArticle></PubmedArticleSet>`;

let fake: FakeEutils;
let work: string;
beforeAll(async () => {
  fake = await startFakeEutils({
    routes: [onUtility("esearch", { body: ESEARCH_COUNT }), onUtility("efetch", { body: EFETCH })],
  });
  work = mkdtempSync(join(tmpdir(), "pubmed-mcp-startup-"));
});
afterAll(async () => {
  await fake.close();
  rmSync(work, { recursive: true, force: true });
});

/**
 * Runs `src/main.ts` over stdio under the recorder, lets `session` talk to it, closes stdin (the
 * server exits) and returns every module URL the process loaded.
 */
async function modulesLoaded(
  name: string,
  session: (client: Client) => Promise<void>,
): Promise<string[]> {
  const logFile = join(work, `${name}.modules`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      "--import",
      "tsx",
      "--import",
      join(REPO_DIR, "__tests__", "helpers", "module-log.mjs"),
      join(REPO_DIR, "src", "main.ts"),
    ],
    cwd: REPO_DIR,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      ...testEnv(fake, join(work, name)),
      MODULE_LOG: logFile,
    },
    stderr: "pipe",
  });
  const client = new Client({ name: "pubmed-mcp-startup-tests", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid;
  await session(client);
  await client.close();
  // The recorder writes the CommonJS modules at exit: wait for the process to be gone.
  while (pid !== null && alive(pid)) await new Promise((r) => setTimeout(r, 50));
  return readFileSync(logFile, "utf8").split("\n").filter(Boolean);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const loadedOf = (urls: string[]) =>
  Object.entries(DEFERRED)
    .filter(([, pattern]) => urls.some((u) => pattern.test(u)))
    .map(([pkg]) => pkg);

describe("stdio start-up", () => {
  it("answers initialize and tools/list without loading the deferred libraries", async () => {
    const urls = await modulesLoaded("list", async (client) => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(["pubmed_trend", "pubmed_cite", "rag_search"]),
      );
    });
    // The recorder saw the server itself, ES modules and CommonJS alike.
    expect(urls.some((u) => u.endsWith("/src/server.ts"))).toBe(true);
    expect(urls.some((u) => /\/node_modules\/fastmcp\//.test(u))).toBe(true);
    expect(urls.some((u) => /\/node_modules\/winston\//.test(u))).toBe(true);
    expect(loadedOf(urls)).toEqual([]);
  }, 60_000);

  it("loads Vega and Vega-Lite on the first pubmed_trend call, xml2js on the first parse, citation-js never (pubmed_cite formats in the live thread)", async () => {
    const urls = await modulesLoaded("calls", async (client) => {
      const trend = await callTool(client, "pubmed_trend", {
        query: "asthma",
        startYear: 2020,
        endYear: 2021,
      });
      expect(trend.isError).toBe(false);
      expect(trend.content.map((c) => c.type)).toEqual(["text", "image"]);
      const cite = await callTool(client, "pubmed_cite", { pmids: ["31452104"], styles: ["apa"] });
      expect(cite.isError).toBe(false);
      expect(cite.json).toMatchObject({ citations: [{ pmid: "31452104" }] });
    });
    // The recorder hooks this thread only: citation-js and Vega (the chart) load in
    // src/live/live-thread.ts's thread.
    expect(loadedOf(urls)).toEqual(["xml2js"]);
  }, 60_000);

  it("never loads the corpus stores on the MCP thread: a corpus call opens them in the worker", async () => {
    const urls = await modulesLoaded("corpus", async (client) => {
      const search = await callTool(client, "rag_search", { query: "start-up" });
      expect(search).toMatchObject({ isError: false, json: { results: [] } });
    });
    // The recorder hooks this thread only (the worker starts without it).
    expect(
      loadedOf(urls).filter((p) => ["@electric-sql/pglite", "kysely", "pg", "usearch"].includes(p)),
    ).toEqual([]);
  }, 60_000);
});

/**
 * Runs `script` (an ES module) under the module recorder; returns its stdout and the modules it
 * loaded before and after the line `-- mark` it appends to the log (process.env.MODULE_LOG).
 */
async function loadedAroundMark(
  name: string,
  script: string,
): Promise<{ stdout: string; before: string[]; after: string[] }> {
  const logFile = join(work, `${name}.modules`);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      join(REPO_DIR, "__tests__", "helpers", "module-log.mjs"),
      "--input-type=module",
      "--eval",
      script,
    ],
    { cwd: REPO_DIR, env: { ...process.env, MODULE_LOG: logFile }, timeout: 60_000 },
  );
  const lines = readFileSync(logFile, "utf8").split("\n");
  const mark = lines.indexOf("-- mark");
  expect(mark).toBeGreaterThan(0);
  return { stdout: stdout.trim(), before: lines.slice(0, mark), after: lines.slice(mark + 1) };
}

const srcUrl = (...path: string[]) =>
  JSON.stringify(pathToFileURL(join(REPO_DIR, "src", ...path)).href);
const MARK = `(await import("node:fs")).appendFileSync(process.env.MODULE_LOG, "-- mark\\n");`;

// The corpus worker creates the configured embedder and vector store as it opens the corpus. The
// Cohere SDK costs it a quarter of a second of CPU to import, Qdrant's client a tenth: each loads
// only when it is used (Cohere) or configured (Qdrant).
describe("the corpus worker's embedder and vector store", () => {
  it("loads the Cohere SDK at the first request, not when an embedder is created", async () => {
    const { stdout, before, after } = await loadedAroundMark(
      "embedder",
      `
      import { CohereEmbedder, createEmbedder } from ${srcUrl("embeddings", "index.ts")};
      createEmbedder({ provider: "none" });
      createEmbedder({ provider: "hash" });
      const cohere = new CohereEmbedder({
        apiKey: "k", baseUrl: "http://127.0.0.1:9", model: "embed-v4.0", maxRetries: 0,
      });
      ${MARK}
      const failed = await cohere.embedQuery("q").then(() => "answered", (e) => e.constructor.name);
      console.log(failed);
    `,
    );
    // Nothing listens on port 9: the request fails, after loading the SDK to make it.
    expect(stdout).toBe("EmbeddingsError");
    expect(before.some((u) => u.includes("/src/embeddings/cohere.ts"))).toBe(true);
    expect(before.some((u) => DEFERRED["cohere-ai"].test(u))).toBe(false);
    expect(after.some((u) => DEFERRED["cohere-ai"].test(u))).toBe(true);
  }, 90_000);

  it("loads Qdrant's client only for a Qdrant vector store", async () => {
    const { stdout, before, after } = await loadedAroundMark(
      "vectors",
      `
      import { createVectorStore } from ${srcUrl("vectors", "index.ts")};
      const qdrant = { url: "http://127.0.0.1:9", apiKey: undefined, collection: "c" };
      const pg = await createVectorStore({ vectorStore: "pgvector", qdrant }, { db: {}, hasPgvector: false });
      ${MARK}
      const q = await createVectorStore({ vectorStore: "qdrant", qdrant }, { db: {}, hasPgvector: false });
      console.log(pg.kind, q.kind);
    `,
    );
    expect(stdout).toBe("pgvector qdrant");
    expect(before.some((u) => DEFERRED["@qdrant"].test(u))).toBe(false);
    expect(after.some((u) => DEFERRED["@qdrant"].test(u))).toBe(true);
  }, 90_000);
});
