/**
 * The Qdrant collection layout, sized for millions of chunks on a small host (docs/architecture.md,
 * "Qdrant and PostgreSQL at 1 M records"). Per point of 1,536 numbers (Cohere embed-v4.0):
 * - the float32 originals (6,144 B) live on disk (`on_disk`), read through the page cache only to
 *   rescore a query's shortlist;
 * - an int8 copy (1,536 B, quantile 0.99) stays in RAM (`always_ram`) and is what HNSW walks;
 * - the HNSW graph (m 16: about 128 B of level-0 links) stays in RAM;
 * - the payload (title and text, about 1.5 KB) lives on disk (`on_disk_payload`), and the BM25
 *   sparse index too (its hot posting lists stay in the page cache);
 * - payload indexes on every field a request filters by: pmid (deletes), retracted (searches),
 *   pdat_year.
 * A collection made by an older version is brought to this layout in place (`upgradeFor`): Qdrant
 * applies these changes by re-optimising segments in the background, without losing points.
 */
import type { Schemas } from "@qdrant/js-client-rest";

export const DENSE_VECTOR = "dense";
export const SPARSE_VECTOR = "bm25";

/** Qdrant's own defaults, written down so a server-wide setting cannot change the graph. */
export const HNSW = { m: 16, ef_construct: 100 } as const;

export const QUANTIZATION = {
  scalar: { type: "int8", quantile: 0.99, always_ram: true },
} as const satisfies Schemas["QuantizationConfig"];

/**
 * int8 ranks near-ties out of order; the shortlist is 1.5 × the limit and its originals rescore it
 * (exact cosine, as pgvector gives). At rag_search's depth 300: 450 candidates, 2.8 MB of originals.
 */
export const OVERSAMPLING = 1.5;
/** The beam never narrower than the shortlist, and not below 128 for small limits. */
const MIN_HNSW_EF = 128;

/** Every payload field a request filters by, with its index type. */
export const PAYLOAD_INDEXES: readonly [string, Schemas["PayloadSchemaType"]][] = [
  ["pmid", "keyword"],
  ["retracted", "bool"],
  ["pdat_year", "integer"],
];

const sparseParams = {
  modifier: "idf",
  index: { on_disk: true },
} as const satisfies Schemas["SparseVectorParams"];

/** The body of PUT /collections/{name}; dimension 0 is a sparse-only (lexical) collection. */
export function createBody(dimension: number): Schemas["CreateCollection"] {
  const sparse_vectors = { [SPARSE_VECTOR]: sparseParams };
  if (dimension === 0) return { sparse_vectors, on_disk_payload: true };
  return {
    vectors: { [DENSE_VECTOR]: { size: dimension, distance: "Cosine", on_disk: true } },
    sparse_vectors,
    hnsw_config: { ...HNSW },
    quantization_config: QUANTIZATION,
    on_disk_payload: true,
  };
}

/** The search params of a dense query for `limit` hits. */
export function denseSearchParams(limit: number): Schemas["SearchParams"] {
  return {
    hnsw_ef: Math.max(MIN_HNSW_EF, Math.ceil(limit * OVERSAMPLING)),
    quantization: { rescore: true, oversampling: OVERSAMPLING },
  };
}

export function denseParams(info: Schemas["CollectionInfo"]): Schemas["VectorParams"] | undefined {
  const vectors = info.config.params.vectors as Record<string, Schemas["VectorParams"]> | undefined;
  return vectors?.[DENSE_VECTOR];
}

/** Why this collection cannot hold this corpus (a reindex is needed), or undefined. */
export function layoutProblem(info: Schemas["CollectionInfo"], dimension: number) {
  const dense = denseParams(info);
  if (dimension === 0) {
    if (dense) return `holds ${dense.size}-number dense vectors but no embedder is configured`;
  } else if (!dense || dense.distance !== "Cosine") {
    return `has no cosine vector named "${DENSE_VECTOR}"`;
  }
  if (dense && dense.size !== dimension) {
    return `holds ${dense.size}-number vectors but the embedder makes ${dimension}`;
  }
  if (info.config.params.sparse_vectors?.[SPARSE_VECTOR]?.modifier !== "idf") {
    return `has no sparse vector "${SPARSE_VECTOR}" with the idf modifier`;
  }
  return undefined;
}

/**
 * The PATCH /collections/{name} body that brings a fitting collection to the layout, or undefined
 * when it has it (so a second start sends nothing). Storage places are the layout's and are set;
 * quantization is added only where none is configured, so an operator's own choice (binary, for a
 * smaller host) stays. The graph is left as built: changing m would rebuild every segment.
 */
export function upgradeFor(
  info: Schemas["CollectionInfo"],
): Schemas["UpdateCollection"] | undefined {
  const body: Schemas["UpdateCollection"] = {};
  const dense = denseParams(info);
  if (dense && dense.on_disk !== true) body.vectors = { [DENSE_VECTOR]: { on_disk: true } };
  if (dense && !dense.quantization_config && !info.config.quantization_config) {
    body.quantization_config = QUANTIZATION;
  }
  if (info.config.params.on_disk_payload !== true) body.params = { on_disk_payload: true };
  if (info.config.params.sparse_vectors?.[SPARSE_VECTOR]?.index?.on_disk !== true) {
    body.sparse_vectors = { [SPARSE_VECTOR]: sparseParams };
  }
  return Object.keys(body).length > 0 ? body : undefined;
}

/** Payload indexes the collection lacks. */
export function missingIndexes(info: Schemas["CollectionInfo"]) {
  return PAYLOAD_INDEXES.filter(([field]) => !info.payload_schema[field]);
}
