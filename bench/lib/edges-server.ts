/**
 * The server under test for the edges section: `src/main.ts` in a process of its own (stdio or
 * HTTP), with bench/lib/edges-probe.ts preloaded and fd 3 as the probe's channel, its resident set
 * read from /proc. Over stdio it carries its own MCP client transport (StdioLines): the SDK's
 * StdioClientTransport re-copies its whole buffer for every chunk of a line (quadratic in a
 * many-megabyte answer) and does not expose the bytes of each answer, which the section measures.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { REPO_DIR } from "./child.js";
import type { ProbeSample } from "./edges-probe.js";

/** The server measured: this checkout's, or BENCH_SERVER_DIR's (another checkout: before/after). */
const SERVER_DIR = process.env.BENCH_SERVER_DIR ?? REPO_DIR;
const PROBE = join(REPO_DIR, "bench", "lib", "edges-probe.ts");
const MB = 1024 * 1024;
const PROBE_WAIT_MS = 120_000;

/** VmRSS and VmHWM (peak) of a process, in MB; null once it is gone. */
export function procMemoryMb(pid: number): { rss: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
    const rss = kb("VmRSS");
    const peak = kb("VmHWM");
    return Number.isFinite(rss) && Number.isFinite(peak)
      ? { rss: (rss * 1024) / MB, peak: (peak * 1024) / MB }
      : null;
  } catch {
    return null;
  }
}

export class ServerProcess {
  readonly child: ChildProcess;
  #probeReplies: { resolve: (line: string) => void; reject: (err: Error) => void }[] = [];
  #stderr = "";
  #rssMax = 0;
  #sampler: NodeJS.Timeout;

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        "tsx",
        "--import",
        PROBE,
        join(SERVER_DIR, "src", "main.ts"),
        ...args,
      ],
      {
        cwd: SERVER_DIR,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
        stdio: ["pipe", "pipe", "pipe", "pipe"],
      },
    );
    // A server that exits or closes its stdin fails the write in hand (EPIPE), not the bench.
    this.child.stdin!.on("error", () => undefined);
    this.child.stderr!.on("data", (d: Buffer) => {
      this.#stderr = (this.#stderr + d.toString()).slice(-4000);
    });
    const probe = this.child.stdio[3] as Socket;
    createInterface({ input: probe }).on("line", (line) =>
      this.#probeReplies.shift()?.resolve(line),
    );
    this.child.once("exit", () => {
      for (const waiting of this.#probeReplies.splice(0)) waiting.reject(this.#gone());
    });
    // Between samples a peak could pass unseen; VmHWM (peak) is read at the end for that.
    this.#sampler = setInterval(() => {
      const m = procMemoryMb(this.pid);
      if (m) this.#rssMax = Math.max(this.#rssMax, m.rss);
    }, 250);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get stderrTail(): string {
    return this.#stderr.trim().split("\n").slice(-5).join(" | ");
  }

  /** How the process ended, or null while it runs. */
  get exited(): string | null {
    const { exitCode, signalCode } = this.child;
    if (exitCode === null && signalCode === null) return null;
    return signalCode ? `signal ${signalCode}` : `exit code ${exitCode}`;
  }

  #gone(): Error {
    return new Error(`the server ended (${this.exited ?? "?"}): ${this.stderrTail}`);
  }

  /** RSS and peak now; once the process is gone, RSS NaN and the highest RSS sampled. */
  memory(): { rss: number; peak: number } {
    return procMemoryMb(this.pid) ?? { rss: NaN, peak: this.#rssMax };
  }

  /** Asks the probe in the server; the answer waits for the server's event loop. */
  probe(command: { cmd: "sample"; reset?: boolean; gc?: boolean }): Promise<ProbeSample>;
  probe(command: { cmd: "snapshot"; path: string }): Promise<{ path: string }>;
  probe(command: object): Promise<unknown> {
    if (this.exited) return Promise.reject(this.#gone());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the probe did not answer")), PROBE_WAIT_MS);
      this.#probeReplies.push({
        resolve: (line) => {
          clearTimeout(timer);
          resolve(JSON.parse(line));
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      (this.child.stdio[3] as Socket).write(`${JSON.stringify(command)}\n`);
    });
  }

  async stop(): Promise<void> {
    clearInterval(this.#sampler);
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((res) => this.child.once("exit", res));
    this.child.stdin?.end();
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * What a tools/call answer says: "ok", the envelope's error code (VALIDATION, UNKNOWN, …) for an
 * isError result, or "JSON-RPC <code>" for a protocol error.
 */
export function outcomeOf(raw: unknown): string {
  const answer = raw as {
    result?: { isError?: boolean; content?: { text?: unknown }[] };
    error?: { code?: unknown };
  };
  if (answer?.error) return `JSON-RPC ${String(answer.error.code)}`;
  if (!answer?.result) return "not an answer";
  if (answer.result.isError !== true) return "ok";
  const text = answer.result.content?.[0]?.text;
  const code =
    typeof text === "string" ? /^\{"error":\{"code":"([A-Z_]+)"/.exec(text)?.[1] : undefined;
  return code ?? "error without envelope";
}

/** The start of an error answer's message, to say what an unexpected outcome was. */
function excerptOf(raw: unknown): string {
  const answer = raw as {
    result?: { content?: { text?: unknown }[] };
    error?: { message?: unknown };
  };
  const text = answer?.error?.message ?? answer?.result?.content?.[0]?.text;
  return typeof text === "string" ? text.slice(0, 240) : "";
}

/**
 * JSON.stringify, or for values nested past what its recursion takes (V8 throws RangeError at a
 * few thousand levels), the same text built without recursion. Only plain JSON values.
 */
export function serialize(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
  }
  const out: string[] = [];
  const stack: { entries: [string | null, unknown][]; i: number; close: string }[] = [];
  const write = (v: unknown) => {
    if (Array.isArray(v)) {
      out.push("[");
      stack.push({ entries: v.map((item) => [null, item]), i: 0, close: "]" });
    } else if (v !== null && typeof v === "object") {
      out.push("{");
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      stack.push({ entries, i: 0, close: "}" });
    } else {
      out.push(JSON.stringify(v) ?? "null");
    }
  };
  write(value);
  for (let top = stack.at(-1); top; top = stack.at(-1)) {
    const entry = top.entries[top.i];
    if (!entry) {
      out.push(top.close);
      stack.pop();
      continue;
    }
    if (top.i++ > 0) out.push(",");
    if (entry[0] !== null) out.push(`${JSON.stringify(entry[0])}:`);
    write(entry[1]);
  }
  return out.join("");
}

/** One answer line as it arrived: its bytes and the message (or why it was not one). */
export interface Line {
  bytes: number;
  message: JSONRPCMessage | undefined;
  raw: unknown;
}

/**
 * MCP over the server's stdin/stdout for the SDK Client, with every line's size. `tag` names a
 * request so its answer's size can be found: the Client passes the params object it was given to
 * `send` as is, so the caller tags that object before calling. Lines answering no request the
 * Client sent (raw messages written with `writeRaw`, refusals with id null) go to `onOther`.
 */
export class StdioLines implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  onOther?: (line: Line) => void;
  /** Request and answer bytes of tagged requests, by tag. */
  readonly sizes = new Map<
    number,
    { request: number; answer?: number; outcome?: string; excerpt?: string }
  >();
  #tags = new WeakMap<object, number>();
  #byId = new Map<string | number, number>();
  #clientIds = new Set<string | number>();
  #pending: Buffer[] = [];

  constructor(private readonly server: ServerProcess) {}

  tag(params: object, tag: number): void {
    this.#tags.set(params, tag);
  }

  async start(): Promise<void> {
    const { stdout } = this.server.child;
    stdout!.on("data", (chunk: Buffer) => {
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(0x0a, start);
        if (newline === -1) {
          if (start < chunk.length) this.#pending.push(chunk.subarray(start));
          return;
        }
        this.#pending.push(chunk.subarray(start, newline));
        const line = Buffer.concat(this.#pending);
        this.#pending = [];
        this.#line(line);
        start = newline + 1;
      }
    });
    this.server.child.once("exit", () => this.onclose?.());
  }

  #line(bytes: Buffer): void {
    let raw: unknown;
    let message: JSONRPCMessage | undefined;
    try {
      raw = JSON.parse(bytes.toString("utf8"));
      message = JSONRPCMessageSchema.parse(raw);
    } catch (err) {
      this.onerror?.(err as Error);
    }
    const line: Line = { bytes: bytes.length + 1, message, raw };
    const id = (raw as { id?: unknown } | undefined)?.id as string | number | undefined;
    const isAnswer = raw !== null && typeof raw === "object" && !("method" in raw);
    if (isAnswer && (id === undefined || id === null || !this.#clientIds.has(id))) {
      this.onOther?.(line);
      return;
    }
    if (isAnswer && id !== undefined) {
      this.#clientIds.delete(id);
      const tag = this.#byId.get(id);
      this.#byId.delete(id);
      const size = tag === undefined ? undefined : this.sizes.get(tag);
      if (size) {
        size.answer = line.bytes;
        size.outcome = outcomeOf(line.raw);
        if (size.outcome !== "ok" && size.outcome !== "VALIDATION")
          size.excerpt = excerptOf(line.raw);
      }
    }
    if (message) this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const text = `${serialize(message)}\n`;
    if ("id" in message && "method" in message) {
      this.#clientIds.add(message.id);
      const tag = message.params ? this.#tags.get(message.params) : undefined;
      if (tag !== undefined) {
        this.#byId.set(message.id, tag);
        this.sizes.set(tag, { request: Buffer.byteLength(text) });
      }
    }
    return this.writeRaw(text);
  }

  /** Bytes as they are, for messages no client would send. */
  writeRaw(data: string | Buffer): Promise<void> {
    const stdin = this.server.child.stdin!;
    return new Promise((resolve, reject) => {
      if (stdin.destroyed) return reject(new Error("the server's stdin is closed"));
      const ok = stdin.write(data, (err) => (err ? reject(err) : undefined));
      if (ok) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}
