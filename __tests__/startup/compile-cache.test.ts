/**
 * Node's compile cache reaches the worker threads (src/startup/index.ts): `enableCompileCache`
 * covers only the thread that calls it, and the corpus worker loads most of the server's code.
 * Each case runs prepareStartup in a process of its own, with a TMPDIR of its own (where the cache
 * goes by default), then starts a worker thread that reports its cache directory.
 */
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { REPO_DIR } from "../helpers/shared.js";

const STARTUP = pathToFileURL(join(REPO_DIR, "src", "startup", "index.ts")).href;
const WORKER = `
  import module from "node:module";
  import { parentPort } from "node:worker_threads";
  parentPort.postMessage(module.getCompileCacheDir() ?? null);
`;
const SCRIPT = `
  import module from "node:module";
  import { Worker } from "node:worker_threads";
  import { prepareStartup } from ${JSON.stringify(STARTUP)};
  prepareStartup();
  const worker = new Worker(${JSON.stringify(WORKER)}, { eval: true });
  worker.once("message", async (dir) => {
    console.log(JSON.stringify({ main: module.getCompileCacheDir() ?? null, worker: dir }));
    await worker.terminate();
  });
`;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "pubmed-mcp-compile-cache-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The cache directories of the main thread and of a worker it starts, after prepareStartup. */
async function cacheDirs(
  name: string,
  env: Record<string, string> = {},
): Promise<{ main: string | null; worker: string | null }> {
  const base = { ...process.env };
  delete base.NODE_COMPILE_CACHE;
  delete base.NODE_DISABLE_COMPILE_CACHE;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "--eval", SCRIPT],
    { cwd: REPO_DIR, env: { ...base, TMPDIR: join(work, name), ...env }, timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
    main: string | null;
    worker: string | null;
  };
}

it("a worker thread uses the compile cache the entry point enabled, under TMPDIR", async () => {
  const { main, worker } = await cacheDirs("default");
  expect(main?.startsWith(join(work, "default", "node-compile-cache"))).toBe(true);
  expect(worker).toBe(main);
}, 90_000);

it("NODE_COMPILE_CACHE still chooses the directory, for both threads", async () => {
  const chosen = join(work, "chosen");
  const { main, worker } = await cacheDirs("chosen-tmp", { NODE_COMPILE_CACHE: chosen });
  expect(main?.startsWith(chosen)).toBe(true);
  expect(worker).toBe(main);
}, 90_000);

it("NODE_DISABLE_COMPILE_CACHE=1 leaves both threads without one", async () => {
  const dirs = await cacheDirs("disabled", { NODE_DISABLE_COMPILE_CACHE: "1" });
  expect(dirs).toEqual({ main: null, worker: null });
}, 90_000);
