/**
 * The data model and search semantics of the Qdrant test double (__tests__/helpers/fake-qdrant.ts),
 * following Qdrant's documentation: cosine vectors are normalised on upsert, so a dense score is a
 * dot product with the normalised query; a sparse score is the dot product over shared indices,
 * each query value first multiplied by ln((N − df + 0.5)/(df + 0.5) + 1) when the sparse vector
 * has `modifier: "idf"` (N = points in the collection, df = points holding the index); points
 * with no shared index are not returned.
 */
export type Sparse = { indices: number[]; values: number[] };
type Filter = { must?: unknown; must_not?: unknown; should?: unknown };

export interface Point {
  id: string | number;
  vectors: Record<string, number[] | Sparse>;
  payload: Record<string, unknown>;
  version: number;
}

type Json = Record<string, unknown>;

/** A dense vector's params as created or patched (size, distance, on_disk, its own quantization). */
export type DenseParams = { size: number; distance: string } & Json;

export interface Collection {
  dense: Record<string, DenseParams>;
  sparse: Record<string, { modifier?: string; index?: Json }>;
  payloadSchema: Record<string, string>;
  points: Map<string, Point>;
  /** Collection-wide config as GET /collections/{name} reports it. */
  config: { hnsw: Json; optimizers: Json; quantization: Json | null; onDiskPayload: boolean };
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Something the double does not implement: answered 501 and recorded, never faked. */
export class Unsupported extends HttpError {
  constructor(readonly what: string) {
    super(501, `fake-qdrant does not implement ${what}`);
  }
}

function matches(p: Point, cond: unknown): boolean {
  const c = cond as { key?: string; match?: { value?: unknown; any?: unknown[] } };
  if (c.key === undefined || !c.match) throw new Unsupported(`condition ${JSON.stringify(cond)}`);
  const v = p.payload[c.key];
  if ("value" in c.match) return v === c.match.value;
  if (Array.isArray(c.match.any)) return c.match.any.includes(v);
  throw new Unsupported(`match ${JSON.stringify(c.match)}`);
}

const list = (x: unknown): unknown[] => (x == null ? [] : Array.isArray(x) ? x : [x]);

export function passes(p: Point, f: Filter | null | undefined): boolean {
  if (!f) return true;
  const should = list(f.should);
  return (
    list(f.must).every((c) => matches(p, c)) &&
    !list(f.must_not).some((c) => matches(p, c)) &&
    (should.length === 0 || should.some((c) => matches(p, c)))
  );
}

export function unit(v: number[]): number[] {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / n);
}

const idf = (N: number, df: number) => Math.log((N - df + 0.5) / (df + 0.5) + 1);

function sparseScores(c: Collection, using: string, q: Sparse, candidates: Point[]) {
  const weights = new Map(q.indices.map((i, k) => [i, q.values[k]!]));
  if (c.sparse[using]!.modifier === "idf") {
    const all = [...c.points.values()];
    for (const i of q.indices) {
      const df = all.filter((p) => (p.vectors[using] as Sparse | undefined)?.indices.includes(i));
      weights.set(i, weights.get(i)! * idf(all.length, df.length));
    }
  }
  return candidates.flatMap((p): [Point, number][] => {
    const v = p.vectors[using] as Sparse | undefined;
    let score = 0;
    let hit = false;
    v?.indices.forEach((i, k) => {
      const w = weights.get(i);
      if (w === undefined) return;
      score += w * v.values[k]!;
      hit = true;
    });
    return hit ? [[p, score]] : [];
  });
}

/** POST /collections/{name}/points/query, for nearest-neighbour queries. */
export function query(c: Collection, body: Record<string, unknown>) {
  const using = typeof body.using === "string" ? body.using : "";
  const raw = body.query as unknown;
  const q = raw && typeof raw === "object" && "nearest" in raw ? raw.nearest : raw;
  const candidates = [...c.points.values()].filter((p) => passes(p, body.filter as Filter));
  let scored: [Point, number][];
  const dense = c.dense[using];
  if (dense && Array.isArray(q)) {
    if (q.length !== dense.size) throw new HttpError(400, "Wrong input: Vector dimension error");
    const uq = unit(q as number[]);
    scored = candidates.map((p) => [
      p,
      (p.vectors[using] as number[]).reduce((s, x, i) => s + x * uq[i]!, 0),
    ]);
  } else if (c.sparse[using] && q && typeof q === "object" && "indices" in q) {
    scored = sparseScores(c, using, q as Sparse, candidates);
  } else {
    throw new Unsupported(`query ${JSON.stringify(raw).slice(0, 80)} using "${using}"`);
  }
  scored.sort((a, b) => b[1] - a[1] || String(a[0].id).localeCompare(String(b[0].id)));
  const limit = typeof body.limit === "number" ? body.limit : 10;
  return {
    points: scored.slice(0, limit).map(([p, score]) => ({
      id: p.id,
      version: p.version,
      score,
      ...selectPayload(p, body.with_payload),
    })),
  };
}

/**
 * The payload a reply carries, as Qdrant selects it: all of it for `true`, the named fields for a
 * list or `{ include }`, all but the named for `{ exclude }`, none for `false` or nothing.
 */
function selectPayload(p: Point, selector: unknown): { payload?: Json } {
  if (selector === true) return { payload: p.payload };
  const pick = (keep: (k: string) => boolean) => ({
    payload: Object.fromEntries(Object.entries(p.payload).filter(([k]) => keep(k))),
  });
  if (Array.isArray(selector)) return pick((k) => selector.includes(k));
  if (selector && typeof selector === "object") {
    const s = selector as { include?: string[]; exclude?: string[] };
    if (s.include) return pick((k) => s.include!.includes(k));
    if (s.exclude) return pick((k) => !s.exclude!.includes(k));
  }
  return {};
}

/** POST /collections/{name}/points: the points of these ids that exist, payload as selected. */
export function getPoints(c: Collection, body: Record<string, unknown>) {
  const ids = Array.isArray(body.ids) ? body.ids : [];
  if (body.with_vector !== undefined && body.with_vector !== false)
    throw new Unsupported("get_points with vectors");
  return ids.flatMap((id) => {
    const p = c.points.get(String(id));
    // Qdrant's default for retrieve is the whole payload.
    return p ? [{ id: p.id, ...selectPayload(p, body.with_payload ?? true) }] : [];
  });
}

/** PUT /collections/{name}: the collection a (spec-valid) CreateCollection body makes. */
export function createCollection(body: Json): Collection {
  const vectors = (body.vectors ?? {}) as Json;
  const dense = ("size" in vectors ? { "": vectors } : vectors) as Record<string, DenseParams>;
  return {
    dense,
    sparse: (body.sparse_vectors ?? {}) as Collection["sparse"],
    payloadSchema: {},
    points: new Map(),
    config: {
      // Qdrant's defaults where the body says nothing (on_disk_payload: the spec's "Default: true").
      hnsw: { m: 16, ef_construct: 100, full_scan_threshold: 10000, ...(body.hnsw_config as Json) },
      optimizers: {
        default_segment_number: 0,
        flush_interval_sec: 5,
        ...(body.optimizers_config as Json),
      },
      quantization: (body.quantization_config as Json | undefined) ?? null,
      onDiskPayload: (body.on_disk_payload as boolean | undefined) ?? true,
    },
  };
}

const merge = (base: Json | undefined, diff: unknown): Json => ({ ...base, ...(diff as Json) });

/**
 * PATCH /collections/{name}, as Qdrant applies an UpdateCollection: each given part merged into
 * the current one, named vectors that must already exist, quantization "Disabled" to remove it.
 */
export function updateCollection(c: Collection, body: Json): void {
  for (const key of Object.keys(body)) {
    if (
      ![
        "vectors",
        "quantization_config",
        "params",
        "hnsw_config",
        "sparse_vectors",
        "optimizers_config",
      ].includes(key)
    )
      throw new Unsupported(`updating ${key}`);
  }
  const quant = (q: unknown) => (q === "Disabled" ? null : (q as Json));
  for (const [name, diff] of Object.entries((body.vectors ?? {}) as Record<string, Json>)) {
    const v = c.dense[name];
    if (!v) throw new HttpError(400, `Wrong input: Not existing vector name error: ${name}`);
    if (diff.on_disk != null) v.on_disk = diff.on_disk;
    if (diff.hnsw_config != null) v.hnsw_config = merge(v.hnsw_config as Json, diff.hnsw_config);
    if (diff.quantization_config != null) v.quantization_config = quant(diff.quantization_config);
  }
  for (const [name, diff] of Object.entries((body.sparse_vectors ?? {}) as Record<string, Json>)) {
    const v = c.sparse[name];
    if (!v) throw new HttpError(400, `Wrong input: Not existing vector name error: ${name}`);
    if (diff.index != null) v.index = merge(v.index, diff.index);
    if (diff.modifier != null) v.modifier = diff.modifier as string;
  }
  if (body.quantization_config != null) c.config.quantization = quant(body.quantization_config);
  if (body.hnsw_config != null) c.config.hnsw = merge(c.config.hnsw, body.hnsw_config);
  if (body.optimizers_config != null)
    c.config.optimizers = merge(c.config.optimizers, body.optimizers_config);
  const params = (body.params ?? {}) as Json;
  if (params.on_disk_payload != null) c.config.onDiskPayload = params.on_disk_payload as boolean;
}

/** GET /collections/{name}: a CollectionInfo with the fields the spec requires. */
export function collectionInfo(c: Collection) {
  const n = c.points.size;
  return {
    status: "green",
    optimizer_status: "ok",
    segments_count: 1,
    points_count: n,
    indexed_vectors_count: 0,
    payload_schema: Object.fromEntries(
      Object.entries(c.payloadSchema).map(([k, t]) => [k, { data_type: t, points: n }]),
    ),
    config: {
      params: {
        vectors: "" in c.dense ? c.dense[""] : c.dense,
        sparse_vectors: c.sparse,
        shard_number: 1,
        replication_factor: 1,
        write_consistency_factor: 1,
        on_disk_payload: c.config.onDiskPayload,
      },
      hnsw_config: c.config.hnsw,
      optimizer_config: c.config.optimizers,
      wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
      ...(c.config.quantization && { quantization_config: c.config.quantization }),
    },
  };
}
