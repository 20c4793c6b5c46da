/**
 * The in-memory dense index of the pgvector adapter (dense-index.ts), loaded from the vectors the
 * chunk rows keep and kept equal to the tables by the generation protocol of table-mirror.ts.
 * The rows stay the source of truth: a restart, a second replica or a reindex loads from them.
 */
import { sql, type Kysely } from "kysely";
import { DenseIndex, decodeFloat4Array, type DenseHit, type DenseRow } from "./dense-index.js";
import { TableMirror, type LocalWrites, type MirrorSource } from "./table-mirror.js";
import type { ChunkPoint } from "./vector-store.js";

/**
 * Vectors travel in Postgres's binary float4[] form (pgvector casts `vector` to real[]; the
 * real[] fallback already is one): no text to parse, the same decoder on both storages.
 */
const DENSE: MirrorSource<DenseRow, DenseIndex> = {
  columns: sql`id, pmid, retracted, quality, array_send(embedding::real[]) as embedding`,
  toRow: (r) => ({
    id: r.id as string,
    pmid: r.pmid as string,
    retracted: r.retracted as boolean,
    quality: Number(r.quality),
    vector: r.embedding ? decodeFloat4Array(r.embedding as Uint8Array) : null,
  }),
  async load(stats) {
    const index = await DenseIndex.create(stats.dimension);
    return { add: (rows) => index.apply(rows, []), finish: () => index };
  },
  apply: (index, rows, removedIds) => index.apply(rows, removedIds),
};

export class DenseMirror extends TableMirror<DenseRow, DenseIndex> {
  constructor(
    db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables
    local?: LocalWrites,
  ) {
    super(db, DENSE, local);
  }

  async search(vector: readonly number[], limit: number, excludeRetracted: boolean) {
    const index = await this.current();
    return index.search(Float32Array.from(vector), limit, excludeRetracted);
  }
}

export function denseRow(p: ChunkPoint): DenseRow {
  return {
    id: p.id,
    pmid: p.pmid,
    retracted: p.payload.retracted,
    quality: p.payload.quality,
    vector: p.dense.length > 0 ? Float32Array.from(p.dense) : null,
  };
}

export type { DenseHit };
