/**
 * logging/setLevel and notifications/message through official SDK clients: a session hears the
 * server's log only after setLevel, at or above its level, never another session's request lines
 * and never stack traces; stderr keeps LOG_LEVEL; nothing is attached to the logger once nobody
 * listens. Over stdio the messages arrive as JSON-RPC notifications.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import {
  EmptyResultSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { log } from "../../src/log.js";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { startHarness, startStdioClient, testEnv, type Harness } from "../helpers/mcp.js";
import {
  connectSession as connect,
  settle,
  waitFor,
  type LogMessage,
  type Session,
} from "./sessions.js";

jest.setTimeout(60_000);

const texts = (l: Session) => l.messages.map((m) => (m.data as { message: string }).message);

let h: Harness;
beforeAll(async () => {
  h = await startHarness(); // LOG_LEVEL=error: stderr stays quiet whatever clients ask for
  // The error lines this suite writes on purpose stay out of jest's output.
  for (const t of log.transports) t.silent = true;
});
afterAll(async () => {
  for (const t of log.transports) t.silent = false;
  await h.close();
});

describe("logging/setLevel", () => {
  it("sends each listening session the lines at or above its level, and nothing before setLevel", async () => {
    const [verbose, severe, silent] = [await connect(), await connect(), await connect()];
    try {
      expect(await verbose.client.setLoggingLevel("debug")).toEqual({});
      expect(await severe.client.setLoggingLevel("error")).toEqual({});
      expect(log.level).toBe("error");

      log.debug("protocol-test debug", { n: 1 });
      log.warn("protocol-test warning", { n: 2 });
      log.error("protocol-test error", {
        error: { message: "boom", stack: "Error: boom\n    at /srv/app/src/x.ts:1:1" },
      });
      await waitFor(() => texts(verbose).includes("protocol-test error"), "the error line");
      await waitFor(() => texts(severe).includes("protocol-test error"), "the error line");
      await settle();

      const ours = (l: Session) =>
        l.messages.filter((m) =>
          (m.data as { message: string }).message.startsWith("protocol-test"),
        );
      expect(ours(verbose)).toEqual([
        { level: "debug", logger: "pubmed-mcp", data: { message: "protocol-test debug", n: 1 } },
        {
          level: "warning",
          logger: "pubmed-mcp",
          data: { message: "protocol-test warning", n: 2 },
        },
        {
          level: "error",
          logger: "pubmed-mcp",
          data: { message: "protocol-test error", error: { message: "boom" } },
        },
      ]);
      expect(ours(severe).map((m) => m.level)).toEqual(["error"]);
      expect(silent.messages).toEqual([]);

      // A new level replaces the old one.
      await verbose.client.setLoggingLevel("warning");
      verbose.messages.length = 0;
      log.info("protocol-test info");
      log.warn("protocol-test second warning");
      await waitFor(() => texts(verbose).includes("protocol-test second warning"), "the warning");
      await settle();
      expect(texts(verbose)).toEqual(["protocol-test second warning"]);
    } finally {
      await Promise.all([verbose.close(), severe.close(), silent.close()]);
    }
    // Nobody listens any more: only the stderr transport is left on the logger.
    expect(log.transports).toHaveLength(1);
  });

  it("keeps the lines of one session's tool calls to that session", async () => {
    const [mine, other] = [await connect(), await connect()];
    try {
      await mine.client.setLoggingLevel("debug");
      await other.client.setLoggingLevel("debug");
      // No route: the fake answers 404, and the client logs each attempt at debug.
      const res = await mine.client.callTool({
        name: "pubmed_spell",
        arguments: { query: "asthmaa" },
      });
      expect(res.isError).toBe(true);
      await waitFor(() => texts(mine).includes("ncbi request"), "the ncbi request line");
      await settle();
      const line = mine.messages.find(
        (m) => (m.data as { message: string }).message === "ncbi request",
      );
      expect(line?.level).toBe("debug");
      expect(JSON.stringify(line?.data)).toContain("espell");
      expect(texts(other)).not.toContain("ncbi request");
    } finally {
      await Promise.all([mine.close(), other.close()]);
    }
  });

  it("refuses an unknown level with -32602 naming the levels", async () => {
    const l = await connect();
    try {
      await expect(
        l.client.request(
          { method: "logging/setLevel", params: { level: "verbose" } },
          EmptyResultSchema,
        ),
      ).rejects.toMatchObject({
        code: -32602,
        message:
          'MCP error -32602: Unknown log level "verbose". Levels: debug, info, notice, warning, error, critical, alert, emergency.',
      });
    } finally {
      await l.close();
    }
  });
});

describe("over stdio", () => {
  let fake: FakeEutils;
  let dataDir: string;
  beforeAll(async () => {
    fake = await startFakeEutils();
    dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-logging-"));
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("delivers log lines as notifications/message on the JSON-RPC stream", async () => {
    const { client } = await startStdioClient(testEnv(fake, dataDir));
    const messages: LogMessage[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(n.params);
    });
    try {
      await client.setLoggingLevel("debug");
      await client.callTool({ name: "pubmed_spell", arguments: { query: "asthmaa" } });
      await waitFor(
        () => messages.some((m) => (m.data as { message: string }).message === "ncbi request"),
        "an ncbi request line over stdio",
      );
    } finally {
      await client.close();
    }
  });
});
