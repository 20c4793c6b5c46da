/**
 * Picks the embedder the configuration asks for (docs/reference.md#configuration, EMBEDDINGS_PROVIDER: `cohere` when COHERE_API_KEY is
 * set, else `none` — lexical only; `hash` is the offline lexical-flavoured option). Nothing here touches the network; call `health()` before first
 * use — for a Cohere model outside the known table it also learns the vector size.
 */
import type { Config } from "../config.js";
import { EmbeddingsError } from "../errors.js";
import { CohereEmbedder } from "./cohere.js";
import type { Embedder } from "./embedder.js";
import { HashEmbedder } from "./hash.js";
import { NoEmbedder } from "./none.js";

export type { Embedder } from "./embedder.js";
export { CohereEmbedder } from "./cohere.js";
export { HashEmbedder, hashEmbed, HASH_DIMENSION, HASH_MODEL } from "./hash.js";
export { NoEmbedder, isLexicalOnly } from "./none.js";

export function createEmbedder(cfg: Config["embeddings"]): Embedder {
  if (cfg.provider === "none") return new NoEmbedder();
  if (cfg.provider === "hash") return new HashEmbedder();
  if (!cfg.cohereApiKey) {
    throw new EmbeddingsError(
      "EMBEDDINGS_PROVIDER=cohere needs COHERE_API_KEY; set it, or use EMBEDDINGS_PROVIDER=none (lexical only).",
    );
  }
  return new CohereEmbedder({
    apiKey: cfg.cohereApiKey,
    baseUrl: cfg.cohereBaseUrl,
    model: cfg.cohereModel,
  });
}
