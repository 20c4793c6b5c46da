/**
 * The messages between the MCP thread and the corpus worker, and how errors cross between them.
 *
 * Structured clone keeps an Error's message but not its class, so AppErrors travel as
 * { name, code, message, details } and are rebuilt as the same class on the other side: the
 * envelope code a tool returns is the one the worker threw. Anything else arrives as a plain
 * Error with its name kept (AbortError and TimeoutError stay recognisable to isAbort); the
 * envelope reports those as UNKNOWN, as it would have in one thread.
 */
import {
  AppError,
  CancelledError,
  EmbeddingsError,
  EntrezError,
  InvariantError,
  NotFoundError,
  RateLimitError,
  StoreError,
  UpstreamError,
  ValidationError,
  VectorStoreError,
  type ErrorCode,
} from "../errors.js";
import type { CallOptions, EutilsBytes, EutilsResponse, Params, Utility } from "../ncbi/client.js";

/** What the MCP thread answers an "eutils" request with: EutilsBytes when it asked `bytes`. */
export type EutilsReply = EutilsResponse | EutilsBytes;

export interface WireError {
  name: string;
  message: string;
  code?: ErrorCode;
  details?: Record<string, unknown> | null;
  stack?: string;
}

/** MCP thread → worker. */
export type ToWorker =
  | { type: "call"; id: number; op: string; args: unknown[] }
  | { type: "cancel"; id: number }
  | { type: "open" }
  | { type: "close" }
  /** A reply's bytes are shared, not copied (a SharedArrayBuffer). */
  | { type: "eutils-reply"; id: number; ok: true; value: EutilsReply }
  | { type: "eutils-reply"; id: number; ok: false; error: WireError };

/** Worker → MCP thread. */
export type FromWorker =
  | { type: "result"; id: number; value: unknown }
  | { type: "error"; id: number; error: WireError }
  | { type: "progress"; id: number; done: number; total: number; message: string }
  | { type: "opened" }
  | { type: "open-failed"; error: WireError }
  | {
      type: "eutils";
      id: number;
      /** The call the request belongs to, so a cancel on the MCP side stops it at once. */
      callId: number | null;
      utility: Utility;
      params: Params;
      opts: Omit<CallOptions, "signal">;
      /** EutilsClient.requestBytes instead of request. */
      bytes?: true;
    }
  | { type: "eutils-cancel"; id: number };

type AppErrorClass = new (message: string, details?: Record<string, unknown> | null) => AppError;

const CLASSES: Record<string, AppErrorClass> = {
  ValidationError,
  NotFoundError,
  RateLimitError,
  UpstreamError,
  EntrezError,
  InvariantError,
  StoreError,
  EmbeddingsError,
  VectorStoreError,
  CancelledError,
};

/** For AppError subclasses defined elsewhere: the class of their envelope code. */
const BY_CODE: Partial<Record<ErrorCode, AppErrorClass>> = {
  VALIDATION: ValidationError,
  NOT_FOUND: NotFoundError,
  RATE_LIMIT: RateLimitError,
  UPSTREAM: UpstreamError,
  ENTREZ: EntrezError,
  INVARIANT_FAILURE: InvariantError,
  STORE: StoreError,
  EMBEDDINGS: EmbeddingsError,
  VECTOR_STORE: VectorStoreError,
};

export function toWire(err: unknown): WireError {
  if (err instanceof AppError) {
    return { name: err.name, code: err.code, message: err.message, details: err.details };
  }
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { name: "Error", message: String(err) };
}

export function fromWire(wire: WireError): Error {
  const cls = CLASSES[wire.name] ?? (wire.code ? BY_CODE[wire.code] : undefined);
  if (cls) return new cls(wire.message, wire.details ?? null);
  const err = new Error(wire.message);
  err.name = wire.name;
  if (wire.stack) err.stack = wire.stack;
  return err;
}
