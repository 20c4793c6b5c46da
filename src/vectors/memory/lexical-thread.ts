/**
 * The BM25 index (lexical-index.ts) in a thread of its own, as the corpus worker keeps it: while
 * that thread scores one search, the corpus worker reads another's payloads from the store, so
 * concurrent callers use both cores instead of queueing on one thread.
 *
 * A thread's messages keep their order, so an update posted before a search is in the index that
 * answers it: the mirror's guarantee (table-mirror.ts) carries over unchanged. A thread that dies
 * loses its index; `failed` tells the mirror to load a new one, into a new thread.
 */
import type { Worker } from "node:worker_threads";
import type { SparseVector } from "../../retrieval/bm25.js";
import type { PaperRank } from "../../retrieval/rank.js";
import { VectorStoreError } from "../../errors.js";
import { log } from "../../log.js";
import { startThread } from "../../threads.js";
import type { LexicalHit, LexicalRow } from "./lexical-index.js";
import {
  packRows,
  transferList,
  type FromLexicalThread,
  type PackedRows,
  type ToLexicalThread,
  unpackHits,
} from "./lexical-wire.js";

type Reply = Extract<FromLexicalThread, { type: "hits" }>;

interface Pending {
  resolve: (reply: Reply) => void;
  reject: (err: Error) => void;
}

export class LexicalThread {
  #worker: Worker | undefined;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  #failure: Error | undefined;

  /** The thread died: its index is gone and searches fail until a new load. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** Starts a new index (in a new thread when the last one died): pages of rows, then finish. */
  load(): { add(rows: readonly LexicalRow[]): void; finish(): LexicalThread } {
    this.#failure = undefined;
    this.#post({ type: "load-start" });
    return {
      add: (rows) => this.#postRows((packed) => ({ type: "load-rows", rows: packed }), rows),
      finish: () => {
        this.#post({ type: "load-end" });
        return this;
      },
    };
  }

  apply(rows: readonly LexicalRow[], removed: readonly string[]): void {
    this.#postRows((packed) => ({ type: "apply", rows: packed, removed }), rows);
  }

  async search(
    query: SparseVector,
    limit: number,
    excludeRetracted: boolean,
  ): Promise<LexicalHit[]> {
    return unpackHits((await this.#search(query, limit, excludeRetracted)).hits);
  }

  /** The hits ranked into papers in the thread (rank.ts rankLeg): only the winners cross. */
  async rank(
    query: SparseVector,
    limit: number,
    excludeRetracted: boolean,
    rank: PaperRank,
  ): Promise<{ hit: LexicalHit; score: number }[]> {
    const reply = await this.#search(query, limit, excludeRetracted, rank);
    const ranks = reply.ranks;
    if (!ranks) throw new VectorStoreError("The lexical index answered a ranked search unranked.");
    return unpackHits(reply.hits).map((hit, i) => ({ hit, score: ranks[i]! }));
  }

  #search(
    query: SparseVector,
    limit: number,
    excludeRetracted: boolean,
    rank?: PaperRank,
  ): Promise<Reply> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#next++;
    return new Promise<Reply>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#post({
        type: "search",
        id,
        indices: query.indices,
        values: query.values,
        limit,
        excludeRetracted,
        ...(rank ? { rank } : {}),
      });
    });
  }

  /** Ends the thread the way a crash would (tests of the reload path). */
  async crashForTests(): Promise<void> {
    await this.#worker?.terminate();
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#failPending(new VectorStoreError("The vector store was closed during the search."));
    await worker?.terminate();
  }

  #postRows(make: (rows: PackedRows) => ToLexicalThread, rows: readonly LexicalRow[]): void {
    const packed = packRows(rows);
    this.#post(make(packed), transferList(packed));
  }

  #post(msg: ToLexicalThread, transfer: ArrayBuffer[] = []): void {
    (this.#worker ?? this.#start()).postMessage(msg, transfer);
  }

  #start(): Worker {
    const worker = startThread("lexical-worker", import.meta.url);
    worker.on("message", (msg: FromLexicalThread) => this.#receive(msg));
    worker.on("error", (err) => log.error("lexical index thread failed", { error: err.message }));
    worker.once("exit", (code) => this.#exited(worker, code));
    this.#worker = worker;
    return worker;
  }

  #receive(msg: FromLexicalThread): void {
    const p = this.#pending.get(msg.id);
    this.#pending.delete(msg.id);
    if (msg.type === "hits") p?.resolve(msg);
    else p?.reject(new VectorStoreError(`The lexical index failed: ${msg.message}`));
  }

  #exited(worker: Worker, code: number): void {
    if (this.#worker !== worker) return; // closed
    this.#worker = undefined;
    this.#failure = new VectorStoreError(
      `The lexical index thread stopped (exit code ${code}); the next search reloads the index.`,
    );
    this.#failPending(this.#failure);
  }

  #failPending(err: Error): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}
