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

  it("loads Vega and Vega-Lite on the first pubmed_trend call, citation-js on pubmed_cite, xml2js on the first parse", async () => {
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
    expect(loadedOf(urls)).toEqual(["vega", "vega-lite", "@citation-js", "xml2js"]);
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

describe("the corpus worker's embedder", () => {
  // The worker creates the configured embedder as it opens the corpus; the Cohere SDK costs
  // a quarter of a second of CPU to import, so it loads with the first request to Cohere.
  it("loads the Cohere SDK at the first request, not when an embedder is created", async () => {
    const logFile = join(work, "embedder.modules");
    const embeddings = pathToFileURL(join(REPO_DIR, "src", "embeddings", "index.ts")).href;
    const script = `
      import { appendFileSync } from "node:fs";
      import { CohereEmbedder, createEmbedder } from ${JSON.stringify(embeddings)};
      createEmbedder({ provider: "none" });
      createEmbedder({ provider: "hash" });
      const cohere = new CohereEmbedder({
        apiKey: "k", baseUrl: "http://127.0.0.1:9", model: "embed-v4.0", maxRetries: 0,
      });
      appendFileSync(process.env.MODULE_LOG, "-- first request\\n");
      const failed = await cohere.embedQuery("q").then(() => "answered", (e) => e.constructor.name);
      console.log(failed);
    `;
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
    // Nothing listens on port 9: the request fails, after loading the SDK to make it.
    expect(stdout.trim()).toBe("EmbeddingsError");
    const lines = readFileSync(logFile, "utf8").split("\n");
    const mark = lines.indexOf("-- first request");
    const cohereAt = lines.findIndex((u) => DEFERRED["cohere-ai"].test(u));
    expect(mark).toBeGreaterThan(0);
    expect(lines.slice(0, mark).some((u) => u.includes("/src/embeddings/cohere.ts"))).toBe(true);
    expect(cohereAt).toBeGreaterThan(mark);
  }, 90_000);
});
