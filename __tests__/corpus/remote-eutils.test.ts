/**
 * The corpus worker's E-utilities client (src/worker/remote-eutils.ts) over a real
 * MessageChannel, with the channel of src/net on both ends: a request made through a call's view
 * is made within that call (so the MCP thread stops it when the call ends there), the client
 * itself makes its requests within none, a reply settles the request whichever view made it, and
 * a request whose signal aborts fails with an AbortError and is cancelled on the MCP side. The
 * typed methods of Eutils come down to the same requests.
 */
import { afterEach, describe, expect, it } from "@jest/globals";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { ERROR_CLASSES } from "../../src/errors.js";
import type { Served } from "../../src/net/channel.js";
import { ParentChannel } from "../../src/net/thread-channel.js";
import { RemoteEutils } from "../../src/worker/remote-eutils.js";
import type { EutilsReply, EutilsRequest, OwnerApi, WorkerApi } from "../../src/worker/protocol.js";

let ports: MessagePort[] = [];
afterEach(() => {
  for (const p of ports) p.close();
  ports = [];
});

interface Seen {
  request: EutilsRequest;
  signal: AbortSignal;
  answer: (value: EutilsReply) => void;
}

/**
 * A client on the worker's end of a channel, and the MCP thread's end: it holds each "eutils"
 * request until the test answers it (or its signal aborts), and can make "call" requests the
 * worker's end serves with `call`.
 */
function connected(
  call: (client: RemoteEutils, served: Served) => Promise<unknown> = () => Promise.resolve(),
) {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const worker = new ParentChannel<OwnerApi>(port1, ERROR_CLASSES);
  const client = new RemoteEutils(worker);
  worker.serve({ call: (_: unknown, served: Served) => call(client, served) });
  const seen: Seen[] = [];
  const arrived = new Set<(s: Seen) => void>();
  const mcp = new ParentChannel<WorkerApi>(port2, ERROR_CLASSES).serve({
    eutils: (request: EutilsRequest, served: Served) =>
      new Promise<EutilsReply>((answer) => {
        const s = { request, signal: served.signal, answer };
        seen.push(s);
        for (const f of arrived) f(s);
      }),
  });
  const next = () =>
    new Promise<Seen>((resolve) => {
      const f = (s: Seen) => {
        arrived.delete(f);
        resolve(s);
      };
      arrived.add(f);
    });
  return { client, mcp, seen, next };
}

const reply = (body: string): EutilsReply => ({
  body,
  url: "https://eutils.test/esearch.fcgi",
  method: "GET",
  fromCache: false,
});

describe("RemoteEutils", () => {
  it("makes a view's requests within its call, so the call ending stops them; the client's within none", async () => {
    const { client, mcp, next } = connected((c, served) =>
      c.forCall(served.id).request("esearch", { db: "pubmed", term: "a" }),
    );
    const controller = new AbortController();
    const sent = next();
    const call = mcp.request("call", { op: "sync", args: [] }, { signal: controller.signal });
    call.catch(() => undefined);
    const first = await sent;
    expect(first.request).toMatchObject({
      utility: "esearch",
      params: { db: "pubmed", term: "a" },
    });
    const plain = next();
    void client.request("einfo", {}).catch(() => undefined);
    const second = await plain;
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    // The call's own request stops with the call on the MCP side, at once; the other stays.
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(false);
    second.answer(reply("<eInfoResult/>"));
  });

  it("settles a view's request from the reply, and cancels it on abort", async () => {
    const { client, next } = connected();
    const view = client.forCall(3);
    const sent = next();
    const answer = view.requestBytes("efetch", { db: "pubmed" });
    const msg = await sent;
    expect(msg.request).toMatchObject({ utility: "efetch", bytes: true });
    const value = { bytes: new Uint8Array([1, 2]), url: "u", method: "GET" } as const;
    msg.answer(value as never);
    await expect(answer).resolves.toEqual(value);

    const controller = new AbortController();
    const asked = next();
    const aborted = view.request("esummary", {}, { signal: controller.signal });
    const held = await asked;
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
    // The MCP side is told: the request's signal there aborts.
    if (!held.signal.aborted) {
      await new Promise((resolve) => held.signal.addEventListener("abort", resolve));
    }
    expect(held.signal.aborted).toBe(true);
  });

  it("answers an abort whose reason is no Error with an AbortError", async () => {
    const { client, next } = connected();
    const controller = new AbortController();
    const asked = next();
    const aborted = client.request("einfo", {}, { signal: controller.signal });
    await asked;
    controller.abort("gone");
    await expect(aborted).rejects.toMatchObject({
      name: "AbortError",
      message: "The operation was aborted",
    });
  });

  it("sends the typed methods' requests, and reads their replies here", async () => {
    const { client, next } = connected();
    const sent = next();
    const search = client
      .forCall(1)
      .esearch({ db: "pubmed", term: "a", retmax: 0, usehistory: "y" }, { noCache: true });
    const msg = await sent;
    expect(msg.request).toEqual({
      utility: "esearch",
      params: { db: "pubmed", term: "a", retmax: 0, usehistory: "y" },
      opts: { noCache: true },
    });
    msg.answer(
      reply(
        `<?xml version="1.0"?><eSearchResult><Count>42</Count><RetMax>0</RetMax><RetStart>0</RetStart>` +
          `<QueryKey>1</QueryKey><WebEnv>MCID_1</WebEnv><IdList/></eSearchResult>`,
      ),
    );
    const { value } = await search;
    expect(value).toMatchObject({ count: 42, webEnv: "MCID_1", queryKey: "1" });
  });
});
