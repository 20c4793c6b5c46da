/**
 * EMBEDDINGS_PROVIDER=none: no embedding model, so the corpus is lexical only. The stores keep no
 * vectors (dimension 0), rag_search runs the BM25 leg alone and reports `sim` null. It stands in
 * for an embedder so the corpus plumbing has one shape whatever is configured.
 */
import type { Embedder } from "./embedder.js";

export const NONE_MODEL = "none";

export class NoEmbedder implements Embedder {
  readonly provider = "none" as const;
  readonly model = NONE_MODEL;
  readonly dimension = 0;

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map(() => []);
  }

  async embedQuery(): Promise<number[]> {
    return [];
  }

  async health(): Promise<void> {
    // Nothing to reach.
  }
}

/** True when the embedder makes no vectors (the corpus is lexical only). */
export function isLexicalOnly(embedder: Pick<Embedder, "dimension">): boolean {
  return embedder.dimension === 0;
}
