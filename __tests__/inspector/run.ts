/**
 * Runs the official MCP Inspector's CLI (`mcp-inspector --cli`, @modelcontextprotocol/inspector
 * 2.x) as a child process and parses its `--format json` output: one JSON object on stdout,
 * `{"result": …}` on success; on failure a non-zero exit and an error envelope on stderr.
 *
 * The Inspector keeps a catalog, client config and secrets under ~/.mcp-inspector, so every run
 * gets a throw-away HOME and the in-memory secret store: a test never touches the real home.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_DIR } from "../helpers/shared.js";

const LAUNCHER = join(
  REPO_DIR,
  "node_modules",
  "@modelcontextprotocol",
  "inspector",
  "clients",
  "launcher",
  "build",
  "index.js",
);

/** Generous: a stdio run starts the server through tsx, seconds on a loaded 2-core machine. */
const RUN_TIMEOUT_MS = 90_000;

export interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `mcp-inspector --cli <args…> --format json`, with Node 22 (this process's node). */
export function runInspectorCli(args: string[]): Promise<InspectorRun> {
  const home = mkdtempSync(join(tmpdir(), "pubmed-mcp-inspector-home-"));
  return new Promise<InspectorRun>((resolve, reject) => {
    const child = spawn(process.execPath, [LAUNCHER, "--cli", "--format", "json", ...args], {
      cwd: REPO_DIR,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        MCP_INSPECTOR_SECRET_STORE: "memory",
        NO_COLOR: "1",
        NO_PROXY: "127.0.0.1,localhost",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  }).finally(() => rmSync(home, { recursive: true, force: true }));
}

/** The `result` of a successful run; otherwise an error carrying what the Inspector said. */
export async function inspect<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const run = await runInspectorCli(args);
  let parsed: { result?: T } | undefined;
  try {
    parsed = JSON.parse(run.stdout) as { result?: T };
  } catch {
    parsed = undefined;
  }
  if (run.code !== 0 || parsed?.result === undefined) {
    throw new Error(
      `mcp-inspector --cli ${args.join(" ")} exited ${run.code}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}`,
    );
  }
  return parsed.result;
}

/** Arguments that make the Inspector spawn this server over stdio (tsx: no build needed). */
export function stdioTarget(env: Record<string, string>): string[] {
  const envArgs = Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  return [
    ...envArgs,
    "--transport",
    "stdio",
    "--",
    process.execPath,
    "--import",
    "tsx",
    join(REPO_DIR, "src", "main.ts"),
  ];
}
