/**
 * The edges section's drivers over stdio: the generated calls through the SDK Client (a few at a
 * time), and the raw oversized and malformed lines, each followed by a ping on the same session.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { generateCall, type Kind, type Seeds, type ToolSchema } from "./edges-calls.js";
import type { RawMessage } from "./edges-raw.js";
import { outcomeOf, type Line, type StdioLines } from "./edges-server.js";

/** Far above any call's time on a loaded machine: only a server that never answers reaches it. */
export const CALL_TIMEOUT_MS = 120_000;
const PING_TIMEOUT_MS = 15_000;
const RAW_ANSWER_MS = 30_000;

export interface CallRecord {
  tool: string;
  kind: Kind;
  requestBytes: number;
  /** 0 when no answer came. */
  answerBytes: number;
  /** The result's content as the answer ceiling counts it: text blocks and data (0: none). */
  contentBytes: number;
  /** "ok", an envelope code, "JSON-RPC <code>", "no answer (timeout)" or "client: …". */
  outcome: string;
  excerpt?: string;
  ms: number;
}

const excerpt = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 160);

/** One call as the SDK Client makes it, with its bytes both ways as they crossed the pipe. */
export async function measuredCall(
  client: Client,
  lines: StdioLines,
  tag: number,
  tool: string,
  args: unknown,
): Promise<Omit<CallRecord, "kind">> {
  const params = { name: tool, arguments: args as Record<string, unknown> };
  lines.tag(params, tag);
  const t0 = performance.now();
  let failure: unknown;
  let contentBytes = 0;
  try {
    const res = await client.callTool(params, undefined, { timeout: CALL_TIMEOUT_MS });
    for (const block of res.content as { text?: string; data?: string }[]) {
      contentBytes += Buffer.byteLength(block.text ?? "") + (block.data?.length ?? 0);
    }
  } catch (err) {
    failure = err;
  }
  const ms = performance.now() - t0;
  const size = lines.sizes.get(tag);
  lines.sizes.delete(tag);
  const timedOut = failure instanceof McpError && failure.code === ErrorCode.RequestTimeout;
  let outcome = size?.outcome ?? (timedOut ? "no answer (timeout)" : `client: ${excerpt(failure)}`);
  // The answer came and is a result, but the Client refused it (its output-schema check).
  if (outcome === "ok" && failure) outcome = "ok, refused by the client";
  return {
    tool,
    requestBytes: size?.request ?? 0,
    answerBytes: size?.answer ?? 0,
    contentBytes,
    outcome,
    ...(size?.excerpt || failure ? { excerpt: size?.excerpt ?? excerpt(failure) } : {}),
    ms,
  };
}

export async function runFuzz(opts: {
  client: Client;
  lines: StdioLines;
  tools: ToolSchema[];
  seeds: Seeds;
  seed: number;
  calls: number;
  concurrency: number;
  /** Called after every tenth of the calls (one worker waits for it; the others go on). */
  checkpoint: (done: number) => Promise<void>;
}): Promise<CallRecord[]> {
  const records: CallRecord[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < opts.calls; i = next++) {
      const g = generateCall(opts.seed, i, opts.tools, opts.seeds);
      const r = await measuredCall(opts.client, opts.lines, i, g.tool, g.arguments);
      records.push({ ...r, kind: g.kind });
      if ((i + 1) % Math.ceil(opts.calls / 10) === 0) await opts.checkpoint(i + 1);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return records;
}

/** Ping round trips every `everyMs` until stopped: a view of the server's loop from outside. */
export function pinger(client: Client, everyMs: number): () => Promise<number[]> {
  const rtts: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await client.ping({ timeout: PING_TIMEOUT_MS }).then(
        () => rtts.push(performance.now() - t0),
        () => rtts.push(Infinity),
      );
      await new Promise((res) => setTimeout(res, everyMs));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return rtts;
  };
}

export async function alive(client: Client): Promise<boolean> {
  return client.ping({ timeout: PING_TIMEOUT_MS }).then(
    () => true,
    () => false,
  );
}

export interface RawOutcome {
  name: string;
  expect: string;
  got: string;
  answerBytes: number;
  alive: boolean;
}

/**
 * Each raw line, its answer (or none within 30 s), then a ping on the same session. A server
 * that stops reading its stdin (the SDK's transport did, after a line over 10 MiB) leaves the
 * write waiting for ever: after 30 s the line counts as unread and the rest are not sent.
 */
export async function runRawStdio(
  client: Client,
  lines: StdioLines,
  messages: RawMessage[],
): Promise<RawOutcome[]> {
  const out: RawOutcome[] = [];
  for (const [i, m] of messages.entries()) {
    const answer = new Promise<Line | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), RAW_ANSWER_MS);
      lines.onOther = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
    const written = await Promise.race([
      lines.writeRaw(Buffer.concat([m.body, Buffer.from("\n")])).then(
        () => "yes",
        (err: NodeJS.ErrnoException) => `write failed (${err.code ?? err.message})`,
      ),
      sleep(RAW_ANSWER_MS).then(() => "stdin no longer read"),
    ]);
    const line = written === "yes" ? await answer : undefined;
    lines.onOther = undefined;
    const got = written !== "yes" ? written : line ? outcomeOf(line.raw) : "no answer";
    const { name, expect } = m;
    out.push({ name, expect, got, answerBytes: line?.bytes ?? 0, alive: await alive(client) });
    if (written !== "yes") {
      for (const { name, expect } of messages.slice(i + 1))
        out.push({ name, expect, got: `not sent: ${written}`, answerBytes: 0, alive: false });
      break;
    }
  }
  return out;
}
