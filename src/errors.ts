/**
 * Typed errors, and the one place that maps any thrown value to the error envelope
 * (docs/reference.md#tool-errors). Messages are for the model: what was wrong and how to fix the
 * call.
 */
import { randomUUID } from "node:crypto";
import { log } from "./log.js";

export type ErrorCode =
  | "RATE_LIMIT"
  | "UPSTREAM"
  | "VALIDATION"
  | "NOT_FOUND"
  | "INVARIANT_FAILURE"
  | "STORE"
  | "EMBEDDINGS"
  | "VECTOR_STORE"
  | "ENTREZ"
  | "UNKNOWN";

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  constructor(
    message: string,
    readonly details: Record<string, unknown> | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  readonly code = "VALIDATION";
}
export class NotFoundError extends AppError {
  readonly code = "NOT_FOUND";
}
/** NCBI said "slow down" (HTTP 429 or its JSON rate-limit body) and retries ran out. */
export class RateLimitError extends AppError {
  readonly code = "RATE_LIMIT";
}
/** NCBI unreachable, 5xx, timeouts, HTML or truncated bodies, deadline exceeded. */
export class UpstreamError extends AppError {
  readonly code = "UPSTREAM";
}
/** NCBI answered but reported an error about the request itself (<ERROR>, ErrorList). */
export class EntrezError extends AppError {
  readonly code = "ENTREZ";
}
export class InvariantError extends AppError {
  readonly code = "INVARIANT_FAILURE";
}
export class StoreError extends AppError {
  readonly code = "STORE";
}
/** A dependency still being opened (the corpus stores at start-up): /readyz says "starting". */
export class StartingError extends StoreError {}
export class EmbeddingsError extends AppError {
  readonly code = "EMBEDDINGS";
}
export class VectorStoreError extends AppError {
  readonly code = "VECTOR_STORE";
}
/**
 * The client cancelled the call (notifications/cancelled) or went away. The SDK drops the reply
 * to a cancelled request, so this is routine, not a failure worth an error log.
 */
export class CancelledError extends AppError {
  readonly code = "UPSTREAM";
}

/** The constructor every AppError class of this module shares. */
export type AppErrorClass = new (
  message: string,
  details?: Record<string, unknown> | null,
  options?: { cause?: unknown },
) => AppError;

/** The AppError classes by name and by envelope code (see ERROR_CLASSES). */
export interface ErrorClasses {
  readonly byName: ReadonlyMap<string, AppErrorClass>;
  readonly byCode: ReadonlyMap<ErrorCode, AppErrorClass>;
}

/**
 * Every AppError class above, so that an error crossing between threads (../net/channel.ts) is
 * rebuilt with its own class: by its name, else by its code (a subclass declared elsewhere). A
 * code names the first class listed with it: StoreError before StartingError, UpstreamError
 * before CancelledError. Each class's code is read from an instance of it.
 */
export const ERROR_CLASSES: ErrorClasses = classTable([
  ValidationError,
  NotFoundError,
  RateLimitError,
  UpstreamError,
  EntrezError,
  InvariantError,
  StoreError,
  StartingError,
  EmbeddingsError,
  VectorStoreError,
  CancelledError,
]);

function classTable(classes: readonly AppErrorClass[]): ErrorClasses {
  const byName = new Map<string, AppErrorClass>();
  const byCode = new Map<ErrorCode, AppErrorClass>();
  for (const Class of classes) {
    byName.set(Class.name, Class);
    const { code } = new Class("");
    if (!byCode.has(code)) byCode.set(code, Class);
  }
  return { byName, byCode };
}

/**
 * What a tool call whose signal fired ends with, when the work stopped with whatever the abort
 * threw (a DOMException, or the client's cancel reason, which may be a bare string): the UPSTREAM
 * deadline error when the call's own deadline passed, else a quiet CancelledError.
 */
export function abortedCall(tool: string, by: "deadline" | "client", deadlineMs: number): AppError {
  if (by === "deadline") {
    return new UpstreamError(
      `The call did not finish within ${Math.round(deadlineMs / 1000)} s (NCBI_DEADLINE_MS); try again later or narrow the request.`,
    );
  }
  log.debug("tool call cancelled by the client", { tool });
  return new CancelledError(
    "The call was cancelled before it finished. Retry it if you still need the result.",
  );
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details: Record<string, unknown> | null };
}

/** Maps anything thrown to the envelope. Unknown errors are logged in full, returned with a reference id only. */
export function toEnvelope(err: unknown): ErrorEnvelope {
  if (err instanceof AppError) {
    return { error: { code: err.code, message: err.message, details: err.details } };
  }
  if (isAbort(err)) {
    return {
      error: {
        code: "UPSTREAM",
        message:
          "The call was cancelled before it finished. Retry it if you still need the result.",
        details: null,
      },
    };
  }
  const ref = randomUUID();
  log.error("unexpected error", {
    ref,
    error: err instanceof Error ? { message: err.message, stack: err.stack } : String(err),
  });
  return {
    error: {
      code: "UNKNOWN",
      message: `An unexpected internal error occurred (reference ${ref}). Retry the call; if it keeps failing, report the reference.`,
      details: { ref },
    },
  };
}

export function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}
