/**
 * winston to stderr only: in stdio mode stdout carries JSON-RPC and nothing else.
 *
 * Listeners (MCP sessions that asked for log messages with logging/setLevel) receive the same
 * entries through a second transport that exists only while someone listens, at the most verbose
 * level any of them asked for; stderr keeps LOG_LEVEL. Each entry names the session whose request
 * was running when it was written (`withLogOrigin`), so a session can be sent only its own lines.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Writable } from "node:stream";
import winston from "winston";

const origins = new AsyncLocalStorage<object>();
const ORIGIN = Symbol("log origin");

/** Runs `fn` with every line it logs (synchronously or after awaits) attributed to `who`. */
export const withLogOrigin = <T>(who: object, fn: () => T): T => origins.run(who, fn);

const stampOrigin = winston.format((info) => {
  const who = origins.getStore();
  if (who) (info as Record<symbol, unknown>)[ORIGIN] = who;
  return info;
});

export const log = winston.createLogger({
  level: "info",
  format: winston.format.combine(stampOrigin(), winston.format.timestamp(), winston.format.json()),
  transports: [
    new winston.transports.Console({
      // Every level goes to stderr; the guard test spawns the stdio server and reads stdout.
      stderrLevels: ["error", "warn", "info", "http", "verbose", "debug", "silly"],
    }),
  ],
});

export function setLogLevel(level: string): void {
  log.level = level;
}

/** winston's npm levels, most severe first. */
export const LOG_LEVELS = winston.config.npm.levels as Record<string, number>;

export interface LogEntry {
  /** A winston level: error, warn, info, http, verbose, debug, silly. */
  level: string;
  message: string;
  /** The line's other fields, without its timestamp and without stack traces. */
  fields: Record<string, unknown>;
  /** What `withLogOrigin` named when the line was written; undefined outside any request. */
  origin: object | undefined;
}

export interface LogListener {
  /** The least severe winston level this listener wants. */
  level: string;
  onEntry: (entry: LogEntry) => void;
}

const listeners = new Set<LogListener>();

/** Stack traces name internal paths; operators read them on stderr, clients never get them. */
function withoutStacks(value: unknown, depth = 0): unknown {
  if (depth > 3 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => withoutStacks(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== "stack")
      .map(([k, v]) => [k, withoutStacks(v, depth + 1)]),
  );
}

function deliver(info: Record<string | symbol, unknown>): void {
  const { level, message, timestamp: _timestamp, ...rest } = info;
  const severity = LOG_LEVELS[String(level)] ?? 0;
  const entry: LogEntry = {
    level: String(level),
    message: typeof message === "string" ? message : JSON.stringify(message),
    fields: withoutStacks(rest) as Record<string, unknown>,
    origin: info[ORIGIN] as object | undefined,
  };
  for (const l of listeners) {
    if ((LOG_LEVELS[l.level] ?? -1) >= severity) l.onEntry(entry);
  }
}

/** winston's Stream transport hands an object-mode stream the entry itself. */
const bridge = new winston.transports.Stream({
  stream: new Writable({
    objectMode: true,
    write: (info: Record<string | symbol, unknown>, _encoding, done) => {
      deliver(info);
      done();
    },
  }),
});

/** The bridge transport is attached only while it has listeners, at their most verbose level. */
function relevel(): void {
  if (listeners.size === 0) {
    log.remove(bridge);
    return;
  }
  let most = 0;
  for (const l of listeners) most = Math.max(most, LOG_LEVELS[l.level] ?? 0);
  bridge.level = Object.keys(LOG_LEVELS).find((name) => LOG_LEVELS[name] === most) ?? "error";
  if (!log.transports.includes(bridge)) log.add(bridge);
}

/** Starts delivering entries to `listener`; returns the function that stops it. */
export function addLogListener(listener: LogListener): () => void {
  listeners.add(listener);
  relevel();
  return () => {
    listeners.delete(listener);
    relevel();
  };
}

/** The logger handed to fastmcp, whose default logger writes to stdout. */
export const frameworkLogger = {
  debug: (...args: unknown[]) => log.debug(args.map(String).join(" ")),
  error: (...args: unknown[]) => log.error(args.map(String).join(" ")),
  info: (...args: unknown[]) => log.debug(args.map(String).join(" ")),
  log: (...args: unknown[]) => log.debug(args.map(String).join(" ")),
  warn: (...args: unknown[]) => log.warn(args.map(String).join(" ")),
};
