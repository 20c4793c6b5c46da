/**
 * Picks the vector store the configuration asks for (docs/reference.md#configuration, VECTOR_STORE: Qdrant when QDRANT_URL is
 * set, else pgvector inside the metadata database). No I/O here; the caller runs ensure(). The
 * Qdrant adapter loads only when configured: its client, with the undici it bundles, cost the
 * corpus worker 0.1–0.15 s of CPU at every start (bench/JOURNAL.md, §7).
 */
import type { Kysely } from "kysely";
import type { Config } from "../config.js";
import type { PreparedRead } from "../store/db.js";
import { VectorStoreError } from "../errors.js";
import type { LocalWrites } from "./pgvector/table-mirror.js";
import { PgVectorStore, type PgVectorOptions } from "./pgvector/adapter.js";
import type { VectorStore } from "./vector-store.js";

export type { ChunkPayload, ChunkPoint, Hit, SearchOptions, VectorStore } from "./vector-store.js";
export { PgVectorStore } from "./pgvector/adapter.js";

/** The part of the metadata store the pgvector adapter needs. */
export interface VectorHost {
  db: Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- any store schema
  hasPgvector: boolean;
  /** Set where this process is the database's one writer (PGlite): see Store.localWrites. */
  localWrites?: LocalWrites;
  /** The store's prepared reads (Store.read), for the payload read of every search. */
  read?: PreparedRead;
}

export async function createVectorStore(
  config: Pick<Config, "vectorStore" | "qdrant">,
  host: VectorHost,
  opts: PgVectorOptions = {},
): Promise<VectorStore> {
  if (config.vectorStore === "qdrant") {
    if (!config.qdrant.url) {
      throw new VectorStoreError("VECTOR_STORE=qdrant needs QDRANT_URL.");
    }
    const { QdrantVectorStore } = await import("./qdrant/adapter.js");
    return new QdrantVectorStore({
      url: config.qdrant.url,
      apiKey: config.qdrant.apiKey,
      collection: config.qdrant.collection,
    });
  }
  return new PgVectorStore(host.db, host.hasPgvector, host.localWrites, {
    read: host.read,
    ...opts,
  });
}
