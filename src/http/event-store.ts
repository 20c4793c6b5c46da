/**
 * One Streamable HTTP session's recent SSE events, so a client whose stream broke can resume
 * with Last-Event-ID (spec: resumability and redelivery; SEP-1699 polling). One store per
 * session: an event id from another session is simply unknown here, never replayed.
 *
 * Resuming is for short reconnections, so the store is small and bounded: the newest
 * MAX_EVENTS events, at most MAX_BYTES of them, none older than MAX_AGE_MS.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

const MAX_EVENTS = 200;
const MAX_BYTES = 4 * 1024 * 1024;
const MAX_AGE_MS = 5 * 60_000;

interface StoredEvent {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
  at: number;
}

export class SessionEventStore implements EventStore {
  private events: StoredEvent[] = [];
  private bytes = 0;
  private seq = 0;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.seq}`;
    const bytes = JSON.stringify(message).length;
    // One message over the whole budget is not kept (it would evict everything else).
    if (bytes > MAX_BYTES) return id;
    this.events.push({ id, streamId, message, bytes, at: Date.now() });
    this.bytes += bytes;
    this.trim();
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    this.trim();
    return this.events.find((e) => e.id === eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    this.trim();
    const index = this.events.findIndex((e) => e.id === lastEventId);
    const last = this.events[index];
    if (!last) return "";
    for (const event of this.events.slice(index + 1)) {
      // Priming events (stored as {}) only hand the client a cursor; they carry no message.
      if (event.streamId === last.streamId && Object.keys(event.message).length > 0)
        await send(event.id, event.message);
    }
    return last.streamId;
  }

  /** Drops what is past the bounds; also called by the session sweep. */
  trim(): void {
    const oldest = Date.now() - MAX_AGE_MS;
    let drop = 0;
    let bytes = this.bytes;
    for (const e of this.events) {
      const over = this.events.length - drop > MAX_EVENTS || bytes > MAX_BYTES;
      if (!over && e.at >= oldest) break;
      bytes -= e.bytes;
      drop++;
    }
    if (drop > 0) {
      this.events = this.events.slice(drop);
      this.bytes = bytes;
    }
  }
}
