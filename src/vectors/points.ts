/**
 * Input checks shared by both adapters, so a malformed point fails the same way (a clear
 * VectorStoreError naming the chunk) whichever store is configured, before anything is written.
 */
import type { SparseVector } from "../corpus/bm25.js";
import { VectorStoreError } from "../errors.js";
import type { ChunkPoint } from "./vector-store.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UINT32_MAX = 0xffffffff;

function sparseProblem(v: SparseVector): string | undefined {
  if (v.indices.length !== v.values.length) return "indices and values differ in length";
  const seen = new Set<number>();
  for (const i of v.indices) {
    if (!Number.isInteger(i) || i < 0 || i > UINT32_MAX) return `index ${i} is not a uint32`;
    if (seen.has(i)) return `index ${i} repeats`;
    seen.add(i);
  }
  if (!v.values.every(Number.isFinite)) return "a value is not a finite number";
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
