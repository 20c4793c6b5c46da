/**
 * winston to stderr only: in stdio mode stdout carries JSON-RPC and nothing else.
 */
import winston from "winston";

export const log = winston.createLogger({
  level: "info",
  format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
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

/** The logger handed to fastmcp, whose default logger writes to stdout. */
export const frameworkLogger = {
  debug: (...args: unknown[]) => log.debug(args.map(String).join(" ")),
  error: (...args: unknown[]) => log.error(args.map(String).join(" ")),
  info: (...args: unknown[]) => log.debug(args.map(String).join(" ")),
  log: (...args: unknown[]) => log.debug(args.map(String).join(" ")),
  warn: (...args: unknown[]) => log.warn(args.map(String).join(" ")),
};
