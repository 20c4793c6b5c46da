/**
 * The corpus calls as tools and completions make them (src/worker/corpus-api.ts): a paper
 * completion whose prefix no PMID can start with is answered on the calling thread, without
 * opening the stores, so it answers [] even when the stores cannot open (here: a PostgreSQL
 * server that is not there).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.js";
import { pmidsStartingWith } from "../../src/worker/corpus-api.js";
import { closeProcess, getCorpusHost, setStateForTests } from "../../src/worker/process.js";

let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-corpus-api-"));
  await setStateForTests(
    loadConfig({
      PUBMED_MCP_DATA_DIR: dataDir,
      // Port 1: nothing listens, so opening the stores fails at once.
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/absent",
      LOG_LEVEL: "error",
    }),
    { corpusThread: "inline" },
  );
});

afterAll(async () => {
  await closeProcess();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("paper completions when the stores cannot open", () => {
  it("answers a prefix that is not a PMID's with nothing, and never opens the stores", async () => {
    for (const prefix of ["abc", "12a", "1234567890", " 1"]) {
      expect(await pmidsStartingWith(prefix, 10)).toEqual([]);
    }
    expect(getCorpusHost().status()).toEqual({ status: "idle" });
  });

  it("asks the stores for a PMID prefix, and so reports that they could not open", async () => {
    await expect(pmidsStartingWith("12", 10)).rejects.toThrow();
    expect(getCorpusHost().status()).toMatchObject({ status: "failed" });
  });
});
