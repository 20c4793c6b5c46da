/**
 * `npm run demo` (src/devtools/demo.ts), spawned for real over stdio through tsx, as an agent
 * configured with `demo.js --stdio` starts it: its corpus is throw-away (a fresh folder a run,
 * removed when the demo stops, so a second run's sync inserts every record again), and the
 * command line it prints reaches the demo's synthetic NCBI with a data directory of its own.
 */
import { describe, expect, it, jest } from "@jest/globals";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { demoCorpus } from "../../src/devtools/synth-ncbi.js";
import { REPO_DIR } from "../helpers/shared.js";

jest.setTimeout(600_000);
const TERM = "long covid";
const expected = demoCorpus({ review: true }).pmidsFor(TERM).length;

interface DemoRun {
  client: Client;
  /** What the demo wrote to stderr so far. */
  notes: () => string;
  /** Stops the demo as Ctrl-C does, and waits until it has exited. */
  stop: () => Promise<void>;
}

async function startDemo(env: Record<string, string> = {}): Promise<DemoRun> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", join(REPO_DIR, "src", "devtools", "demo.ts"), "--stdio"],
    cwd: REPO_DIR,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      TMPDIR: process.env.TMPDIR ?? "",
      XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? "",
      LOG_LEVEL: "error",
      ...env,
    },
    stderr: "pipe",
  });
  let text = "";
  transport.stderr?.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const client = new Client({ name: "demo-test", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid ?? 0;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const stop = async () => {
    // SIGINT, not the SDK's close (which kills with SIGKILL 4 s on, while a store may still close).
    if (alive()) process.kill(pid, "SIGINT");
    for (let i = 0; i < 1200 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    await client.close();
  };
  return { client, notes: () => text, stop };
}

async function sync(client: Client): Promise<{ inserted: number }> {
  const res = await client.callTool(
    { name: "pubmed_sync_delta", arguments: { query_key: "lc", term: TERM } },
    undefined,
    { timeout: 600_000 },
  );
  return res.structuredContent as { inserted: number };
}

/** The folder the demo names as its throw-away corpus. */
function storeDir(notes: string): string {
  const m = /throw-away corpus in (\S+):/.exec(notes);
  expect(m).not.toBeNull();
  return m?.[1] ?? "";
}

/** Runs a command line the demo printed (`VAR=value … node … <command>`), replacing its command. */
async function runPrinted(notes: string, command: string[]): Promise<string> {
  const line = notes.split("\n").find((l) => l.includes(" sync --query-key lc")) ?? "";
  const vars = Object.fromEntries(
    [...line.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [m[1] ?? "", m[2] ?? ""]),
  );
  const args = /\bnode (.+?) sync --query-key/.exec(line)?.[1]?.split(" ") ?? [];
  expect(Object.keys(vars)).toEqual(["NCBI_EUTILS_BASE_URL", "PUBMED_MCP_DATA_DIR"]);
  const { stdout } = await promisify(execFile)(process.execPath, [...args, ...command], {
    cwd: REPO_DIR,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...vars },
  });
  return stdout;
}

describe("npm run demo", () => {
  it("keeps each run's corpus in a fresh folder it removes at exit, and prints a working CLI", async () => {
    const first = await startDemo();
    let dir = "";
    try {
      expect(await sync(first.client)).toMatchObject({ inserted: expected });
      dir = storeDir(first.notes());
      expect(existsSync(dir)).toBe(true);
      expect(first.notes()).toMatch(
        /without it the CLI writes into \S+pubmed-mcp, your own corpus/,
      );

      const synced = JSON.parse(
        await runPrinted(first.notes(), ["sync", "--query-key", "lc", "--term", TERM, "--json"]),
      ) as { inserted: number };
      expect(synced.inserted).toBe(expected);
      const found = JSON.parse(await runPrinted(first.notes(), ["search", TERM, "--json"])) as {
        results: unknown[];
      };
      expect(found.results.length).toBeGreaterThan(0);
    } finally {
      await first.stop();
    }
    // The demo's folder (its store and the CLI's) is gone once the demo has stopped.
    expect(existsSync(join(dir, ".."))).toBe(false);

    // A second run starts empty: its sync inserts every record again.
    const second = await startDemo();
    try {
      expect(await sync(second.client)).toMatchObject({ inserted: expected });
      expect(storeDir(second.notes())).not.toBe(dir);
    } finally {
      await second.stop();
    }
  });
});
