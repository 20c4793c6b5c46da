/**
 * The corpus worker's E-utilities client: every request goes to the MCP thread's EutilsClient,
 * so one p-queue (rate, retries, the replicas' shared budget) still governs every NCBI call.
 * The worker sends { utility, params, opts }; the MCP thread answers with the response or a
 * serialised error. Only `request` and `requestBytes` exist here: all the corpus uses.
 *
 * `forCall(id)` is the same client for one worker call: its requests name the call, so that
 * cancelling the call on the MCP side also stops them there. Passed down explicitly (the sync's
 * deps), not found through AsyncLocalStorage, whose hooks cost every promise of the thread (a few
 * percent of a search on the embedded store).
 */
import type { MessagePort } from "node:worker_threads";
import type { CallOptions, EutilsBytes, EutilsResponse, Params, Utility } from "../ncbi/client.js";
import { fromWire, type EutilsReply, type FromWorker, type WireError } from "./protocol.js";

interface Pending {
  resolve: (value: EutilsReply) => void;
  reject: (err: Error) => void;
}

export class RemoteEutils {
  constructor(
    private readonly port: MessagePort,
    /** The worker call the requests are made for (its cancel on the MCP side stops them). */
    private readonly callId: number | null = null,
    /** The pending requests, shared by the views of one port. */
    private readonly shared = { next: 1, pending: new Map<number, Pending>() },
  ) {}

  /** This client for worker call `callId`: the same port and pending requests. */
  forCall(callId: number): RemoteEutils {
    return new RemoteEutils(this.port, callId, this.shared);
  }

  request(utility: Utility, params: Params, opts: CallOptions = {}): Promise<EutilsResponse> {
    return this.send(utility, params, opts, false) as Promise<EutilsResponse>;
  }

  /** The reply's bytes, shared with the MCP thread (no copy). */
  requestBytes(utility: Utility, params: Params, opts: CallOptions = {}): Promise<EutilsBytes> {
    return this.send(utility, params, opts, true) as Promise<EutilsBytes>;
  }

  private send(
    utility: Utility,
    params: Params,
    opts: CallOptions,
    bytes: boolean,
  ): Promise<EutilsReply> {
    const { signal, ...rest } = opts;
    signal?.throwIfAborted();
    const id = this.shared.next++;
    const msg: FromWorker = {
      type: "eutils",
      id,
      callId: this.callId,
      utility,
      params,
      opts: rest,
      ...(bytes && { bytes: true }),
    };
    return new Promise<EutilsReply>((resolve, reject) => {
      const onAbort = () => {
        this.shared.pending.delete(id);
        this.port.postMessage({ type: "eutils-cancel", id } satisfies FromWorker);
        reject(signal?.reason instanceof Error ? signal.reason : abortError());
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const settle = () => signal?.removeEventListener("abort", onAbort);
      this.shared.pending.set(id, {
        resolve: (v) => (settle(), resolve(v)),
        reject: (e) => (settle(), reject(e)),
      });
      this.port.postMessage(msg);
    });
  }

  /** The MCP thread's answer to request `id`. */
  settle(id: number, reply: { ok: true; value: EutilsReply } | { ok: false; error: WireError }) {
    const p = this.shared.pending.get(id);
    if (!p) return; // cancelled meanwhile
    this.shared.pending.delete(id);
    if (reply.ok) p.resolve(reply.value);
    else p.reject(fromWire(reply.error));
  }
}

function abortError(): Error {
  const err = new Error("The operation was aborted");
  err.name = "AbortError";
  return err;
}
