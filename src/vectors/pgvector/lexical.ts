/**
 * The in-memory BM25 index of the pgvector adapter (lexical-index.ts), loaded from the postings
 * each chunk row carries and kept equal to the tables by the generation protocol of
 * table-mirror.ts. On this thread, or in a thread of its own (lexical-thread.ts: the corpus
 * worker's choice, so concurrent searches use two cores).
 */
import { sql, type Kysely } from "kysely";
import type { SparseVector } from "../../retrieval/bm25.js";
import { rankLeg, type PaperRank } from "../../retrieval/rank.js";
import { LexicalIndex, type LexicalHit, type LexicalRow } from "../memory/lexical-index.js";
import { LexicalThread } from "../memory/lexical-thread.js";
import { TableMirror, type LocalWrites, type MirrorSource } from "./table-mirror.js";

type Index = LexicalIndex | LexicalThread;

function lexicalSource(thread: LexicalThread | undefined): MirrorSource<LexicalRow, Index> {
  const toRow = (r: Record<string, unknown>): LexicalRow => ({
    id: r.id as string,
    pmid: r.pmid as string,
    retracted: r.retracted as boolean,
    quality: Number(r.quality),
    postings: (r.postings as Uint8Array | null) ?? new Uint8Array(0),
  });
  return {
    columns: sql`id, pmid, retracted, quality, postings`,
    toRow,
    async load() {
      if (thread) {
        const builder = thread.load();
        return { add: (raw) => builder.add(raw.map(toRow)), finish: () => builder.finish() };
      }
      // LexicalIndex.build packs every row's postings in two passes: it needs them all at once.
      const all: LexicalRow[] = [];
      return {
        add: (raw) => {
          for (const r of raw) all.push(toRow(r));
        },
        finish: () => LexicalIndex.build(all),
      };
    },
    apply: (index, rows, removedIds) => index.apply(rows, removedIds),
  };
}

export class LexicalMirror extends TableMirror<LexicalRow, Index> {
  readonly #thread: LexicalThread | undefined;

  constructor(
    db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables
    local?: LocalWrites,
    /** Where the index lives when not on this thread. */
    thread?: LexicalThread,
  ) {
    super(db, lexicalSource(thread), local);
    this.#thread = thread;
  }

  async search(query: SparseVector, limit: number, excludeRetracted: boolean) {
    const index = await this.#index();
    return index.search(query, limit, excludeRetracted);
  }

  /** The hits ranked into papers (rank.ts rankLeg), in the index's thread when it has one. */
  async rank(query: SparseVector, limit: number, excludeRetracted: boolean, rank: PaperRank) {
    const index = await this.#index();
    if (index instanceof LexicalThread) return index.rank(query, limit, excludeRetracted, rank);
    return rankLeg(index.search(query, limit, excludeRetracted), rank);
  }

  async #index(): Promise<Index> {
    // A thread that died took its index along: load the tables again, into a new thread.
    if (this.#thread?.failed) this.forget();
    return this.current();
  }

  /** Bytes of the index's typed arrays, when it is on this thread. */
  get bytes(): number | undefined {
    const index = this.loaded;
    return index instanceof LexicalIndex ? index.bytes : undefined;
  }

  async close(): Promise<void> {
    await this.#thread?.close();
  }
}

export type { LexicalHit };
