/**
 * The corpus worker's E-utilities client: every request goes to the MCP thread's EutilsClient
 * (client.ts answers the worker's "eutils" and "idconv" requests), so one limiter (rate, retries,
 * the replicas' shared budget) still governs every NCBI call. It is an Eutils
 * (../ncbi/eutils.ts): the corpus and review code in the worker call its typed methods (esearch,
 * efetchBytes, …), which come down to `request`, `requestBytes` and `idconv`, sent from here.
 *
 * `forCall(id)` is the same client for one worker call: its requests are made within that call
 * (RequestOptions.within of ../net/channel.ts), so that the call ending on the MCP side (answered,
 * cancelled) also stops them there. Passed down explicitly (the sync's deps), not found through
 * AsyncLocalStorage, whose hooks cost every promise of the thread (a few percent of a search on
 * the embedded store).
 */
import type { Endpoint } from "../net/channel.js";
import type { CallOptions, EutilsBytes, EutilsResponse, IdconvResponse } from "../ncbi/calls.js";
import { Eutils } from "../ncbi/eutils.js";
import type { Params, Utility } from "../ncbi/types.js";
import type { EutilsReply, EutilsRequest, OwnerApi } from "./protocol.js";

export class RemoteEutils extends Eutils {
  constructor(
    /** The worker's channel to the MCP thread. */
    private readonly owner: Endpoint<OwnerApi>,
    /** The worker call the requests are made for: the id it is served with. */
    private readonly callId?: number,
  ) {
    super();
  }

  /** This client for worker call `callId`: its requests end with the call. */
  forCall(callId: number): RemoteEutils {
    return new RemoteEutils(this.owner, callId);
  }

  override request(
    utility: Utility,
    params: Params,
    opts: CallOptions = {},
  ): Promise<EutilsResponse> {
    return this.send(utility, params, opts, false) as Promise<EutilsResponse>;
  }

  /** The reply's bytes, shared with the MCP thread (no copy). */
  override requestBytes(
    utility: Utility,
    params: Params,
    opts: Omit<CallOptions, "noCache"> = {},
  ): Promise<EutilsBytes> {
    return this.send(utility, params, opts, true) as Promise<EutilsBytes>;
  }

  override idconv(params: Params, opts: CallOptions = {}): Promise<IdconvResponse> {
    const { signal, ...rest } = opts;
    signal?.throwIfAborted();
    return this.ask(signal, () =>
      this.owner.request("idconv", { params, opts: rest }, { signal, within: this.callId }),
    );
  }

  private send(
    utility: Utility,
    params: Params,
    opts: CallOptions,
    bytes: boolean,
  ): Promise<EutilsReply> {
    const { signal, ...rest } = opts;
    signal?.throwIfAborted();
    const request: EutilsRequest = { utility, params, opts: rest, ...(bytes && { bytes: true }) };
    return this.ask(signal, () =>
      this.owner.request("eutils", request, { signal, within: this.callId }),
    );
  }

  /** `asked()`; given up, it fails with the signal's reason if an Error, else with AbortError. */
  private ask<T>(signal: AbortSignal | undefined, asked: () => Promise<T>): Promise<T> {
    return asked().catch((err: unknown) => {
      if (signal?.aborted && err === signal.reason && !(err instanceof Error)) throw abortError();
      throw err;
    });
  }
}

function abortError(): Error {
  const err = new Error("The operation was aborted");
  err.name = "AbortError";
  return err;
}
