/**
 * The in-memory dense index of the pgvector adapter (dense-index.ts), loaded from the vectors the
 * chunk rows keep and kept equal to the tables by the generation protocol of table-mirror.ts.
 * The rows stay the source of truth: a restart, a second replica or a reindex loads from them.
 */
import { sql, type Kysely } from "kysely";
import {
  DenseIndex,
  decodeStoredVector,
  type DenseHit,
  type DenseRow,
  type StoredForm,
} from "../memory/dense-index.js";
import type { Storage } from "./write.js";
import { TableMirror, type LocalWrites, type MirrorSource } from "./table-mirror.js";
import type { ChunkPoint } from "../vector-store.js";

/** A selected row's fields but its vector. */
function chunkOf(r: Record<string, unknown>): Omit<DenseRow, "vector"> {
  return {
    id: r.id as string,
    pmid: r.pmid as string,
    retracted: r.retracted as boolean,
    quality: Number(r.quality),
  };
}

/**
 * Vectors travel in a binary form, no text to parse: pgvector's own (`vector_send`: 4 bytes a
 * number; reading 20,000 768-number vectors out of PGlite took 0.8 s where `array_send` of the
 * cast to real[], 8 bytes a number, took 2.7 s), or Postgres's float4[] form for the real[]
 * fallback. A full load sizes the matrix from the row count and decodes each vector into it.
 */
function denseSource(storage: () => Storage): MirrorSource<DenseRow, DenseIndex> {
  const form = (): StoredForm => (storage() === "vector" ? "vector" : "float4[]");
  return {
    get columns() {
      return form() === "vector"
        ? sql`id, pmid, retracted, quality, vector_send(embedding) as embedding`
        : sql`id, pmid, retracted, quality, array_send(embedding) as embedding`;
    },
    toRow: (r) => {
      const bytes = r.embedding as Uint8Array | null;
      return { ...chunkOf(r), vector: bytes && decodeStoredVector(bytes, form()) };
    },
    async load(stats) {
      const index = await DenseIndex.create(stats.dimension, stats.rows);
      const stored = form();
      return {
        add: (raw) => {
          for (const r of raw) {
            index.applyStored(chunkOf(r), r.embedding as Uint8Array | null, stored);
          }
        },
        finish: () => index,
      };
    },
    apply: (index, rows, removedIds) => index.apply(rows, removedIds),
  };
}

export class DenseMirror extends TableMirror<DenseRow, DenseIndex> {
  constructor(
    db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only its own tables
    /** How the table stores vectors (known before the first search: PgVectorStore's layout). */
    storage: () => Storage,
    local?: LocalWrites,
  ) {
    super(db, denseSource(storage), local);
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
