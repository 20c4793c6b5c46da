/**
 * The BM25 index's thread (lexical-thread.ts starts it): holds one LexicalIndex, applies the
 * updates it is sent in order and answers searches, ranked into papers when asked. Imports only
 * the index and the ranking, so it starts quickly.
 */
import { parentPort } from "node:worker_threads";
import { rankLeg } from "../../retrieval/rank.js";
import { LexicalIndex, type LexicalRow } from "./lexical-index.js";
import {
  packHits,
  unpackRows,
  type FromLexicalThread,
  type ToLexicalThread,
} from "./lexical-wire.js";

const port = parentPort;
if (!port) throw new Error("src/vectors/memory/lexical-worker.ts runs as a worker thread only");
const post = (msg: FromLexicalThread, transfer: ArrayBuffer[] = []) =>
  port.postMessage(msg, transfer);

let index = LexicalIndex.build([]);
let loading: LexicalRow[] | undefined;

port.on("message", (msg: ToLexicalThread) => {
  switch (msg.type) {
    case "load-start":
      loading = [];
      return;
    case "load-rows":
      for (const row of unpackRows(msg.rows)) loading?.push(row);
      return;
    case "load-end":
      index = LexicalIndex.build(loading ?? []);
      loading = undefined;
      return;
    case "apply":
      index.apply(unpackRows(msg.rows), msg.removed);
      return;
    case "search":
      try {
        const query = { indices: msg.indices, values: msg.values };
        const found = index.search(query, msg.limit, msg.excludeRetracted);
        const ranked = msg.rank ? rankLeg(found, msg.rank) : undefined;
        const hits = packHits(ranked?.map((r) => r.hit) ?? found);
        const ranks = ranked && Float64Array.from(ranked, (r) => r.score);
        const buffers = [hits.scores.buffer, hits.quality.buffer, ...(ranks ? [ranks.buffer] : [])];
        post(
          { type: "hits", id: msg.id, hits, ...(ranks ? { ranks } : {}) },
          buffers as ArrayBuffer[],
        );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        post({ type: "failed", id: msg.id, message });
      }
  }
});
