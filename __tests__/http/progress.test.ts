/**
 * A sync's progress over the doors remote users use: on Streamable HTTP and legacy SSE every
 * `notifications/progress` of a `pubmed_sync_delta` call is on the wire before the call's result,
 * and the last one says the whole sync is done. The server sends them itself
 * (src/protocol/calls.ts), on the request's own stream.
 *
 * The order is checked on the messages the client transport receives, not on what the SDK hands
 * to `onprogress`: the SDK client dispatches a response at once but a notification a microtask
 * later, so when the last progress and the result arrive in one read it retires the token first
 * and drops that progress (typescript-sdk issue #2580). The server cannot prevent a shared read;
 * what it controls, and what this asserts, is the order on the wire. What `onprogress` did get
 * must be those notifications' leading run, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { JSONRPCMessage, Progress } from "@modelcontextprotocol/sdk/types.js";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { connectSse, connectStreamable, startHttpHarness, type HttpHarness } from "./harness.js";

let h: HttpHarness;
beforeAll(async () => {
  const synth = synthHandler(demoCorpus());
  h = await startHttpHarness({ routes: [(req) => synth(req)], env: { NCBI_MAX_RPS: "100" } });
});
afterAll(async () => {
  await h.close();
});

/** Every message the client's transport receives, in arrival order, before the SDK handles it. */
function recordWire(client: Client): JSONRPCMessage[] {
  const wire: JSONRPCMessage[] = [];
  const transport = client.transport!;
  const handle = transport.onmessage;
  transport.onmessage = (message, extra) => {
    wire.push(message);
    handle?.(message, extra);
  };
  return wire;
}

type ProgressNote = {
  method: "notifications/progress";
  params: Progress & { progressToken: unknown };
};
const isProgress = (m: JSONRPCMessage): m is JSONRPCMessage & ProgressNote =>
  "method" in m && m.method === "notifications/progress";

describe.each([
  ["Streamable HTTP", connectStreamable],
  ["SSE", connectSse],
])("sync progress over %s", (name, connect) => {
  let client: Client;
  let wire: JSONRPCMessage[];
  beforeAll(async () => {
    client = await connect(h.http.url);
    wire = recordWire(client);
  });
  afterAll(async () => {
    await client.close();
  });

  it("is on the wire before the result, the last one at the sync's total", async () => {
    const delivered: Progress[] = [];
    const key = `progress-${name.replace(/\W/g, "")}`;
    const result = await client.callTool(
      { name: "pubmed_sync_delta", arguments: { query_key: key, term: "long covid" } },
      undefined,
      { timeout: 120_000, onprogress: (p) => void delivered.push(p) },
    );
    expect(result.isError).toBeFalsy();
    const { pmids_processed } = JSON.parse((result.content as { text: string }[])[0]!.text) as {
      pmids_processed: number;
    };
    expect(pmids_processed).toBeGreaterThan(0);

    const answer = wire.findIndex((m) => "id" in m && "result" in m);
    expect(answer).toBeGreaterThan(0);
    const progress = wire.filter(isProgress);
    expect(progress.length).toBeGreaterThan(0);
    expect(wire.findLastIndex(isProgress)).toBeLessThan(answer);
    const sent = progress.map((m) => m.params);
    const values = sent.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(sent.at(-1)).toMatchObject({ progress: pmids_processed, total: pmids_processed });

    const { progressToken: _token, ...first } = sent[0]!;
    if (delivered.length > 0) expect(delivered[0]).toEqual(first);
    expect(delivered.map((p) => p.progress)).toEqual(values.slice(0, delivered.length));
  });
});
