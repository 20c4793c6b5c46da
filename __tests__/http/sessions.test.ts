/**
 * Streamable HTTP sessions over real loopback HTTP: initialize answers an Mcp-Session-Id, later
 * requests use it, GET opens the session's notification stream, DELETE ends it, unknown or
 * expired ids get 404, the table is bounded (idle expiry, most sessions), streams resume with
 * Last-Event-ID, and the official SDK client keeps and ends its session.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FastMCPSession } from "fastmcp";
import { createServer } from "../../src/server.js";
import { onUtility } from "../helpers/fake-eutils.js";
import {
  ESPELL_XML,
  connectStreamable,
  initializeMessage,
  parseSse,
  rawRequest,
  startHttpHarness,
  type HttpHarness,
} from "./harness.js";

const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };

describe("Streamable HTTP sessions", () => {
  let h: HttpHarness;
  let mcp: string;
  /** Every FastMCPSession the front created, newest last (the server-side API of a session). */
  const created: FastMCPSession[] = [];

  const open = async (protocolVersion?: string) => {
    const res = await rawRequest(mcp, { body: initializeMessage(protocolVersion) });
    expect(res.status).toBe(200);
    const id = res.headers["mcp-session-id"];
    expect(typeof id).toBe("string");
    return { id: id as string, res };
  };
  const post = (id: string | undefined, body: unknown = LIST) =>
    rawRequest(mcp, { body, headers: id ? { "Mcp-Session-Id": id } : {} });

  beforeAll(async () => {
    h = await startHttpHarness({
      routes: [onUtility("espell", { body: ESPELL_XML })],
      server: {
        sessions: { idleMs: 60_000, max: 3 },
        sessionFactory: (transport) => {
          const session = createServer()(transport);
          created.push(session);
          return session;
        },
      },
    });
    mcp = `${h.http.url}/mcp`;
  });
  afterAll(() => h.close());

  it("answers initialize with a session id that later requests use", async () => {
    const { id, res } = await open();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const init = parseSse(res.text).map((e) => JSON.parse(e.data) as { result?: object });
    expect(init[0]?.result).toMatchObject({ serverInfo: { name: "pubmed-mcp" } });
    const listed = await post(id);
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('"name":"pubmed_spell"');
  });

  it("answers 404 with a JSON-RPC error to an unknown session id, on POST, GET and DELETE", async () => {
    for (const method of ["POST", "GET", "DELETE"]) {
      const res = await rawRequest(mcp, {
        method,
        body: method === "POST" ? LIST : undefined,
        headers: { "Mcp-Session-Id": "00000000-0000-4000-8000-000000000000" },
      });
      expect([method, res.status]).toEqual([method, 404]);
      expect(JSON.parse(res.text)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32001, message: expect.stringContaining("initialize") },
      });
    }
  });

  it("ends a session on DELETE; its id is then unknown", async () => {
    const { id } = await open();
    const del = await rawRequest(mcp, { method: "DELETE", headers: { "Mcp-Session-Id": id } });
    expect(del.status).toBe(200);
    expect((await post(id)).status).toBe(404);
  });

  it("needs a session id for GET and DELETE, and serves a sessionless POST statelessly", async () => {
    expect((await rawRequest(mcp, { method: "GET" })).status).toBe(400);
    expect((await rawRequest(mcp, { method: "DELETE" })).status).toBe(400);
    const oneShot = await post(undefined);
    expect(oneShot.status).toBe(200);
    expect(oneShot.headers["mcp-session-id"]).toBeUndefined();
    expect(oneShot.text).toContain('"name":"pubmed_spell"');
  });

  it("delivers a server notification on the session's GET stream", async () => {
    const { id } = await open();
    const session = created.at(-1)!;
    const controller = new AbortController();
    const stream = await fetch(mcp, {
      headers: { Accept: "text/event-stream", "Mcp-Session-Id": id },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    // Sent by the session itself, outside any request: only the GET stream can carry it.
    await session.server.sendResourceListChanged();
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n") || !text.includes("list_changed")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    controller.abort();
    const events = parseSse(text).filter((e) => e.data);
    expect(events.map((e) => JSON.parse(e.data))).toContainEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/list_changed",
    });
    expect(events[0]?.id).toBeTruthy(); // resumable: every event carries an id
  });

  it("primes 2025-11-25 POST streams with an event id and retry, and replays after Last-Event-ID", async () => {
    const { id } = await open("2025-11-25");
    const res = await rawRequest(mcp, {
      body: LIST,
      headers: { "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25" },
    });
    const events = parseSse(res.text);
    expect(events[0]).toEqual({ id: expect.any(String), retry: "1000", data: "" });
    expect(JSON.parse(events[1]!.data)).toMatchObject({
      id: 2,
      result: { tools: expect.any(Array) },
    });
    // A client that lost the stream after the priming event gets the response again.
    const controller = new AbortController();
    const resumed = await fetch(mcp, {
      headers: {
        Accept: "text/event-stream",
        "Mcp-Session-Id": id,
        "Mcp-Protocol-Version": "2025-11-25",
        "Last-Event-ID": events[0]!.id!,
      },
      signal: controller.signal,
    });
    expect(resumed.status).toBe(200);
    const reader = resumed.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes('"tools"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    controller.abort();
    const replayed = parseSse(text).filter((e) => e.data);
    expect(replayed.map((e) => e.id)).toEqual([events[1]!.id]);
    // Another session's event id is unknown to this one.
    const other = await open("2025-11-25");
    const foreign = await rawRequest(mcp, {
      method: "GET",
      headers: { "Mcp-Session-Id": other.id, "Last-Event-ID": events[0]!.id! },
    });
    expect(foreign.status).toBe(400);
  });

  it("keeps at most `max` sessions, closing the least recently used idle one", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await open()).id);
    // max is 3: the oldest of these four (and anything older) is gone; the newest three answer.
    expect((await post(ids[0])).status).toBe(404);
    for (const id of ids.slice(1)) expect((await post(id)).status).toBe(200);
  });

  it("lets the SDK client keep its session and end it with DELETE", async () => {
    const client = await connectStreamable(h.http.url);
    const transport = client.transport as StreamableHTTPClientTransport;
    const id = transport.sessionId!;
    expect(
      (await client.callTool({ name: "pubmed_spell", arguments: { query: "asthmaa childrn" } }))
        .isError,
    ).toBeFalsy();
    expect((await post(id)).status).toBe(200);
    await transport.terminateSession();
    expect((await post(id)).status).toBe(404);
    await client.close();
  });
});

describe("idle sessions", () => {
  let h: HttpHarness;
  beforeAll(async () => {
    h = await startHttpHarness({ server: { sessions: { idleMs: 300, sweepMs: 50 } } });
  });
  afterAll(() => h.close());

  it("expires a session idle for idleMs, but not one listening on its GET stream", async () => {
    const mcp = `${h.http.url}/mcp`;
    const idle = (await rawRequest(mcp, { body: initializeMessage() })).headers[
      "mcp-session-id"
    ] as string;
    const listening = (await rawRequest(mcp, { body: initializeMessage() })).headers[
      "mcp-session-id"
    ] as string;
    const controller = new AbortController();
    const stream = await fetch(mcp, {
      headers: { Accept: "text/event-stream", "Mcp-Session-Id": listening },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    const status = async (id: string) =>
      (await rawRequest(mcp, { body: LIST, headers: { "Mcp-Session-Id": id } })).status;
    // Any request would refresh the idle session, so wait untouched well past idleMs + sweepMs.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await status(idle)).toBe(404);
    expect(await status(listening)).toBe(200);
    controller.abort();
  });
});
