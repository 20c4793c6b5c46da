/**
 * Stateful Streamable HTTP sessions: `initialize` creates one (a FastMCPSession and its own
 * transport, with a resumable event store) and answers its Mcp-Session-Id; later requests on
 * that id reach the same session, GET opens its server→client stream, DELETE ends it.
 *
 * The table is bounded: a session with no open HTTP exchange for `idleMs` is closed, and when
 * `max` sessions exist the least recently used idle one is closed to admit a new one (none idle:
 * 503). A session is bound to the principal that opened it: presented by anyone else, its id is
 * as unknown as an expired one (404).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { FastMCPSession } from "fastmcp";
import { log } from "../log.js";
import type { SessionFactory } from "../server.js";
import { SessionEventStore } from "./event-store.js";

export interface SessionLimits {
  /** Close a session after this long without any open exchange (ms). */
  idleMs: number;
  /** Most sessions held at once. */
  max: number;
  /** How often idle sessions are looked for (ms); default min(60 s, idleMs / 2). */
  sweepMs?: number;
}

/** Tells SEP-1699 clients how soon to reconnect after the server ends a stream early (ms). */
const RETRY_INTERVAL_MS = 1000;

interface Entry {
  id: string;
  transport: StreamableHTTPServerTransport;
  session: FastMCPSession;
  events: SessionEventStore;
  principal: string;
  lastSeen: number;
  /** HTTP exchanges in progress (POST streams, the GET stream). */
  open: number;
  closed: boolean;
}

export type Outcome = "served" | "unknown" | "full";

export class SessionTable {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly newSession: SessionFactory,
    private readonly limits: SessionLimits,
  ) {
    const every = limits.sweepMs ?? Math.min(60_000, Math.max(1000, limits.idleMs / 2));
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  /** An initialize without a session id: a new session answers it (and registers on success). */
  async open(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    principal: string,
  ): Promise<Outcome> {
    if (this.entries.size >= this.limits.max && !this.evictOne()) return "full";
    const session = this.newSession("httpStream");
    const events = new SessionEventStore();
    let entry: Entry | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      eventStore: events,
      retryInterval: RETRY_INTERVAL_MS,
      onsessioninitialized: (id) => {
        const now = Date.now();
        entry = {
          id,
          transport,
          session,
          events,
          principal,
          lastSeen: now,
          open: 0,
          closed: false,
        };
        this.entries.set(id, entry);
      },
    });
    await session.connect(transport);
    // Protocol.connect installed its own onclose; chain ours so any close (DELETE, idle, the
    // session itself) also leaves the table.
    const protocolOnClose = transport.onclose;
    transport.onclose = () => {
      protocolOnClose?.();
      if (entry) void this.end(entry);
    };
    res.once("close", () => {
      // A refused initialize (bad version, malformed) never registered: nothing else owns it.
      if (!entry) void session.close();
    });
    // Registered (onsessioninitialized) during this exchange, which ends with its response.
    await this.serve(transport, undefined, req, res, body);
    return "served";
  }

  /** A request carrying Mcp-Session-Id: routed to its session, or "unknown" (→ 404). */
  async handle(
    id: string,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    principal: string,
  ): Promise<Outcome> {
    const entry = this.entries.get(id);
    if (!entry || entry.closed || entry.principal !== principal) return "unknown";
    await this.serve(entry.transport, entry, req, res, body);
    return "served";
  }

  /** Ends every session (server shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.entries.values()].map((e) => this.end(e)));
  }

  /** Counts the exchange as open while it lasts, so a listening session never looks idle. */
  private async serve(
    transport: StreamableHTTPServerTransport,
    entry: Entry | undefined,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): Promise<void> {
    if (entry) {
      entry.open++;
      entry.lastSeen = Date.now();
      res.once("close", () => {
        entry.open--;
        entry.lastSeen = Date.now();
      });
    }
    await transport.handleRequest(req, res, body);
  }

  private sweep(): void {
    const cutoff = Date.now() - this.limits.idleMs;
    for (const entry of this.entries.values()) {
      if (entry.open === 0 && entry.lastSeen < cutoff) void this.end(entry);
      else entry.events.trim(); // a quiet session does not keep old events until it expires
    }
  }

  /** Closes the least recently used session with no open exchange; false when all are busy. */
  private evictOne(): boolean {
    let oldest: Entry | undefined;
    for (const e of this.entries.values()) {
      if (e.open === 0 && (!oldest || e.lastSeen < oldest.lastSeen)) oldest = e;
    }
    if (!oldest) return false;
    log.info("closing the least recently used MCP session to admit a new one", {
      sessions: this.entries.size,
    });
    void this.end(oldest);
    return true;
  }

  private async end(entry: Entry): Promise<void> {
    if (entry.closed) return;
    entry.closed = true;
    this.entries.delete(entry.id);
    await entry.transport.close().catch(() => undefined);
    await entry.session.close().catch(() => undefined);
  }
}
