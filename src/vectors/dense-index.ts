/**
 * Dense search in memory: an HNSW graph from USearch (Unum, native, cosine, float32) over the chunk
 * vectors, plus what the dense leg filters and returns per chunk (pmid, retracted, quality).
 * score = 1 − cosine distance = cosine similarity, as pgvector's `1 − (a <=> b)` gave.
 *
 * Chunk ids are uuids; USearch keys are integers: a chunk holds a slot (its key) while it lives,
 * and a replaced or deleted chunk's slot is removed from the graph and reused (USearch reuses the
 * graph node of a removed key, so churn does not grow the index).
 *
 * usearch is a native module: imported on first use (loadUsearch), never at start-up.
 */
import type { Index as UsearchIndex } from "usearch";

/** One chunk as the dense index holds it; a row without a vector of the index's size is skipped. */
export interface DenseRow {
  id: string;
  pmid: string;
  retracted: boolean;
  quality: number;
  vector: Float32Array | null;
}

export interface DenseHit {
  id: string;
  pmid: string;
  score: number;
  quality: number;
}

/**
 * Graph degree 32 (USearch's default is 16) and search beam 128 (USearch widens it to k, so
 * rag_search's 300-deep leg searches wider): on 3,000 random 96-number vectors, the hard case,
 * recall@10 against exact cosine was 0.88–0.93 at 16/64, 0.975–0.99 at 16/128 and 0.9975–1 at
 * 32/128, for 15% more build time and 256 bytes of graph per chunk.
 * __tests__/vectors/dense-mirror.test.ts guards recall@10 ≥ 0.95.
 */
const CONNECTIVITY = 32;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 128;

type Usearch = typeof import("usearch").default;
let usearch: Promise<Usearch> | undefined;

export function loadUsearch(): Promise<Usearch> {
  return (usearch ??= import("usearch").then((m) => m.default));
}

export class DenseIndex {
  readonly #graph: UsearchIndex;
  readonly #dimension: number;
  /** By slot (= USearch key); undefined for a free slot. */
  #ids: (string | undefined)[] = [];
  #pmids: string[] = [];
  #retracted = new Uint8Array(1024);
  #quality = new Float32Array(1024);
  #slotOf = new Map<string, number>();
  #free: number[] = [];
  #retractedLive = 0;

  private constructor(lib: Usearch, dimension: number) {
    this.#dimension = dimension;
    this.#graph = new lib.Index({
      dimensions: dimension,
      metric: lib.MetricKind.Cos,
      quantization: lib.ScalarKind.F32,
      connectivity: CONNECTIVITY,
      expansion_add: EXPANSION_ADD,
      expansion_search: EXPANSION_SEARCH,
      multi: false,
    });
  }

  static async create(dimension: number): Promise<DenseIndex> {
    return new DenseIndex(await loadUsearch(), dimension);
  }

  /** Chunks searchable now. */
  get size(): number {
    return this.#slotOf.size;
  }

  get dimension(): number {
    return this.#dimension;
  }

  /** Replaces `rows` by id (or adds them) and removes `removedIds`, in that order per id. */
  apply(rows: readonly DenseRow[], removedIds: readonly string[]): void {
    for (const id of removedIds) this.#remove(id);
    const fresh = rows.filter((r) => {
      this.#remove(r.id);
      return r.vector?.length === this.#dimension;
    });
    if (fresh.length === 0) return;
    const keys = new BigUint64Array(fresh.length);
    const matrix = new Float32Array(fresh.length * this.#dimension);
    fresh.forEach((r, i) => {
      keys[i] = BigInt(this.#claim(r));
      matrix.set(r.vector!, i * this.#dimension);
    });
    this.#graph.add(keys, matrix);
  }

  /**
   * The `limit` nearest chunks by cosine, best first (ties by id, the SQL order). Retracted chunks
   * are asked for on top of `limit` and dropped, so the filter never leaves a leg short.
   */
  search(query: Float32Array, limit: number, excludeRetracted: boolean): DenseHit[] {
    const live = this.size;
    const k = Math.min(live, limit + (excludeRetracted ? this.#retractedLive : 0));
    if (k <= 0 || limit <= 0) return [];
    const found = this.#graph.search(query, k, 1);
    const hits: DenseHit[] = [];
    for (let i = 0; i < found.keys.length; i++) {
      const slot = Number(found.keys[i]);
      const id = this.#ids[slot];
      if (id === undefined || (excludeRetracted && this.#retracted[slot])) continue;
      hits.push({
        id,
        pmid: this.#pmids[slot]!,
        score: 1 - found.distances[i]!,
        quality: this.#quality[slot]!,
      });
    }
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return hits.slice(0, limit);
  }

  #remove(id: string): void {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return;
    this.#graph.remove(BigInt(slot));
    this.#slotOf.delete(id);
    this.#ids[slot] = undefined;
    if (this.#retracted[slot]) this.#retractedLive--;
    this.#free.push(slot);
  }

  #claim(row: DenseRow): number {
    const slot = this.#free.pop() ?? this.#ids.length;
    if (slot >= this.#retracted.length) {
      const size = Math.max(slot + 1, this.#retracted.length * 2);
      const retracted = new Uint8Array(size);
      retracted.set(this.#retracted);
      const quality = new Float32Array(size);
      quality.set(this.#quality);
      this.#retracted = retracted;
      this.#quality = quality;
    }
    this.#ids[slot] = row.id;
    this.#pmids[slot] = row.pmid;
    this.#retracted[slot] = row.retracted ? 1 : 0;
    this.#quality[slot] = row.quality;
    this.#slotOf.set(row.id, slot);
    if (row.retracted) this.#retractedLive++;
    return slot;
  }
}

/** A float4[] in Postgres's binary array form (array_send): 20-byte header, then (len, value). */
export function decodeFloat4Array(bytes: Uint8Array): Float32Array | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (bytes.length < 20 || view.getInt32(0) !== 1) return null;
  const n = view.getInt32(12);
  if (bytes.length < 20 + n * 8) return null;
  const out = new Float32Array(n);
  for (let i = 0, off = 20; i < n; i++, off += 8) {
    if (view.getInt32(off) !== 4) return null;
    out[i] = view.getFloat32(off + 4);
  }
  return out;
}
