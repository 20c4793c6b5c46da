/**
 * logging/setLevel and `notifications/message`: the server's winston log, bridged per session.
 *
 * A session hears nothing until it calls logging/setLevel (the spec leaves the default to the
 * server; most clients show every message they get, and stderr already has the log). After that
 * it gets every line at or above its level that was written for one of its own requests or for
 * no request at all (start-up, store housekeeping) — never the lines of another session's calls,
 * which can carry that client's queries.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { addLogListener, type LogEntry, type LogListener } from "../log.js";
import { invalidParams } from "./errors.js";

export const LOGGER_NAME = "pubmed-mcp";

/** RFC 5424 severities as MCP names them, least severe first. */
export const MCP_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const satisfies readonly LoggingLevel[];

const TO_MCP: Record<string, LoggingLevel> = {
  error: "error",
  warn: "warning",
  info: "info",
  http: "debug",
  verbose: "debug",
  debug: "debug",
  silly: "debug",
};

/** The least severe winston level whose lines reach an MCP minimum; undefined: none ever can. */
const FROM_MCP: Partial<Record<LoggingLevel, string>> = {
  debug: "debug",
  info: "info",
  notice: "warn",
  warning: "warn",
  error: "error",
};

/** Whose request a log line was written for (log.ts `withLogOrigin`). */
export interface RequestOrigin {
  session: object;
  requestId: string | number;
}

const SetLevelRequest = z.object({
  method: z.literal("logging/setLevel"),
  params: z.looseObject({ level: z.unknown() }),
});

export function installLogging(server: Server, session: object): () => void {
  let stop: (() => void) | undefined;
  let sending = false;
  const listener: LogListener = {
    level: "info",
    onEntry: (entry: LogEntry) => {
      // A send that itself logs (a failing transport) must not feed back into another send.
      const origin = entry.origin as RequestOrigin | undefined;
      if (sending || (origin && origin.session !== session)) return;
      sending = true;
      try {
        // A line of one of our calls travels with that call (on Streamable HTTP: its own stream).
        server
          .notification(
            {
              method: "notifications/message",
              params: {
                level: TO_MCP[entry.level] ?? "info",
                logger: LOGGER_NAME,
                data: { message: entry.message, ...entry.fields },
              },
            },
            origin ? { relatedRequestId: origin.requestId } : undefined,
          )
          .catch(() => undefined); // the client left; nothing to tell it
      } finally {
        sending = false;
      }
    },
  };
  server.setRequestHandler(SetLevelRequest, (request) => {
    const level = request.params.level;
    if (typeof level !== "string" || !(MCP_LEVELS as readonly string[]).includes(level)) {
      throw invalidParams(
        `Unknown log level ${JSON.stringify(level)}. Levels: ${MCP_LEVELS.join(", ")}.`,
      );
    }
    stop?.();
    stop = undefined;
    const wanted = FROM_MCP[level as LoggingLevel];
    if (wanted) {
      listener.level = wanted;
      stop = addLogListener(listener);
    }
    return {};
  });
  return () => {
    stop?.();
    stop = undefined;
  };
}
