/**
 * What the Docker image does, without Docker: build the production bundle, install production
 * dependencies only into a fresh directory (as the image's runtime stage does), start it over
 * HTTP and call a tool through the SDK client. Catches a runtime import of a dev dependency, a
 * file missing from the bundle, or a start-up that only works from the source tree.
 * Skips (with a note) only when the npm registry cannot be reached.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { onUtility, startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { testEnv } from "../helpers/mcp.js";
import { REPO_DIR } from "../helpers/shared.js";
import { ESPELL_XML } from "../http/harness.js";

const run = promisify(execFile);

async function registryReachable(): Promise<boolean> {
  try {
    await run("npm", ["ping"], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** The build script's compile step, into `out` (type errors are the typecheck step's business). */
async function buildBundle(out: string): Promise<void> {
  const tsc = join(REPO_DIR, "node_modules", "typescript", "bin", "tsc");
  await run(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", out, "--noCheck"], {
    cwd: REPO_DIR,
  });
  chmodSync(join(out, "main.js"), 0o755); // as scripts/postbuild.mjs does
}

/** `npm ci --omit=dev` as in the image; `npm install` from the same lock only if ci refuses it. */
async function installProduction(dir: string): Promise<void> {
  for (const f of ["package.json", "package-lock.json"]) cpSync(join(REPO_DIR, f), join(dir, f));
  if (existsSync(join(REPO_DIR, "fixtures")))
    cpSync(join(REPO_DIR, "fixtures"), join(dir, "fixtures"), { recursive: true });
  const flags = ["--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"];
  try {
    await run("npm", ["ci", ...flags], { cwd: dir, timeout: 120_000 });
  } catch (err) {
    const out = String((err as { stderr?: string }).stderr ?? err);
    if (!/in sync/.test(out)) throw err;
    process.stderr.write(
      "note: package-lock.json is out of sync with package.json, so `npm ci` (and the Docker build) " +
        "refuses it; installing the locked versions with `npm install --omit=dev` instead. Regenerate the lock.\n",
    );
    await run("npm", ["install", ...flags], { cwd: dir, timeout: 120_000 });
  }
}

/** Starts `node dist/main.js serve --http` and resolves with its port from the start-up log line. */
function startServer(
  dir: string,
  env: Record<string, string>,
  started: ChildProcess[],
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [join(dir, "dist", "main.js"), "serve", "--http"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  return new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 20_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      const line = log.split("\n").find((l) => l.includes("serving over HTTP"));
      if (line) {
        clearTimeout(timer);
        resolve({ child, port: (JSON.parse(line) as { port: number }).port });
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}:\n${log}`)));
  });
}

const reachable = await registryReachable();
if (!reachable)
  process.stderr.write(
    "note: skipping the production-install test: the npm registry is unreachable\n",
  );

(reachable ? describe : describe.skip)("production install (what the container runs)", () => {
  let dir: string;
  let dataDir: string;
  let fake: FakeEutils;
  let server: { child: ChildProcess; port: number };
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pubmed-mcp-prod-"));
    dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-prod-data-"));
    const t0 = performance.now();
    const took = async (what: string, work: Promise<void>) => {
      await work;
      process.stderr.write(
        `production install: ${what} in ${Math.round(performance.now() - t0)} ms\n`,
      );
    };
    await Promise.all([
      took("bundle built", buildBundle(join(dir, "dist"))),
      took("dependencies installed", installProduction(dir)),
    ]);
    fake = await startFakeEutils({ routes: [onUtility("espell", { body: ESPELL_XML })] });
    // LOG_LEVEL=info: the start-up line carries the port the OS picked.
    const env = testEnv(fake, dataDir, {
      MCP_HTTP_HOST: "127.0.0.1",
      MCP_HTTP_PORT: "0",
      LOG_LEVEL: "info",
    });
    server = await startServer(dir, env, children);
  }, 150_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("holds production dependencies only", () => {
    expect(existsSync(join(dir, "node_modules", "fastmcp"))).toBe(true);
    // Not typescript: @qdrant/js-client-rest depends on it at run time.
    for (const dev of ["jest", "tsx", "eslint", "prettier", "@swc/core"]) {
      expect([dev, existsSync(join(dir, "node_modules", dev))]).toEqual([dev, false]);
    }
  });

  it("answers /health and serves a tool call over Streamable HTTP", async () => {
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const client = new Client({ name: "prod-smoke", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", base)));
    const res = await client.callTool({
      name: "pubmed_spell",
      arguments: { query: "asthmaa childrn" },
    });
    expect(res.structuredContent).toEqual({
      original: "asthmaa childrn",
      corrected: "asthma children",
      hasSuggestion: true,
    });
    expect(fake.requests.map((r) => r.utility)).toEqual(["espell"]);
    await client.close();
  });

  it("stops cleanly on SIGTERM", async () => {
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
