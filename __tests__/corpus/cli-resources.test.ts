/**
 * The corpus from a terminal (`pubmed-mcp sync | search | reindex`, spawned as a real process) and
 * through the corpus resources, on the offline demo's synthetic NCBI.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { startHarness, testEnv } from "../helpers/mcp.js";
import { REPO_DIR } from "../helpers/shared.js";

// Each test starts several CLI or server processes under tsx, each opening the embedded store:
// with two other test runs beside this one (load about 15) one test took over 120 s.
jest.setTimeout(600_000);
const run = promisify(execFile);
const corpus = demoCorpus();
const TERM = "long covid";

let fake: FakeEutils;
let dataDir: string;
beforeAll(async () => {
  const handle = synthHandler(corpus);
  fake = await startFakeEutils({ routes: [(req) => handle(req)] });
  dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-cli-"));
});
afterAll(async () => {
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ["--import", "tsx", join(REPO_DIR, "src", "main.ts"), ...args], {
    cwd: REPO_DIR,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...testEnv(fake, dataDir) },
  });
}

describe("command line help", () => {
  it("prints help and the version on stdout with exit 0", async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_DIR, "package.json"), "utf8")) as {
      version: string;
    };
    expect(await cli("--version")).toEqual({ stdout: `${version}\n`, stderr: "" });
    const usage = await cli("--help");
    expect(usage.stderr).toBe("");
    for (const command of ["serve", "sync", "search", "reindex", "--version"]) {
      expect(usage.stdout).toContain(`pubmed-mcp ${command}`);
    }
    for (const command of ["serve", "sync", "search", "reindex"]) {
      const help = await cli(command, "--help");
      expect({ command, stderr: help.stderr }).toEqual({ command, stderr: "" });
      expect(help.stdout).toMatch(new RegExp(`^Usage:\\n {2}pubmed-mcp ${command}\\b`));
    }
  });

  it("refuses an unknown option with a VALIDATION message naming the command's help", async () => {
    const failed = (await cli("sync", "--query-key", "lc", "--bogus").catch((e: unknown) => e)) as {
      code: number;
      stderr: string;
    };
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^pubmed-mcp: VALIDATION: Unknown option '--bogus'.*see pubmed-mcp sync --help\n$/m,
    );
  });
});

describe("corpus CLI", () => {
  it("syncs, searches and reindexes through the same services as the tools", async () => {
    const empty = await cli("search", "long covid");
    expect(empty.stdout).toBe(
      "The local corpus is empty: sync a query first with pubmed-mcp sync.\n",
    );
    const sync = JSON.parse(
      (await cli("sync", "--query-key", "lc", "--term", TERM, "--json")).stdout,
    ) as { inserted: number; pmids_processed: number };
    expect(sync).toMatchObject({
      inserted: corpus.pmidsFor(TERM).length,
      pmids_processed: corpus.pmidsFor(TERM).length,
    });

    const again = JSON.parse(
      (await cli("sync", "--query-key", "lc", "--term", TERM, "--json")).stdout,
    ) as { inserted: number; updated: number };
    expect(again).toMatchObject({ inserted: 0, updated: 0 });

    const pmid = corpus.pmidsFor(TERM)[3] ?? "";
    const title = corpus.record(pmid)?.title ?? "";
    const search = JSON.parse(
      (await cli("search", title, "--top-k", "3", "--no-quality-bias", "--json")).stdout,
    ) as { results: { doc_id: string }[] };
    expect(search.results[0]?.doc_id).toBe(`pmid:${pmid}`);
    const stopWords = JSON.parse((await cli("search", "the", "of", "--json")).stdout) as object;
    expect(stopWords).toEqual({
      results: [],
      note: expect.stringContaining("The query has no word the index searches"),
    });

    const reindex = JSON.parse((await cli("reindex", "--json")).stdout) as {
      documents: number;
      embedding: string;
    };
    expect(reindex).toEqual({
      documents: corpus.pmidsFor(TERM).length,
      embedding: "none (lexical only)",
    });
  });

  it("exits 1 with the error envelope's message on bad input", async () => {
    await expect(cli("sync", "--query-key", "lc")).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("VALIDATION: sync needs --query-key K and --term T"),
    });
  });
});

describe("corpus resources", () => {
  it("serves resource://pubmed/corpus and resource://pubmed/paper/{pmid} like rag_get", async () => {
    const resDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-res-"));
    const h = await startHarness({ fake, env: { PUBMED_MCP_DATA_DIR: resDir } });
    try {
      await h.client.callTool({
        name: "pubmed_sync_delta",
        arguments: { query_key: "metformin", term: "metformin aging" },
      });
      const pmid = corpus.pmidsFor("metformin aging")[0] ?? "";
      const paper = await h.client.readResource({ uri: `resource://pubmed/paper/${pmid}` });
      const viaTool = await h.client.callTool({
        name: "rag_get",
        arguments: { doc_id: `pmid:${pmid}` },
      });
      expect(JSON.parse((paper.contents[0] as { text: string }).text)).toEqual(
        viaTool.structuredContent,
      );

      const info = JSON.parse(
        (
          (await h.client.readResource({ uri: "resource://pubmed/corpus" })).contents[0] as {
            text: string;
          }
        ).text,
      ) as Record<string, unknown>;
      expect(info).toMatchObject({
        documents: corpus.pmidsFor("metformin aging").length,
        // The default without COHERE_API_KEY: lexical only, no vectors.
        embedding: { provider: "none", model: "none", dimension: 0 },
        retrieval: "lexical",
        stores: { metadata: "pglite", vectors: "pgvector" },
        checkpoints: [{ query_key: "metformin", last_edat: expect.any(String) }],
      });
      expect(info.vectors).toBe(info.chunks);
      expect(info.chunks).toBeGreaterThanOrEqual(info.documents as number);

      await expect(
        h.client.readResource({ uri: "resource://pubmed/paper/1" }),
      ).rejects.toMatchObject({
        code: -32002,
        message: expect.stringContaining("pubmed_sync_delta"),
      });
    } finally {
      await h.close();
      rmSync(resDir, { recursive: true, force: true });
    }
  });
});
