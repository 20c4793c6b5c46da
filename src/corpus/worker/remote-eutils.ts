/**
 * The corpus worker's E-utilities client: every request goes to the MCP thread's EutilsClient,
 * so one p-queue (rate, retries, the replicas' shared budget) still governs every NCBI call.
 * The worker sends { utility, params, opts }; the MCP thread answers with the response or a
 * serialised error. Only `request` and `requestBytes` exist here: all the corpus uses.
 */
import type { MessagePort } from "node:worker_threads";
import type {
  CallOptions,
  EutilsBytes,
  EutilsResponse,
  Params,
  Utility,
} from "../../eutils/client.js";
import { fromWire, type EutilsReply, type FromWorker, type WireError } from "./protocol.js";

interface Pending {
  resolve: (value: EutilsReply) => void;
  reject: (err: Error) => void;
}

export class RemoteEutils {
  private next = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly port: MessagePort,
    /** The worker call a request is made for (its cancel on the MCP side stops the request). */
    private readonly currentCall: () => number | null,
  ) {}

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
    const id = this.next++;
    const msg: FromWorker = {
      type: "eutils",
      id,
      callId: this.currentCall(),
      utility,
      params,
      opts: rest,
      ...(bytes && { bytes: true }),
    };
    return new Promise<EutilsReply>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        this.port.postMessage({ type: "eutils-cancel", id } satisfies FromWorker);
        reject(signal?.reason instanceof Error ? signal.reason : abortError());
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const settle = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, {
        resolve: (v) => (settle(), resolve(v)),
        reject: (e) => (settle(), reject(e)),
      });
      this.port.postMessage(msg);
    });
  }

  /** The MCP thread's answer to request `id`. */
  settle(id: number, reply: { ok: true; value: EutilsReply } | { ok: false; error: WireError }) {
    const p = this.pending.get(id);
    if (!p) return; // cancelled meanwhile
    this.pending.delete(id);
    if (reply.ok) p.resolve(reply.value);
    else p.reject(fromWire(reply.error));
  }
}

function abortError(): Error {
  const err = new Error("The operation was aborted");
  err.name = "AbortError";
  return err;
}
