/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin, one message per line on stdout.
 *
 * Replaces the SDK's StdioServerTransport, whose read buffer throws on a line over 10 MiB, removes
 * its listener and pauses stdin: the process stays alive and never answers again. Here a line is
 * held only up to MAX_STDIO_LINE_BYTES; past that its bytes are dropped as they arrive until the
 * next newline (memory stays bounded for a line of any length), the client gets a JSON-RPC error
 * naming the limit, and the next line is served. Lines that are not one JSON-RPC message get
 * -32700 or -32600 (./messages.ts) instead of silence. __tests__/protocol/stdio-limits.test.ts.
 */
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { log } from "../log.js";
import { INVALID_REQUEST, parseLine, refusalResponse, type Refusal } from "./messages.js";

/**
 * Largest stdio line (one JSON-RPC message) read, in bytes: 4 MiB. The largest legitimate call is
 * tens of kilobytes (100 references to verify, 25 citations to match, 200 PMIDs), so this leaves
 * two orders of magnitude for clients' own payloads (roots, sampling results) while a line held
 * whole, its string and its parsed object stay a few tens of megabytes.
 */
export const MAX_STDIO_LINE_BYTES = 4 * 1024 * 1024;

const NEWLINE = 0x0a;
const CR = 0x0d;

export function oversizeRefusal(maxBytes: number): Refusal {
  return {
    code: INVALID_REQUEST,
    id: null,
    message:
      `Invalid Request: a message on stdin exceeded ${maxBytes} bytes, the most one message may ` +
      `hold; it was discarded unread. Send smaller arguments: split a long list over several calls.`,
  };
}

export class StdioTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  /** The current line's bytes so far, in arrival order (no copying until it is complete). */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Inside a line already refused for its size: drop bytes up to its newline. */
  #discarding = false;
  #started = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxLineBytes = MAX_STDIO_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    if (this.#started) throw new Error("StdioTransport already started");
    this.#started = true;
    this.stdin.on("data", this.#onData);
    this.stdin.on("error", this.#onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message);
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.#onData);
    this.stdin.off("error", this.#onError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.#pending = [];
    this.#pendingBytes = 0;
    this.onclose?.();
  }

  #write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  #onError = (error: Error) => this.onerror?.(error);

  #onData = (chunk: Buffer) => {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.#discarding) this.#take(chunk.subarray(start, end));
      if (newline === -1) return;
      if (this.#discarding) this.#discarding = false;
      else this.#endLine();
      start = newline + 1;
    }
  };

  /** Adds a piece of the current line, or refuses the line once it passes the limit. */
  #take(piece: Buffer): void {
    if (this.#pendingBytes + piece.length > this.maxLineBytes) {
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#discarding = true;
      log.warn("stdio line over the size limit discarded", { maxBytes: this.maxLineBytes });
      void this.#write(refusalResponse(oversizeRefusal(this.maxLineBytes)));
      return;
    }
    if (piece.length === 0) return;
    this.#pending.push(piece);
    this.#pendingBytes += piece.length;
  }

  #endLine(): void {
    let line = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    if (line.at(-1) === CR) line = line.subarray(0, -1);
    // Blank lines (a client's "\r\n\r\n", keep-alives) carry no message and get no answer.
    if (line.every((byte) => byte === 0x20 || byte === 0x09)) return;
    const checked = parseLine(line);
    if (!checked.ok) {
      log.warn("stdio message refused", { code: checked.refusal.code });
      void this.#write(refusalResponse(checked.refusal));
      return;
    }
    try {
      this.onmessage?.(checked.message);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
