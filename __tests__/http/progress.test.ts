/**
 * A sync's progress over the doors remote users use: on Streamable HTTP and legacy SSE every
 * `notifications/progress` of a `pubmed_sync_delta` call reaches the client before the call's
 * result, and the last one says the whole sync is done. The server sends them itself
 * (src/protocol/calls.ts), on the request's own stream.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
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

describe.each([
  ["Streamable HTTP", connectStreamable],
  ["SSE", connectSse],
])("sync progress over %s", (_name, connect) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(h.http.url);
  });
  afterAll(async () => {
    await client.close();
  });

  it("arrives before the result, the last one at the sync's total", async () => {
    const events: (Progress | "result")[] = [];
    const key = `progress-${_name.replace(/\W/g, "")}`;
    const result = await client.callTool(
      { name: "pubmed_sync_delta", arguments: { query_key: key, term: "long covid" } },
      undefined,
      { timeout: 120_000, onprogress: (p) => void events.push(p) },
    );
    events.push("result");
    expect(result.isError).toBeFalsy();
    const { pmids_processed } = JSON.parse((result.content as { text: string }[])[0]!.text) as {
      pmids_processed: number;
    };
    expect(pmids_processed).toBeGreaterThan(0);
    const progress = events.filter((e): e is Progress => e !== "result");
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ progress: pmids_processed, total: pmids_processed });
  });
});
