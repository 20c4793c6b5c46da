/**
 * Input checks shared by both adapters, so a malformed point fails the same way (a clear
 * VectorStoreError naming the chunk) whichever store is configured, before anything is written.
 */
import type { SparseVector } from "../retrieval/bm25.js";
import { VectorStoreError } from "../errors.js";
import type { ChunkPoint } from "./vector-store.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UINT32_MAX = 0xffffffff;

function sparseProblem(v: SparseVector): string | undefined {
  const { indices, values } = v;
  if (indices.length !== values.length) return "indices and values differ in length";
  // The vectors the indexer makes are in ascending order (bm25.ts): then no index can repeat, and
  // one comparison each proves it (a set of the seen ones cost a sync's worker 50-70 ms).
  let ascending = true;
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k] as number;
    if (!Number.isInteger(i) || i < 0 || i > UINT32_MAX) return `index ${i} is not a uint32`;
    if (k > 0 && i <= (indices[k - 1] as number)) ascending = false;
    if (!Number.isFinite(values[k])) return "a value is not a finite number";
  }
  return ascending ? undefined : repeatedIndex(indices);
}

function repeatedIndex(indices: readonly number[]): string | undefined {
  const seen = new Set<number>();
  for (const i of indices) {
    if (seen.has(i)) return `index ${i} repeats`;
    seen.add(i);
  }
  return undefined;
}

/**
 * Validates points and keeps the last of any repeated id (one upsert call must not write the same
 * row twice: Postgres refuses that inside one statement).
 */
export function checkPoints(points: readonly ChunkPoint[], dimension: number): ChunkPoint[] {
  const byId = new Map<string, ChunkPoint>();
  for (const p of points) {
    let problem: string | undefined;
    if (!UUID.test(p.id)) problem = "its id is not a uuid";
    else if (p.dense.length !== dimension) {
      problem = `its dense vector has ${p.dense.length} numbers, the store holds ${dimension}`;
    } else if (!p.dense.every(Number.isFinite))
      problem = "its dense vector has a non-finite number";
    else {
      const sparse = sparseProblem(p.sparse);
      if (sparse) problem = `its sparse vector is malformed (${sparse})`;
    }
    if (problem) {
      throw new VectorStoreError(`Cannot store chunk ${p.pmid}:${p.chunkId}: ${problem}.`, {
        id: p.id,
      });
    }
    byId.delete(p.id);
    byId.set(p.id, p);
  }
  return [...byId.values()];
}

export function checkSparseQuery(q: SparseVector): void {
  const problem = sparseProblem(q);
  if (problem) throw new VectorStoreError(`The sparse query vector is malformed (${problem}).`);
}

export function checkDenseQuery(v: readonly number[], dimension: number): void {
  if (v.length !== dimension || !v.every(Number.isFinite)) {
    throw new VectorStoreError(
      `The query vector has ${v.length} numbers (or a non-finite one); the store holds ${dimension}-number vectors.`,
    );
  }
}
