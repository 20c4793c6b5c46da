/**
 * What the MCP thread and the corpus worker ask each other over their channel
 * (../net/channel.ts), and how errors cross between them.
 *
 * The MCP thread asks the worker to run an operation by name (ops.ts), whose progress comes back
 * as it goes and which ends when its signal aborts; it tells the worker to open its stores, and to
 * close them and end. The worker asks the MCP thread to make its NCBI requests (remote-eutils.ts),
 * each one for the call it serves, and tells it whether its stores opened (for /readyz).
 *
 * Errors cross in their wire form (../threads.ts): an AppError comes back as the same class, so
 * the envelope code a tool returns is the one the worker threw; anything else arrives as a plain
 * Error with its name kept (AbortError and TimeoutError stay recognisable to isAbort), which the
 * envelope reports as UNKNOWN, as it would have in one thread.
 */
import { ERROR_CLASSES } from "../errors.js";
import type { Served } from "../net/channel.js";
import type { CallOptions, EutilsBytes, EutilsResponse, IdconvResponse } from "../ncbi/calls.js";
import type { Params, Utility } from "../ncbi/types.js";
import { fromWire as fromWireWith, toWire, type WireError } from "../threads.js";

export { toWire, type WireError };

/** An error in its wire form, rebuilt with its class (ERROR_CLASSES). */
export const fromWire = (wire: WireError): Error => fromWireWith(wire, ERROR_CLASSES);

/** How far a call is: the `onProgress` of HostCallOptions. */
export interface CallProgress {
  done: number;
  total: number;
  message: string;
}

/** What the worker answers the MCP thread. */
export type WorkerApi = {
  /** Runs operation `op` of ops.ts; the call's signal aborting stops it. */
  call(call: { op: string; args: unknown[] }, served: Served<CallProgress>): Promise<unknown>;
  /** Starts opening the stores (HTTP start-up); `opened` or `openFailed` follows. */
  open(): void;
  /** Aborts the running calls, closes the stores and ends the thread. */
  close(): void;
};

/** An E-utilities request of the worker, for the MCP thread's EutilsClient. */
export interface EutilsRequest {
  utility: Utility;
  params: Params;
  opts: Omit<CallOptions, "signal">;
  /** EutilsClient.requestBytes instead of request. */
  bytes?: true;
}

/** What the MCP thread answers an "eutils" request with: EutilsBytes when it asked `bytes`. */
export type EutilsReply = EutilsResponse | EutilsBytes;

/** What the MCP thread answers the worker. */
export type OwnerApi = {
  /** A reply's bytes are in shared memory (a SharedArrayBuffer): shared, not copied. */
  eutils(request: EutilsRequest, served: Served): Promise<EutilsReply>;
  /** A PMC ID Converter request (EutilsClient.idconv). */
  idconv(
    request: { params: Params; opts: Omit<CallOptions, "signal"> },
    served: Served,
  ): Promise<IdconvResponse>;
  opened(): void;
  openFailed(error: WireError): void;
};
