/**
 * Cohere embeddings through the official SDK (v2 embed API). The SDK's own retries are disabled
 * (maxRetries: 0) so that one policy — ours, below — decides: retry 408/429/5xx, timeouts and
 * network failures with exponential backoff (honouring Retry-After), fail fast on anything else,
 * and always end in an EmbeddingsError whose message says what to do. The API key never appears
 * in a message: those we build never include it, and upstream text is scrubbed of it.
 *
 * The SDK loads with the first request, not with this module: the corpus worker creates the
 * configured embedder as it opens, and importing the SDK cost that thread 0.25–0.35 s of CPU on a
 * 2-core machine, compile cache or not, in a server that may never call Cohere.
 */
import type { CohereClientV2 } from "cohere-ai";
import { EmbeddingsError } from "../errors.js";
import { sleep } from "../sleep.js";
import { FETCH_FAILED, fetchWithoutRejections } from "./cohere-fetch.js";
import type { Embedder } from "./embedder.js";

/** Cohere's limit on texts per embed call. */
export const COHERE_BATCH_SIZE = 96;

/**
 * Output sizes of the embedding models we know. embed-v4 defaults to 1536 (of 256/512/1024/1536)
 * and is asked for it explicitly so the recorded dimension cannot drift. Other models' sizes are
 * learned from the first response (health() makes one).
 */
const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = {
  "embed-v4.0": 1536,
  "embed-english-v3.0": 1024,
  "embed-multilingual-v3.0": 1024,
  "embed-english-light-v3.0": 384,
  "embed-multilingual-light-v3.0": 384,
};

export interface CohereEmbedderOptions {
  apiKey: string;
  /** COHERE_BASE_URL; default Cohere's production API. */
  baseUrl?: string;
  model: string;
  /** Per request (one batch). */
  timeoutMs?: number;
  /** Retries after the first attempt, per batch. */
  maxRetries?: number;
  /** First backoff delay; doubles per retry (with jitter), capped at 20 s. */
  retryBaseMs?: number;
  /** Batches in flight at once. */
  concurrency?: number;
}

type InputType = "search_document" | "search_query";

interface Failure {
  retryable: boolean;
  message: string;
  status: number | null;
  retryAfterMs?: number;
}

const MAX_BACKOFF_MS = 20_000;
/** health() probes Cohere at most this often; /readyz may be polled every few seconds. */
const HEALTH_TTL_MS = 60_000;

type Sdk = typeof import("cohere-ai");
let sdk: Promise<Sdk> | undefined;
/** The SDK, imported at the first request (then the same promise). */
const loadSdk = (): Promise<Sdk> => (sdk ??= import("cohere-ai"));

export class CohereEmbedder implements Embedder {
  readonly provider = "cohere" as const;
  readonly model: string;
  #client: Promise<{ client: CohereClientV2; sdk: Sdk }> | undefined;
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retryBaseMs: number;
  readonly #concurrency: number;
  readonly #outputDimension: number | undefined;
  #dimension: number | undefined;
  #healthyAt = 0;

  constructor(opts: CohereEmbedderOptions) {
    this.model = opts.model;
    this.#apiKey = opts.apiKey;
    // The SDK appends "v2/embed" itself; tolerate a base URL copied with a version suffix.
    this.#baseUrl = (opts.baseUrl ?? "https://api.cohere.com").replace(/\/+(v\d+\/*)?$/, "");
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.#maxRetries = opts.maxRetries ?? 4;
    this.#retryBaseMs = opts.retryBaseMs ?? 500;
    this.#concurrency = Math.max(1, opts.concurrency ?? 2);
    this.#dimension = KNOWN_DIMENSIONS[opts.model];
    this.#outputDimension = opts.model.startsWith("embed-v4") ? this.#dimension : undefined;
  }

  /** The SDK's client, made at the first request. */
  #sdkClient(): Promise<{ client: CohereClientV2; sdk: Sdk }> {
    return (this.#client ??= loadSdk().then((sdk) => ({
      sdk,
      client: new sdk.CohereClientV2({
        token: this.#apiKey,
        baseUrl: this.#baseUrl,
        maxRetries: 0,
        // A backstop only: each request carries our own timeout signal (see #embedBatch).
        timeoutInSeconds: this.#timeoutMs / 1000 + 5,
        fetch: fetchWithoutRejections,
      }),
    })));
  }

  get dimension(): number {
    if (this.#dimension === undefined) {
      throw new EmbeddingsError(
        `The output size of Cohere model ${this.model} is not known until it has answered once; call health() first.`,
      );
    }
    return this.#dimension;
  }

  async embedDocuments(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += COHERE_BATCH_SIZE) {
      batches.push(texts.slice(i, i + COHERE_BATCH_SIZE));
    }
    const results: number[][][] = new Array(batches.length);
    // One failed batch stops the others instead of letting them spend requests for nothing.
    const stop = new AbortController();
    const combined = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        const i = next++;
        results[i] = await this.#embedBatch(batches[i]!, "search_document", combined);
      }
    };
    const workers = Array.from({ length: Math.min(this.#concurrency, batches.length) }, worker);
    try {
      await Promise.all(workers);
    } catch (err) {
      stop.abort();
      await Promise.allSettled(workers);
      throw err;
    }
    return results.flat();
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<number[]> {
    const [vector] = await this.#embedBatch([text], "search_query", signal);
    return vector!;
  }

  async health(): Promise<void> {
    if (Date.now() - this.#healthyAt < HEALTH_TTL_MS) return;
    await this.embedQuery("health check");
    this.#healthyAt = Date.now();
  }

  async #embedBatch(texts: string[], inputType: InputType, signal?: AbortSignal) {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#attempt(texts, inputType, signal);
      if (Array.isArray(outcome)) return outcome;
      if (!outcome.retryable || attempt > this.#maxRetries) {
        const tries = attempt > 1 ? ` (after ${attempt} attempts)` : "";
        throw new EmbeddingsError(`${outcome.message}${tries}`, {
          provider: "cohere",
          status: outcome.status,
          attempts: attempt,
        });
      }
      const backoff = this.#retryBaseMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
      await sleep(Math.min(MAX_BACKOFF_MS, outcome.retryAfterMs ?? backoff), signal);
    }
  }

  /** One request: the vectors, or why it failed. A caller's abort is rethrown as is. */
  async #attempt(texts: string[], inputType: InputType, signal?: AbortSignal) {
    const { client, sdk } = await this.#sdkClient();
    signal?.throwIfAborted();
    // Our own timeout: the SDK reports its timeouts as generic errors on Node's fetch.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#timeoutMs);
    try {
      const res = await client.embed(
        {
          model: this.model,
          texts,
          inputType,
          embeddingTypes: ["float"],
          truncate: "END",
          ...(this.#outputDimension ? { outputDimension: this.#outputDimension } : {}),
        },
        {
          maxRetries: 0,
          abortSignal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
        },
      );
      return this.#checkVectors(res.embeddings.float, texts.length);
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof EmbeddingsError) throw err;
      if (!timeout.signal.aborted) return this.#classify(err, sdk);
      return {
        retryable: true,
        status: null,
        message: `Cohere did not answer within ${this.#timeoutMs / 1000} s; retry later.`,
      } satisfies Failure;
    } finally {
      clearTimeout(timer);
    }
  }

  #checkVectors(vectors: number[][] | undefined, expected: number): number[][] {
    if (!Array.isArray(vectors) || vectors.length !== expected) {
      throw new EmbeddingsError(
        `Cohere returned ${vectors?.length ?? "no"} float embeddings for ${expected} texts; check that COHERE_BASE_URL points at Cohere's API.`,
      );
    }
    const size = vectors[0]?.length ?? 0;
    this.#dimension ??= size;
    if (size === 0 || vectors.some((v) => v.length !== this.#dimension)) {
      throw new EmbeddingsError(
        `Cohere model ${this.model} returned vectors of ${size} numbers where ${this.#dimension} were expected.`,
      );
    }
    return vectors;
  }

  #classify(err: unknown, { CohereError }: Sdk): Failure {
    if (!(err instanceof CohereError)) {
      return {
        retryable: false,
        status: null,
        message: `Cohere embedding failed: ${this.#scrub(err)}`,
      };
    }
    const status = err.statusCode;
    const said = this.#upstreamMessage(err.body);
    if (status === undefined || err.rawResponse?.headers.get(FETCH_FAILED) !== null) {
      return {
        retryable: true,
        status: null,
        message: `Cohere at ${this.#baseUrl} is not reachable${said.replace(/^: (.*)$/, " ($1)")}; check the network or COHERE_BASE_URL, or set EMBEDDINGS_PROVIDER=none to search the corpus lexically offline.`,
      };
    }
    if (status === 401 || status === 498) {
      return {
        retryable: false,
        status,
        message: `Cohere rejected COHERE_API_KEY (HTTP ${status}). Set a valid key, or set EMBEDDINGS_PROVIDER=none to search the corpus lexically without it.`,
      };
    }
    if (status === 403) {
      return {
        retryable: false,
        status,
        message: `Cohere refused this COHERE_API_KEY access to model ${this.model} (HTTP 403)${said}.`,
      };
    }
    if (status === 404) {
      return {
        retryable: false,
        status,
        message: `Cohere does not offer model ${this.model} (HTTP 404)${said}; check COHERE_EMBED_MODEL.`,
      };
    }
    if (status === 408 || status === 429 || status >= 500) {
      const header = err.rawResponse?.headers.get("retry-after");
      const seconds = header ? Number(header) : NaN;
      return {
        retryable: true,
        status,
        retryAfterMs: Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined,
        message:
          status === 429
            ? `Cohere is rate-limiting embed requests (HTTP 429)${said}; wait a minute and retry, or sync fewer records per call.`
            : `Cohere failed to embed (HTTP ${status})${said}; retry later.`,
      };
    }
    return {
      retryable: false,
      status,
      message: `Cohere refused the embed request (HTTP ${status})${said}.`,
    };
  }

  #upstreamMessage(body: unknown): string {
    const message =
      body && typeof body === "object" && "message" in body ? String(body.message) : undefined;
    return message ? `: ${this.#scrub(message).slice(0, 300)}` : "";
  }

  /** Upstream text may quote the Authorization header back; never let the key through. */
  #scrub(value: unknown): string {
    const text = value instanceof Error ? value.message : String(value);
    return text.split(this.#apiKey).join("[redacted]");
  }
}
