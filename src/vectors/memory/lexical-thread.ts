/**
 * The BM25 index (lexical-index.ts) in a thread of its own, as the corpus worker keeps it: while
 * that thread scores one search, the corpus worker reads another's payloads from the store, so
 * concurrent callers use both cores instead of queueing on one thread.
 *
 * A thread's messages keep their order, so an update posted before a search is in the index that
 * answers it: the mirror's guarantee (table-mirror.ts) carries over unchanged. A thread that dies
 * loses its index; `failed` tells the mirror to load a new one, into a new thread.
 */
import type { SparseVector } from "../../retrieval/bm25.js";
import type { PaperRank } from "../../retrieval/rank.js";
import { AppError, ERROR_CLASSES, VectorStoreError } from "../../errors.js";
import { log } from "../../log.js";
import { ThreadChannel } from "../../net/thread-channel.js";
import { startThread } from "../../threads.js";
import type { LexicalHit, LexicalRow } from "./lexical-index.js";
import {
  packRows,
  transferList,
  unpackHits,
  type LexicalAnswer,
  type LexicalApi,
} from "./lexical-wire.js";

const stoppedError = (code: number) =>
  new VectorStoreError(
    `The lexical index thread stopped (exit code ${code}); the next search reloads the index.`,
  );

export class LexicalThread {
  #failure: Error | undefined;
  readonly #channel = new ThreadChannel<LexicalApi>({
    start: () => startThread("lexical-worker", import.meta.url),
    errors: ERROR_CLASSES,
    stopped: (code) =>
      code === null
        ? new VectorStoreError("The vector store was closed during the search.")
        : stoppedError(code),
    failed: (err) => log.error("lexical index thread failed", { error: err.message }),
    exited: (code) => {
      this.#failure = stoppedError(code);
    },
  });

  /** The thread died: its index is gone and searches fail until a new load. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** Starts a new index (in a new thread when the last one died): pages of rows, then finish. */
  load(): { add(rows: readonly LexicalRow[]): void; finish(): LexicalThread } {
    this.#failure = undefined;
    this.#channel.notify("loadStart");
    return {
      add: (rows) => {
        const packed = packRows(rows);
        this.#channel.notify("loadRows", packed, transferList(packed));
      },
      finish: () => {
        this.#channel.notify("loadEnd");
        return this;
      },
    };
  }

  apply(rows: readonly LexicalRow[], removed: readonly string[]): void {
    const packed = packRows(rows);
    this.#channel.notify("apply", { rows: packed, removed }, transferList(packed));
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

  /** A search; the thread's own failure (a plain Error) says which index failed. */
  #search(
    query: SparseVector,
    limit: number,
    excludeRetracted: boolean,
    rank?: PaperRank,
  ): Promise<LexicalAnswer> {
    if (this.#failure) return Promise.reject(this.#failure);
    const { indices, values } = query;
    return this.#channel
      .request("search", { indices, values, limit, excludeRetracted, ...(rank ? { rank } : {}) })
      .catch((err: unknown) => {
        if (err instanceof AppError) throw err;
        throw new VectorStoreError(`The lexical index failed: ${(err as Error).message}`);
      });
  }

  /** Ends the thread the way a crash would (tests of the reload path). */
  crashForTests(): Promise<void> {
    return this.#channel.terminate();
  }

  close(): Promise<void> {
    return this.#channel.close();
  }
}
