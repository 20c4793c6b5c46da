/**
 * The per-session SSE event store behind resumable streams: replays only the stream the cursor
 * belongs to, skips priming events, and stays bounded (count and bytes).
 */
import { describe, expect, it } from "@jest/globals";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SessionEventStore } from "../../src/http/event-store.js";

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: "t", progress: n },
});

async function replay(store: SessionEventStore, after: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, message) => void sent.push([id, message]),
  });
  return { stream, sent };
}

describe("SessionEventStore", () => {
  it("replays the cursor's stream after it, without priming events or other streams", async () => {
    const store = new SessionEventStore();
    const priming = await store.storeEvent("a", {} as JSONRPCMessage);
    const a1 = await store.storeEvent("a", note(1));
    await store.storeEvent("b", note(99));
    await store.storeEvent("a", {} as JSONRPCMessage);
    const a2 = await store.storeEvent("a", note(2));
    expect(await store.getStreamIdForEventId(a1)).toBe("a");
    expect(await replay(store, priming)).toEqual({
      stream: "a",
      sent: [
        [a1, note(1)],
        [a2, note(2)],
      ],
    });
    expect(await replay(store, "nope")).toEqual({ stream: "", sent: [] });
  });

  it("keeps the newest 200 events and never keeps a message larger than its 4 MB budget", async () => {
    const store = new SessionEventStore();
    const ids: string[] = [];
    for (let i = 0; i < 250; i++) ids.push(await store.storeEvent("s", note(i)));
    expect(await store.getStreamIdForEventId(ids[49]!)).toBeUndefined();
    expect(await store.getStreamIdForEventId(ids[50]!)).toBe("s");
    expect((await replay(store, ids[247]!)).sent.map(([id]) => id)).toEqual(ids.slice(248));
    const huge = await store.storeEvent("s", {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: "x".repeat(5 * 1024 * 1024) },
    });
    expect(await store.getStreamIdForEventId(huge)).toBeUndefined();
    // …without evicting the events before it.
    expect(await store.getStreamIdForEventId(ids[249]!)).toBe("s");
    // Five 1 MB events overflow the budget: the oldest go first.
    const big: string[] = [];
    for (let i = 0; i < 5; i++)
      big.push(
        await store.storeEvent("s", {
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "info", data: "y".repeat(1024 * 1024) },
        }),
      );
    expect(await store.getStreamIdForEventId(big[0]!)).toBeUndefined();
    expect(await store.getStreamIdForEventId(big[4]!)).toBe("s");
  });
});
