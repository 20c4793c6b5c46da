/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, server mode) as a
 * child process against a URL and reads back its checks.
 *
 * The CLI runs one scenario per call, prints a report, writes every check it made to
 * `<output-dir>/server-<scenario>-<timestamp>/checks.json` and exits 1 when any check has status
 * FAILURE (WARNING and INFO never fail a run). The spawn is asynchronous on purpose: the server
 * under test usually lives in the same process as the test, and must keep answering.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_DIR } from "../helpers/shared.js";

const CLI = join(
  REPO_DIR,
  "node_modules",
  "@modelcontextprotocol",
  "conformance",
  "dist",
  "index.js",
);

export type CheckStatus = "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";

/** One entry of checks.json (the suite's ConformanceCheck). */
export interface Check {
  id: string;
  name: string;
  description: string;
  status: CheckStatus;
  errorMessage?: string;
  details?: unknown;
}

export interface ScenarioRun {
  exitCode: number | null;
  checks: Check[];
  /** The CLI's own report (pretty-printed checks), for failure messages. */
  stdout: string;
  stderr: string;
}

/** Generous: a scenario takes about a second alone, far longer on a loaded 2-core machine. */
const CLI_TIMEOUT_MS = 90_000;

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_DIR,
      // NO_COLOR keeps ANSI codes out of the report quoted in failure messages.
      env: { ...process.env, NO_COLOR: "1", NO_PROXY: "127.0.0.1,localhost" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), CLI_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export async function runScenario(url: string, scenario: string): Promise<ScenarioRun> {
  const outDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-conformance-"));
  try {
    const { code, stdout, stderr } = await runCli([
      "server",
      "--url",
      url,
      "--scenario",
      scenario,
      "--output-dir",
      outDir,
    ]);
    const runDir = readdirSync(outDir).find((d) => d.startsWith(`server-${scenario}-`));
    const checks = runDir
      ? (JSON.parse(readFileSync(join(outDir, runDir, "checks.json"), "utf8")) as Check[])
      : [];
    return { exitCode: code, checks, stdout, stderr };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** The server scenarios the installed suite knows (`conformance list --server`). */
export async function listServerScenarios(): Promise<string[]> {
  const { stdout } = await runCli(["list", "--server"]);
  return [...stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] ?? "");
}

/** "id: STATUS — message" for every check that is not a success, for readable failures. */
export function problems(checks: Check[]): string[] {
  return checks
    .filter((c) => c.status === "FAILURE" || c.status === "WARNING")
    .map((c) => {
      const why = c.errorMessage ?? (c.details as { message?: string } | undefined)?.message;
      return `${c.id}: ${c.status}${why ? ` — ${why}` : ""}`;
    });
}
