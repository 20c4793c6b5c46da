/**
 * The BM25 index's thread (lexical-thread.ts starts it): holds one LexicalIndex, applies the
 * updates it is sent in order and answers searches, ranked into papers when asked. Imports only
 * the index, the ranking and the channel, so it starts quickly.
 */
import { parentChannel } from "../../net/thread-channel.js";
import { rankLeg } from "../../retrieval/rank.js";
import { LexicalIndex, type LexicalRow } from "./lexical-index.js";
import { packHits, unpackRows, type LexicalApi } from "./lexical-wire.js";

let index = LexicalIndex.build([]);
let loading: LexicalRow[] | undefined;

const api: LexicalApi = {
  loadStart() {
    loading = [];
  },
  loadRows(rows) {
    for (const row of unpackRows(rows)) loading?.push(row);
  },
  loadEnd() {
    index = LexicalIndex.build(loading ?? []);
    loading = undefined;
  },
  apply({ rows, removed }) {
    index.apply(unpackRows(rows), removed);
  },
  search(q, served) {
    const query = { indices: q.indices, values: q.values };
    const found = index.search(query, q.limit, q.excludeRetracted);
    const ranked = q.rank ? rankLeg(found, q.rank) : undefined;
    const hits = packHits(ranked?.map((r) => r.hit) ?? found);
    const ranks = ranked && Float64Array.from(ranked, (r) => r.score);
    const buffers = [hits.scores.buffer, hits.quality.buffer, ...(ranks ? [ranks.buffer] : [])];
    served.transfer(buffers as ArrayBuffer[]);
    return ranks ? { hits, ranks } : { hits };
  },
};

parentChannel("src/vectors/memory/lexical-worker.ts").serve(api);
