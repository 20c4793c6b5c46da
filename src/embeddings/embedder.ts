/**
 * What the corpus needs from an embedding provider. Documents and queries are embedded through
 * separate calls because retrieval models (Cohere's `input_type`) embed them differently.
 */
export interface Embedder {
  readonly provider: "cohere" | "hash" | "none";
  /** Recorded with the corpus; a different model means the stored vectors must be rebuilt. */
  readonly model: string;
  /** Length of every vector this embedder returns; 0 for `none` (lexical only). */
  readonly dimension: number;
  /** One vector per text, in input order. */
  embedDocuments(texts: string[], signal?: AbortSignal): Promise<Float32Array[] | number[][]>;
  embedQuery(text: string, signal?: AbortSignal): Promise<number[]>;
  /** Resolves when the embedder can serve requests; throws EmbeddingsError otherwise. */
  health(): Promise<void>;
}
