/**
 * A real HTTP server (`pubmed-mcp serve --http`, spawned) on a fresh embedded store: /health
 * answers from the moment the server listens, while the corpus worker opens the store (seconds
 * of WASM Postgres start-up, off the MCP thread), and /readyz says "starting" — 503, naming the
 * checks not ready — until the stores are open, then 200.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { testEnv } from "../helpers/mcp.js";
import { REPO_DIR } from "../helpers/paths.js";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Answer {
  path: string;
  status: number;
  body: { status?: string; checks?: Record<string, { status: string }> };
}

describe("HTTP start-up on a fresh embedded store", () => {
  let fake: FakeEutils;
  let dataDir: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    fake = await startFakeEutils();
    dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-readyz-"));
  });
  afterAll(async () => {
    child?.kill("SIGTERM");
    if (child && child.exitCode === null) await new Promise((r) => child?.once("exit", r));
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers /health at once and /readyz starting, then ready", async () => {
    const port = await freePort();
    child = spawn(process.execPath, ["--import", "tsx", join(REPO_DIR, "src", "main.ts")], {
      cwd: REPO_DIR,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        ...testEnv(fake, join(dataDir, "store")),
        MCP_TRANSPORT: "http",
        MCP_HTTP_HOST: "127.0.0.1",
        MCP_HTTP_PORT: String(port),
      },
      stdio: "ignore",
    });
    const get = async (path: string): Promise<Answer | undefined> => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        return { path, status: res.status, body: (await res.json()) as Answer["body"] };
      } catch {
        return undefined; // not listening yet
      }
    };
    const answers: Answer[] = [];
    for (const end = Date.now() + 180_000; Date.now() < end; await sleep(50)) {
      const health = await get("/health");
      if (!health) continue;
      answers.push(health);
      const ready = await get("/readyz");
      if (ready) answers.push(ready);
      if (ready?.status === 200) break;
    }
    const readyz = answers.filter((a) => a.path === "/readyz");
    expect(readyz[0]).toEqual({
      path: "/readyz",
      status: 503,
      body: {
        status: "starting",
        checks: {
          metadata_store: expect.objectContaining({ status: "starting" }),
          vector_store: expect.objectContaining({ status: "starting" }),
          // No embedder check: the default corpus is lexical only (EMBEDDINGS_PROVIDER=none).
        },
      },
    });
    expect(readyz.at(-1)).toMatchObject({ status: 200, body: { status: "ready" } });
    // /health answered between the two, while the store was opening, and never failed.
    const firstReady = answers.findIndex((a) => a.path === "/readyz" && a.status === 200);
    expect(answers.slice(1, firstReady).some((a) => a.path === "/health")).toBe(true);
    expect(answers.filter((a) => a.path === "/health").every((a) => a.status === 200)).toBe(true);
  }, 240_000);
});
