/**
 * The corpus worker's E-utilities client (src/worker/remote-eutils.ts) over a real
 * MessageChannel: a request made through a call's view names that call (so the MCP thread can stop
 * it when the call is cancelled), every view draws request ids from one sequence, and a reply
 * settles the request whichever view made it.
 */
import { afterEach, describe, expect, it } from "@jest/globals";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { RemoteEutils } from "../../src/worker/remote-eutils.js";
import type { FromWorker } from "../../src/worker/protocol.js";

type EutilsMessage = Extract<FromWorker, { type: "eutils" }>;

let ports: MessagePort[] = [];
afterEach(() => {
  for (const p of ports) p.close();
  ports = [];
});

/** A client on one end of a channel and the messages that reach the other. */
function connected() {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const seen: FromWorker[] = [];
  const arrived = new Set<(m: FromWorker) => void>();
  port2.on("message", (m: FromWorker) => {
    seen.push(m);
    for (const f of arrived) f(m);
  });
  const next = () =>
    new Promise<FromWorker>((resolve) => {
      const f = (m: FromWorker) => {
        arrived.delete(f);
        resolve(m);
      };
      arrived.add(f);
    });
  return { client: new RemoteEutils(port1), seen, next };
}

describe("RemoteEutils", () => {
  it("names the call a view's requests are for; the client itself names none", async () => {
    const { client, next } = connected();
    const sent = next();
    void client.forCall(7).request("esearch", { db: "pubmed", term: "a" });
    const first = (await sent) as EutilsMessage;
    expect(first).toMatchObject({ type: "eutils", callId: 7, utility: "esearch" });
    const plain = next();
    void client.request("einfo", {});
    const second = (await plain) as EutilsMessage;
    expect(second.callId).toBeNull();
    // One id sequence for all views: the MCP thread's replies cannot be mistaken for another's.
    expect(second.id).not.toBe(first.id);
  });

  it("settles a view's request from the reply the client receives, and sends a cancel on abort", async () => {
    const { client, next } = connected();
    const view = client.forCall(3);
    const sent = next();
    const answer = view.requestBytes("efetch", { db: "pubmed" });
    const msg = (await sent) as EutilsMessage;
    expect(msg).toMatchObject({ callId: 3, bytes: true });
    const value = { status: 200, bytes: new Uint8Array([1, 2]) };
    client.settle(msg.id, { ok: true, value: value as never });
    await expect(answer).resolves.toEqual(value);

    const controller = new AbortController();
    const asked = next();
    const aborted = view.request("esummary", {}, { signal: controller.signal });
    const { id } = (await asked) as EutilsMessage;
    const cancel = next();
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
    expect(await cancel).toEqual({ type: "eutils-cancel", id });
  });
});
