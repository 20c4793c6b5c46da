/**
 * The stdio transport fails safe (issue 45, findings 1 and 7): a line over the size limit and
 * a line that is not one JSON-RPC message each get a JSON-RPC error, and the same process goes
 * on answering. Driven over a real spawned server with raw bytes on its stdin.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_STDIO_LINE_BYTES } from "../../src/protocol/stdio.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { MALFORMED, ping, refusal } from "../helpers/malformed-jsonrpc.js";
import { testEnv } from "../helpers/mcp.js";
import { REPO_DIR } from "../helpers/paths.js";

type Reply = {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
};

const MiB = 1024 * 1024;
/** Far above any answer's time on a loaded machine; only a silent server reaches it. */
const REPLY_WAIT_MS = 60_000;

/** A spawned server spoken to line by line; replies are read in order. */
class RawStdio {
  readonly child: ChildProcessWithoutNullStreams;
  #out = "";
  #replies: Reply[] = [];
  #waiting: ((reply: Reply) => void)[] = [];

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, ["--import", "tsx", join(REPO_DIR, "src", "main.ts")], {
      cwd: REPO_DIR,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    });
    this.child.stderr.resume();
    this.child.stdout.on("data", (d: Buffer) => {
      this.#out += d.toString();
      let newline: number;
      while ((newline = this.#out.indexOf("\n")) !== -1) {
        const reply = JSON.parse(this.#out.slice(0, newline)) as Reply;
        this.#out = this.#out.slice(newline + 1);
        const waiter = this.#waiting.shift();
        if (waiter) waiter(reply);
        else this.#replies.push(reply);
      }
    });
  }

  /** Writes bytes, waiting for the pipe to drain (a server that stops reading stalls here). */
  async write(data: string | Buffer): Promise<void> {
    if (!this.child.stdin.write(data)) {
      await new Promise<void>((resolve) => this.child.stdin.once("drain", resolve));
    }
  }

  /** The next reply; a server that stopped answering fails the test here, not at jest's timeout. */
  next(): Promise<Reply> {
    const ready = this.#replies.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const waiter = (reply: Reply) => {
        clearTimeout(timer);
        resolve(reply);
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(new Error(`no reply within ${REPLY_WAIT_MS} ms: the server stopped answering`));
      }, REPLY_WAIT_MS);
      this.#waiting.push(waiter);
    });
  }

  async request(id: number, method: string, params?: object): Promise<Reply> {
    await this.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return this.next();
  }

  /** Peak and current resident memory of the server process, in bytes (Linux /proc). */
  memory(): { peak: number; rss: number } {
    const status = readFileSync(`/proc/${this.child.pid}/status`, "utf8");
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
    return { peak: kb("VmHWM") * 1024, rss: kb("VmRSS") * 1024 };
  }

  /** A line of `bytes` bytes, newline included (a ping padded to size), written 1 MiB at a time. */
  async writeLongLine(bytes: number): Promise<void> {
    const head = `{"jsonrpc":"2.0","id":"long","method":"ping","params":{"pad":"`;
    const tail = `"}}\n`;
    await this.write(head);
    const block = Buffer.alloc(MiB, "x");
    let left = bytes - head.length - tail.length;
    for (; left >= MiB; left -= MiB) await this.write(block);
    await this.write(block.subarray(0, left));
    await this.write(tail);
  }
}

let fake: FakeEutils;
let dataDir: string;
let server: RawStdio;
let nextId = 100;

/** The session still works: ping, then tools/list with the server's tools. */
async function expectAlive(): Promise<void> {
  const ping = nextId++;
  expect(await server.request(ping, "ping")).toEqual({ jsonrpc: "2.0", id: ping, result: {} });
  const list = nextId++;
  const tools = await server.request(list, "tools/list");
  expect(tools).toMatchObject({ jsonrpc: "2.0", id: list });
  expect((tools.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain(
    "pubmed_spell",
  );
}

const oversize = {
  jsonrpc: "2.0",
  id: null,
  error: {
    code: -32600,
    message: expect.stringMatching(
      new RegExp(`exceeded ${MAX_STDIO_LINE_BYTES} bytes.*Send smaller arguments`),
    ),
  },
};

beforeAll(async () => {
  fake = await startFakeEutils();
  dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-stdio-limits-"));
  server = new RawStdio(testEnv(fake, dataDir));
  const init = await server.request(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  });
  expect(init).toMatchObject({ id: 1, result: { serverInfo: { name: "pubmed-mcp" } } });
  await server.write(
    `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
  );
});

afterAll(async () => {
  server.child.stdin.end();
  if (server.child.exitCode === null) {
    await new Promise((resolve) => server.child.once("exit", resolve));
  }
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("stdio: oversize lines", () => {
  it("limits a message to 4 MiB", () => {
    expect(MAX_STDIO_LINE_BYTES).toBe(4 * MiB);
  });

  it("answers a line at the limit as usual", async () => {
    await server.writeLongLine(MAX_STDIO_LINE_BYTES + 1);
    expect(await server.next()).toEqual({ jsonrpc: "2.0", id: "long", result: {} });
    await expectAlive();
  });

  it("refuses a 12 MiB line with -32600 naming the limit, then serves the next lines", async () => {
    await server.writeLongLine(12 * MiB);
    expect(await server.next()).toEqual(oversize);
    await expectAlive();
  });

  it("reads a 256 MiB line without holding it", async () => {
    const before = server.memory();
    await server.writeLongLine(256 * MiB);
    expect(await server.next()).toEqual(oversize);
    await expectAlive();
    const after = server.memory();
    // A line held anywhere (as bytes or as a string) would add at least 256 MB to the peak.
    expect(after.peak - before.peak).toBeLessThan(128 * MiB);
    expect(after.rss - before.rss).toBeLessThan(200 * MiB);
  });

  it("refuses an oversize line that arrives in one write with the next message", async () => {
    const big = `{"pad":"${"y".repeat(MAX_STDIO_LINE_BYTES)}"}\n`;
    await server.write(`${big}${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" })}\n`);
    expect(await server.next()).toEqual(oversize);
    expect(await server.next()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
  });
});

describe("stdio: malformed messages", () => {
  it.each(MALFORMED)("answers %s with its error and goes on", async (_name, line, code, id) => {
    await server.write(line);
    await server.write("\n");
    expect(await server.next()).toEqual(refusal(code, id));
    const check = nextId++;
    expect(await server.request(check, "ping")).toEqual({ jsonrpc: "2.0", id: check, result: {} });
  });

  it("answers the largest exact id, and ignores blank lines", async () => {
    await server.write(`\n\r\n  \n${ping("9007199254740991")}\r\n`);
    expect(await server.next()).toEqual({ jsonrpc: "2.0", id: 9007199254740991, result: {} });
    await expectAlive();
  });
});
