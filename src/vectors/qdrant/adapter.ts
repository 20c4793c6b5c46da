/**
 * Chunk vectors in Qdrant: one collection (QDRANT_COLLECTION) with a named dense vector "dense"
 * (cosine) and a sparse vector "bm25" declared with `modifier: "idf"`, so Qdrant multiplies each
 * query term by idf(N, df) from live collection statistics — the stored values are the BM25
 * tf-saturation parts (src/retrieval/bm25.ts) and the score is BM25 itself. Point ids are the chunk
 * uuids; the payload carries what rag_search shows plus indexed filter fields (pmid, retracted,
 * pdat_year). Where each part is kept, and why, is ./layout.ts. Writes wait for completion so a
 * sync's checkpoint never outruns its vectors. A search that may leave payloads out
 * (SearchOptions.withPayload false: rag_search's legs, 300 candidates each) reads only `pmid` and
 * `quality`; the few winners' payloads are read by id afterwards (payloads()).
 * With no embedder (dimension 0, EMBEDDINGS_PROVIDER=none) the collection is sparse-only: no
 * dense vector is declared or stored, and only the BM25 leg can be searched.
 */
import { QdrantClient, QdrantClientTimeoutError, type Schemas } from "@qdrant/js-client-rest";
import type { SparseVector } from "../../retrieval/bm25.js";
import { AppError, VectorStoreError, isAbort } from "../../errors.js";
import { payloadFromRow, payloadToRow, type PayloadRow } from "../payload-row.js";
import { checkDenseQuery, checkPoints, checkSparseQuery } from "../points.js";
import type { ChunkPayload, ChunkPoint, Hit, SearchOptions, VectorStore } from "../vector-store.js";
import {
  DENSE_VECTOR,
  SPARSE_VECTOR,
  createBody,
  denseParams,
  denseSearchParams,
  layoutProblem,
  missingIndexes,
  upgradeFor,
} from "./layout.js";

export { DENSE_VECTOR, SPARSE_VECTOR } from "./layout.js";
/** Points per upsert request: keeps request bodies to a few MB with 1536-number vectors. */
const UPSERT_BATCH = 128;

export interface QdrantOptions {
  url: string;
  apiKey?: string;
  collection: string;
  timeoutMs?: number;
}

interface StoredPayload extends PayloadRow {
  pmid: string;
  chunk_id: string;
}

/** What a search reads of each candidate when its payload may be left out. */
const LEAN_PAYLOAD = { include: ["pmid", "quality"] };

export class QdrantVectorStore implements VectorStore {
  readonly kind = "qdrant" as const;
  readonly keepsChunks = false;
  readonly #client: QdrantClient;
  readonly #url: string;
  readonly #collection: string;
  readonly #timeoutMs: number;
  #dimension: number | undefined;

  constructor(opts: QdrantOptions) {
    this.#url = opts.url.replace(/\/+$/, "");
    this.#collection = opts.collection;
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.#client = new QdrantClient({
      url: this.#url,
      apiKey: opts.apiKey,
      timeout: this.#timeoutMs,
      // Version probing would log to the console on every start and fails against test doubles.
      checkCompatibility: false,
    });
  }

  async ensure(dimension: number): Promise<void> {
    const name = this.#collection;
    const { exists } = await this.#call("check the collection", () =>
      this.#client.collectionExists(name),
    );
    if (!exists) {
      await this.#call("create the collection", async () => {
        try {
          await this.#client.createCollection(name, createBody(dimension));
        } catch (err) {
          // Another process created it first; the check below decides whether it fits.
          if (!(await this.#client.collectionExists(name)).exists) throw err;
        }
      });
    }
    const info = await this.#call("read the collection", () => this.#client.getCollection(name));
    const problem = layoutProblem(info, dimension);
    if (problem) {
      throw new VectorStoreError(
        `Qdrant collection "${name}" ${problem}. Run \`pubmed-mcp reindex\` into a new QDRANT_COLLECTION, or delete the collection.`,
      );
    }
    // An older version's collection: storage places and quantization in place (same body from
    // every replica, so a race is harmless), then the payload indexes it lacks.
    const upgrade = upgradeFor(info);
    if (upgrade) {
      await this.#call("update the collection layout", () =>
        this.#client.updateCollection(name, upgrade),
      );
    }
    for (const [field_name, field_schema] of missingIndexes(info)) {
      await this.#call("index payload fields", () =>
        this.#client.createPayloadIndex(name, { field_name, field_schema, wait: true }),
      );
    }
    this.#dimension = dimension;
  }

  async reset(dimension: number): Promise<void> {
    const name = this.#collection;
    await this.#call("delete the collection", async () => {
      if ((await this.#client.collectionExists(name)).exists) {
        await this.#client.deleteCollection(name);
      }
    });
    this.#dimension = undefined;
    await this.ensure(dimension);
  }

  async upsert(points: ChunkPoint[], signal?: AbortSignal): Promise<void> {
    const unique = checkPoints(points, await this.#knownDimension());
    for (let i = 0; i < unique.length; i += UPSERT_BATCH) {
      signal?.throwIfAborted();
      const batch = unique.slice(i, i + UPSERT_BATCH).map((p) => ({
        id: p.id,
        vector:
          p.dense.length > 0
            ? { [DENSE_VECTOR]: p.dense, [SPARSE_VECTOR]: p.sparse }
            : { [SPARSE_VECTOR]: p.sparse },
        payload: toStored(p) as unknown as Record<string, unknown>,
      }));
      await this.#call("store chunk vectors", () =>
        this.#client.upsert(this.#collection, { points: batch, wait: true }),
      );
    }
  }

  async deletePmids(pmids: string[]): Promise<void> {
    if (pmids.length === 0) return;
    await this.#call("delete chunk vectors", () =>
      this.#client.delete(this.#collection, {
        filter: { must: [{ key: "pmid", match: { any: pmids } }] },
        wait: true,
      }),
    );
  }

  async searchDense(vector: number[], limit: number, opts: SearchOptions = {}): Promise<Hit[]> {
    const dimension = await this.#knownDimension();
    if (dimension === 0) {
      throw new VectorStoreError(
        `Qdrant collection "${this.#collection}" is lexical only (no dense vectors); set an embedding provider and run \`pubmed-mcp reindex\`.`,
      );
    }
    checkDenseQuery(vector, dimension);
    return this.#query(vector, DENSE_VECTOR, limit, opts, denseSearchParams(limit));
  }

  async searchSparse(query: SparseVector, limit: number, opts: SearchOptions = {}) {
    checkSparseQuery(query);
    if (query.indices.length === 0) return [];
    return this.#query(query, SPARSE_VECTOR, limit, opts);
  }

  /** The payload of these chunks, by id (those a search returned without it). */
  async payloads(ids: string[]): Promise<Map<string, ChunkPayload>> {
    if (ids.length === 0) return new Map();
    const points = await this.#call("read payloads", () =>
      this.#client.retrieve(this.#collection, { ids, with_payload: true, with_vector: false }),
    );
    return new Map(
      points.map((p) => [
        String(p.id),
        payloadFromRow((p.payload ?? {}) as unknown as StoredPayload),
      ]),
    );
  }

  async count(): Promise<number> {
    const res = await this.#call("count points", () =>
      this.#client.count(this.#collection, { exact: true }),
    );
    return res.count;
  }

  async health(): Promise<void> {
    await this.#call("answer", () => this.#client.collectionExists(this.#collection));
  }

  async close(): Promise<void> {
    // The REST client holds no connection state worth closing.
  }

  async #query(
    query: number[] | SparseVector,
    using: string,
    limit: number,
    opts: SearchOptions,
    params?: Schemas["SearchParams"],
  ): Promise<Hit[]> {
    const lean = opts.withPayload === false;
    const res = await this.#call("search", () =>
      this.#client.query(this.#collection, {
        query,
        using,
        limit,
        params,
        with_payload: lean ? LEAN_PAYLOAD : true,
        filter: opts.excludeRetracted
          ? { must: [{ key: "retracted", match: { value: false } }] }
          : undefined,
      }),
    );
    return res.points.map((p) => {
      const stored = (p.payload ?? {}) as unknown as StoredPayload;
      const id = String(p.id);
      if (lean) return { id, pmid: stored.pmid, score: p.score, quality: stored.quality };
      return { id, pmid: stored.pmid, score: p.score, payload: payloadFromRow(stored) };
    });
  }

  async #knownDimension(): Promise<number> {
    if (this.#dimension === undefined) {
      const info = await this.#call("read the collection", () =>
        this.#client.getCollection(this.#collection),
      );
      if (!info.config.params.sparse_vectors?.[SPARSE_VECTOR]) {
        throw new VectorStoreError(
          `Qdrant collection "${this.#collection}" has no "${SPARSE_VECTOR}" vector; the corpus must be opened (ensure) first.`,
        );
      }
      // A sparse-only collection is a lexical-only corpus (dimension 0).
      this.#dimension = denseParams(info)?.size ?? 0;
    }
    return this.#dimension;
  }

  /**
   * Every client failure becomes a VectorStoreError that says what to do. A failure with no HTTP
   * status (a refused or reset connection) is tried once more: Qdrant closes idle keep-alive
   * connections after a few seconds, and a request can meet one being closed. Every call made
   * here is idempotent (upserts and deletes by id or filter, reads), so a second try is safe.
   */
  async #call<T>(op: string, run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (err) {
        if (err instanceof AppError || isAbort(err)) throw err;
        const connectionLevel =
          !(err instanceof QdrantClientTimeoutError) &&
          typeof (err as { status?: unknown }).status !== "number";
        if (attempt === 1 && connectionLevel) continue;
        throw this.#toError(op, err);
      }
    }
  }

  #toError(op: string, err: unknown): VectorStoreError {
    const where = `Qdrant at ${this.#url}`;
    if (err instanceof QdrantClientTimeoutError) {
      return new VectorStoreError(
        `${where} did not ${op} within ${this.#timeoutMs / 1000} s; check its load, then retry.`,
      );
    }
    const status = (err as { status?: unknown }).status;
    if (typeof status !== "number") {
      return new VectorStoreError(
        `${where} is not reachable; start it or unset QDRANT_URL to use the embedded pgvector store.`,
        { op },
        { cause: err },
      );
    }
    if (status === 401 || status === 403) {
      return new VectorStoreError(
        `${where} rejected the request (HTTP ${status}); check QDRANT_API_KEY.`,
      );
    }
    const data = (err as { data?: { status?: { error?: unknown } } }).data;
    const said = typeof data?.status?.error === "string" ? `: ${data.status.error}` : "";
    return new VectorStoreError(
      `${where} could not ${op} (HTTP ${status})${said.slice(0, 300)}.`,
      { op, status },
      { cause: err },
    );
  }
}

function toStored(p: ChunkPoint): StoredPayload {
  return { pmid: p.pmid, chunk_id: p.chunkId, ...payloadToRow(p.payload) };
}
