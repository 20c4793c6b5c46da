/**
 * The in-memory BM25 index of the pgvector adapter (lexical-index.ts), loaded from the postings
 * each chunk row carries and kept equal to the tables by the generation protocol of
 * table-mirror.ts.
 */
import { sql, type Kysely } from "kysely";
import type { SparseVector } from "../corpus/bm25.js";
import { LexicalIndex, type LexicalHit, type LexicalRow } from "./lexical-index.js";
import { TableMirror, type LocalWrites, type MirrorSource } from "./table-mirror.js";

const LEXICAL: MirrorSource<LexicalRow, LexicalIndex> = {
  columns: sql`id, pmid, retracted, quality, postings`,
  toRow: (r) => ({
    id: r.id as string,
    pmid: r.pmid as string,
    retracted: r.retracted as boolean,
    quality: Number(r.quality),
    postings: (r.postings as Uint8Array | null) ?? new Uint8Array(0),
  }),
  // LexicalIndex.build packs every row's postings in two passes: it needs them all at once.
  async load() {
    const all: LexicalRow[] = [];
    return {
      add: (rows) => {
        for (const r of rows) all.push(r);
      },
      finish: () => LexicalIndex.build(all),
    };
  },
  apply: (index, rows, removedIds) => index.apply(rows, removedIds),
};

export class LexicalMirror extends TableMirror<LexicalRow, LexicalIndex> {
  constructor(
    db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables
    local?: LocalWrites,
  ) {
    super(db, LEXICAL, local);
  }

  async search(query: SparseVector, limit: number, excludeRetracted: boolean) {
    const index = await this.current();
    return index.search(query, limit, excludeRetracted);
  }
}

export type { LexicalHit };
