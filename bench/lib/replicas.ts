/**
 * HTTP server processes (`src/main.ts serve --http` through tsx, as `npm run dev` runs it) and MCP
 * callers spread over them, for the rate-ceiling tests and the bench's `rate` section.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { REPO_DIR, freePort } from "./child.js";

export interface Replica {
  url: string;
  process: ChildProcess;
  /** The last lines the server wrote to stderr (for failure messages). */
  stderr(): string;
  close(): Promise<void>;
}

const STARTUP_MS = 90_000;

/** Starts one server on a free loopback port and waits for /readyz. */
export async function startReplica(env: Record<string, string>): Promise<Replica> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(REPO_DIR, "src", "main.ts"), "serve", "--http"],
    {
      cwd: REPO_DIR,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        LOG_LEVEL: "warn",
        ...env,
        MCP_HTTP_HOST: "127.0.0.1",
        MCP_HTTP_PORT: String(port),
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const replica: Replica = {
    url,
    process: child,
    stderr: () => stderr,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((res) => child.once("exit", res));
      child.kill("SIGTERM");
      await exited;
    },
  };
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return replica;
    await sleep(100);
  }
  await replica.close();
  throw new Error(`server at ${url} was not ready in time: ${stderr.trim().slice(-800)}`);
}

/** `n` MCP clients over Streamable HTTP, dealt round-robin over the replicas' URLs. */
export async function connectCallers(urls: readonly string[], n: number): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const client = new Client({ name: `rate-caller-${i}`, version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL("/mcp", urls[i % urls.length])),
      );
      return client;
    }),
  );
}

export interface CallTally {
  ok: number;
  /** Tool results with isError, by envelope code. */
  toolErrors: Record<string, number>;
  /** Calls that threw (transport failures, e.g. the caller's replica was killed). */
  thrown: number;
  /** The longest call, from its request to its answer, in ms. */
  longestMs: number;
  /** The first error message of each code, for a failure's report. */
  messages?: Record<string, string>;
}

/**
 * Every client calls pubmed_search `callsEach` times in sequence, all clients at once; queries are
 * unique, so the response cache never answers and each call is one request at the stand-in.
 */
export async function runCallers(
  clients: readonly Client[],
  callsEach: number,
  tag: string,
): Promise<CallTally> {
  const tally: CallTally = { ok: 0, toolErrors: {}, thrown: 0, longestMs: 0 };
  await Promise.all(
    clients.map(async (client, c) => {
      for (let k = 0; k < callsEach; k++) {
        const began = performance.now();
        try {
          const res = await client.callTool(
            { name: "pubmed_search", arguments: { query: `${tag} caller ${c} call ${k}` } },
            undefined,
            { timeout: 600_000 },
          );
          if (res.isError) {
            const text = (res.content as { text?: string }[])[0]?.text ?? "{}";
            const error = (JSON.parse(text) as { error?: { code?: string; message?: string } })
              .error;
            const code = error?.code ?? "UNKNOWN";
            tally.toolErrors[code] = (tally.toolErrors[code] ?? 0) + 1;
            tally.messages = { [code]: error?.message ?? text, ...tally.messages };
          } else tally.ok++;
        } catch {
          tally.thrown++;
        }
        tally.longestMs = Math.max(tally.longestMs, performance.now() - began);
      }
    }),
  );
  return tally;
}

/** What a test compares: calls answered, and the first message of each error code, and throws. */
export function outcome(tally: CallTally): {
  ok: number;
  errors: Record<string, string>;
  thrown: number;
} {
  return { ok: tally.ok, errors: tally.messages ?? {}, thrown: tally.thrown };
}

export async function closeCallers(clients: readonly Client[]): Promise<void> {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
}
