/**
 * Dense search in memory: exact cosine over the chunk vectors, one float32 row each in one matrix,
 * scanned by USearch's SIMD kernels on every core (`exactSearch`), plus what the dense leg filters
 * and returns per chunk (pmid, retracted, quality).
 * score = 1 − cosine distance = cosine similarity, as pgvector's `1 − (a <=> b)` gave.
 *
 * Exact rather than a graph: until 2026-11-28 this was an HNSW graph (USearch's Index), whose
 * build took 65.8 s at 100,000 chunks of 768 numbers on 2 cores, blocking the corpus worker, and
 * whose every sync batch added its vectors at about 1 ms each. The scan answers 100,000 such
 * chunks in 10–30 ms on the 2-core machines measured (the graph about 10 ms), always with the true
 * nearest, and loading is only reading the vectors (bench/JOURNAL.md, "Later on the morning of
 * 2026-11-28" and "Late morning of 2026-11-28").
 *
 * The live chunks are rows 0 … size − 1: a removed chunk's row is filled by the last one, so the
 * scan never meets a hole and churn never grows the matrix.
 *
 * usearch is a native module: imported on first use (loadUsearch), never at start-up.
 */

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

type Usearch = typeof import("usearch").default;
let usearch: Promise<Usearch> | undefined;

export function loadUsearch(): Promise<Usearch> {
  return (usearch ??= import("usearch").then((m) => m.default));
}

/** Rows the matrix first has room for; it doubles when full. */
const FIRST_CAPACITY = 1024;

export class DenseIndex {
  readonly #lib: Usearch;
  readonly #dimension: number;
  /** Row r's vector at r × dimension; rows from size on are spare room. */
  #matrix: Float32Array;
  #ids: string[] = [];
  #pmids: string[] = [];
  #retracted: Uint8Array;
  #quality: Float32Array;
  #rowOf = new Map<string, number>();
  #retractedLive = 0;

  private constructor(lib: Usearch, dimension: number, capacity: number) {
    this.#lib = lib;
    this.#dimension = dimension;
    this.#matrix = new Float32Array(capacity * dimension);
    this.#retracted = new Uint8Array(capacity);
    this.#quality = new Float32Array(capacity);
  }

  /** `rows`: how many chunks are about to be loaded, so the matrix is made that size at once. */
  static async create(dimension: number, rows = 0): Promise<DenseIndex> {
    return new DenseIndex(await loadUsearch(), dimension, Math.max(FIRST_CAPACITY, rows));
  }

  /** Chunks searchable now. */
  get size(): number {
    return this.#ids.length;
  }

  get dimension(): number {
    return this.#dimension;
  }

  /** Replaces `rows` by id (or adds them) and removes `removedIds`, in that order per id. */
  apply(rows: readonly DenseRow[], removedIds: readonly string[]): void {
    for (const id of removedIds) this.#remove(id);
    for (const r of rows) {
      this.#remove(r.id);
      const vector = r.vector;
      if (vector?.length === this.#dimension) {
        this.#append(r, (matrix, at) => matrix.set(vector, at));
      }
    }
  }

  /**
   * Replaces (or adds) one chunk whose vector is still in its stored bytes, decoding them straight
   * into the matrix: a full load makes no array per chunk. Bytes of another size are skipped.
   */
  applyStored(row: Omit<DenseRow, "vector">, bytes: Uint8Array | null, form: StoredForm): void {
    this.#remove(row.id);
    if (bytes && storedLength(bytes, form) === this.#dimension) {
      this.#append(row, (matrix, at) => decodeStored(bytes, form, matrix, at));
    }
  }

  /**
   * The `limit` nearest chunks by cosine, best first (ties by id, the SQL order). Retracted chunks
   * are asked for on top of `limit` and dropped, so the filter never leaves a leg short.
   */
  search(query: Float32Array, limit: number, excludeRetracted: boolean): DenseHit[] {
    const live = this.size;
    const k = Math.min(live, limit + (excludeRetracted ? this.#retractedLive : 0));
    if (k <= 0 || limit <= 0) return [];
    // The native scan reads from the start of each array's buffer: both views start at 0.
    const rows = this.#matrix.subarray(0, live * this.#dimension);
    const own = query.byteOffset === 0 ? query : query.slice();
    const { Cos } = this.#lib.MetricKind;
    const found = this.#lib.exactSearch(rows, own, this.#dimension, k, Cos);
    const hits: DenseHit[] = [];
    for (let i = 0; i < found.keys.length; i++) {
      const row = Number(found.keys[i]);
      const id = this.#ids[row];
      if (id === undefined || (excludeRetracted && this.#retracted[row])) continue;
      hits.push({
        id,
        pmid: this.#pmids[row]!,
        score: 1 - (found.distances[i] as number),
        quality: this.#quality[row]!,
      });
    }
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return hits.slice(0, limit);
  }

  /** Takes the row of `id` out, moving the last row into its place. */
  #remove(id: string): void {
    const row = this.#rowOf.get(id);
    if (row === undefined) return;
    this.#rowOf.delete(id);
    if (this.#retracted[row]) this.#retractedLive--;
    const last = this.#ids.length - 1;
    if (row !== last) {
      const d = this.#dimension;
      this.#matrix.copyWithin(row * d, last * d, (last + 1) * d);
      const moved = this.#ids[last]!;
      this.#ids[row] = moved;
      this.#pmids[row] = this.#pmids[last]!;
      this.#retracted[row] = this.#retracted[last]!;
      this.#quality[row] = this.#quality[last]!;
      this.#rowOf.set(moved, row);
    }
    this.#ids.pop();
    this.#pmids.pop();
  }

  /** Adds a row for `r`, whose vector `write` puts into the matrix at the offset it is given. */
  #append(
    r: Omit<DenseRow, "vector">,
    write: (matrix: Float32Array, offset: number) => void,
  ): void {
    const row = this.#ids.length;
    if (row === this.#retracted.length) this.#grow();
    write(this.#matrix, row * this.#dimension);
    this.#ids.push(r.id);
    this.#pmids.push(r.pmid);
    this.#retracted[row] = r.retracted ? 1 : 0;
    this.#quality[row] = r.quality;
    this.#rowOf.set(r.id, row);
    if (r.retracted) this.#retractedLive++;
  }

  #grow(): void {
    const capacity = this.#retracted.length * 2;
    const matrix = new Float32Array(capacity * this.#dimension);
    matrix.set(this.#matrix);
    const retracted = new Uint8Array(capacity);
    retracted.set(this.#retracted);
    const quality = new Float32Array(capacity);
    quality.set(this.#quality);
    this.#matrix = matrix;
    this.#retracted = retracted;
    this.#quality = quality;
  }
}

/**
 * How the table's rows hold a vector, read in binary: pgvector's `vector_send` (dimension as an
 * int16, an unused int16, then the values) or Postgres's `array_send` of a float4[] (a 20-byte
 * header, then a length and a value per element). Both big-endian.
 */
export type StoredForm = "vector" | "float4[]";

/** How many numbers the bytes hold, or -1 when they are not a vector in that form. */
function storedLength(bytes: Uint8Array, form: StoredForm): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (form === "vector") {
    if (bytes.length < 4) return -1;
    const n = view.getUint16(0);
    return bytes.length === 4 + n * 4 ? n : -1;
  }
  if (bytes.length < 20 || view.getInt32(0) !== 1) return -1;
  const n = view.getInt32(12);
  if (n < 0 || bytes.length < 20 + n * 8) return -1;
  for (let i = 0, off = 20; i < n; i++, off += 8) if (view.getInt32(off) !== 4) return -1;
  return n;
}

/** Decodes bytes storedLength accepted into `out` from `offset`. */
function decodeStored(
  bytes: Uint8Array,
  form: StoredForm,
  out: Float32Array,
  offset: number,
): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (form === "vector") {
    const n = view.getUint16(0);
    for (let i = 0; i < n; i++) out[offset + i] = view.getFloat32(4 + i * 4);
  } else {
    const n = view.getInt32(12);
    for (let i = 0, off = 24; i < n; i++, off += 8) out[offset + i] = view.getFloat32(off);
  }
}

/** The vector the bytes hold in that form, or null when they hold none. */
export function decodeStoredVector(bytes: Uint8Array, form: StoredForm): Float32Array | null {
  const n = storedLength(bytes, form);
  if (n < 0) return null;
  const out = new Float32Array(n);
  decodeStored(bytes, form, out, 0);
  return out;
}
