/**
 * The real process over stdio: nothing but JSON-RPC may reach stdout (logs go to stderr), and
 * the official SDK client can list and call tools through it.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onUtility, startFakeEutils, type FakeEutils } from "./helpers/fake-eutils.js";
import { callTool, startStdioClient, testEnv } from "./helpers/mcp.js";
import { REPO_DIR } from "./helpers/shared.js";

const ESPELL = `<?xml version="1.0"?><eSpellResult><Database>pubmed</Database><Query>asthmaa</Query><CorrectedQuery>asthma</CorrectedQuery></eSpellResult>`;

let fake: FakeEutils;
let dataDir: string;
beforeAll(async () => {
  fake = await startFakeEutils({ routes: [onUtility("espell", { body: ESPELL })] });
  dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-stdio-"));
});
afterAll(async () => {
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the server with raw JSON-RPC lines on stdin and collects both output streams. */
function runRaw(
  lines: object[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(REPO_DIR, "src", "main.ts")], {
      cwd: REPO_DIR,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      // Close stdin once every request has its answer, so the server exits on its own.
      const answered = stdout.split("\n").filter((l) => l.includes('"id"')).length;
      if (answered >= lines.filter((l) => "id" in l).length) child.stdin.end();
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ stdout, stderr, code }));
    for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`);
    setTimeout(() => child.kill(), 20_000).unref();
  });
}

describe("stdio transport", () => {
  it("writes only JSON-RPC to stdout, even with debug logging", async () => {
    const { stdout, stderr } = await runRaw(
      [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "raw", version: "1" },
          },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        {
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "pubmed_spell", arguments: { query: "asthmaa" } },
        },
      ],
      testEnv(fake, dataDir, { LOG_LEVEL: "debug" }),
    );
    const lines = stdout.split("\n").filter((l) => l.trim() !== "");
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    const call = lines
      .map((l) => JSON.parse(l) as { id?: number; result?: { content: { text: string }[] } })
      .find((m) => m.id === 3);
    expect(JSON.parse(call?.result?.content[0]?.text ?? "{}")).toEqual({
      original: "asthmaa",
      corrected: "asthma",
      hasSuggestion: true,
    });
    expect(stderr).toMatch(/"level":"(debug|info)"/);
  });

  it("serves the SDK client: tools/list and a tool call", async () => {
    const { client } = await startStdioClient(testEnv(fake, dataDir));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("pubmed_spell");
      const out = await callTool(client, "pubmed_spell", { query: "asthmaa" });
      expect(out.json).toEqual({ original: "asthmaa", corrected: "asthma", hasSuggestion: true });
    } finally {
      await client.close();
    }
  });

  it("refuses bad configuration with one message listing every problem, exit code 1", async () => {
    const { stderr, code } = await runRaw([], {
      NCBI_EUTILS_BASE_URL: "not a url",
      NCBI_MAX_RPS: "zero",
      MCP_TRANSPORT: "carrier-pigeon",
    });
    expect(code).toBe(1);
    expect(stderr).toContain("NCBI_EUTILS_BASE_URL must be an http(s) URL");
    expect(stderr).toContain("NCBI_MAX_RPS must be a number");
    expect(stderr).toContain("MCP_TRANSPORT must be stdio or http");
  });
});
