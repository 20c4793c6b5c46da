/**
 * What a call to NCBI takes and gives back: the options every call has, a reply as text, as bytes
 * or parsed, and how a body becomes a value. Shared by the façade (./eutils.ts), the client that
 * sends (./client.ts) and the corpus worker's proxy of it (src/worker/remote-eutils.ts).
 */
export interface CallOptions {
  /** Cancels the call, including its wait in the queue; a TimeoutError reason means the tool's deadline passed. */
  signal?: AbortSignal;
  /** Skip the response cache for this call. */
  noCache?: boolean;
}

export interface EutilsResponse {
  body: string;
  /** The request URL with api_key removed (safe to echo back). */
  url: string;
  method: "GET" | "POST";
  fromCache: boolean;
}

/** A reply as UTF-8 bytes (requestBytes), for another thread to decode and parse. */
export interface EutilsBytes {
  /** In shared memory of their own: posted to other threads, shared rather than copied. */
  bytes: Uint8Array<SharedArrayBuffer>;
  url: string;
  method: "GET" | "POST";
}

/**
 * How a reply body becomes a value; `name` tells derived values of one body apart. A parse may
 * be asynchronous: a long body may be read in another thread (./articles.ts).
 */
export interface BodyParser<T> {
  name: string;
  parse(body: string): T | Promise<T>;
}

/** A parsed reply: the value (shared with later cache hits, so read-only) and where it came from. */
export interface ParsedResponse<T> {
  value: T;
  url: string;
  method: "GET" | "POST";
  fromCache: boolean;
}

/** A PMC ID Converter reply: JSON, with its HTTP status (404 carries "ID type mismatch"). */
export interface IdconvResponse extends EutilsResponse {
  status: number;
}
