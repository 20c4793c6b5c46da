/**
 * resource://pubmed/corpus — what the local evidence corpus holds: document and chunk counts, the
 * embedder its vectors were made with, and each saved query's checkpoint.
 */
import { corpusSummary } from "../worker/corpus-api.js";
import { defineResource } from "./resource.js";

export const corpusResource = defineResource({
  uri: "resource://pubmed/corpus",
  name: "corpus",
  description:
    "The local evidence corpus as JSON: documents, chunks, vectors, embedding provider/model/" +
    "dimension, stores in use, and the checkpoint of every synced query_key.",
  mimeType: "application/json",
  toolset: "corpus",
  read: async () => JSON.stringify(await corpusSummary(), null, 2),
});
