/**
 * Driver errors (pg, PGlite) carry SQL text, constraint names and sometimes paths; the error envelope
 * never carries those (docs/reference.md#tool-errors). They are logged in full here and replaced by a StoreError that
 * says what the store was doing and what the user can do about it.
 */
import { AppError, StoreError } from "../errors.js";
import { log } from "../log.js";

interface DriverError {
  code?: unknown;
  message?: unknown;
}

/** SQLSTATE classes (or node socket codes) with advice a user can act on. */
function advice(code: string | undefined): string {
  if (!code) return "Retry; if it keeps failing, check the server logs.";
  if (/^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EAI_AGAIN|08)/.test(code)) {
    return "The database is unreachable: check that it is running and that DATABASE_URL is right.";
  }
  if (code === "28P01" || code === "28000") {
    return "The database refused the credentials in DATABASE_URL.";
  }
  if (code === "3D000") return "The database named in DATABASE_URL does not exist.";
  if (code === "42501") return "The database user lacks a needed privilege.";
  if (code === "53100") return "The database disk is full.";
  if (code.startsWith("40")) return "A concurrent write conflicted; retry the call.";
  return "Retry; if it keeps failing, check the server logs.";
}

export function sqlState(err: unknown): string | undefined {
  const code = (err as DriverError | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Wraps anything thrown by the driver; AppErrors (already user-facing) pass through. */
export function toStoreError(err: unknown, doing: string): AppError {
  if (err instanceof AppError) return err;
  const code = sqlState(err);
  log.error("metadata store error", {
    doing,
    code,
    error: err instanceof Error ? { message: err.message, stack: err.stack } : String(err),
  });
  return new StoreError(`The metadata store failed while ${doing}. ${advice(code)}`, {
    driverCode: code ?? null,
  });
}

/** Runs one repository operation, converting driver errors. */
export async function storeCall<T>(doing: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toStoreError(err, doing);
  }
}
