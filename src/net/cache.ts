/**
 * In-memory response cache for idempotent requests, bounded by size (LRU by bytes); each entry
 * lives as long as the time to live its client gives it (NCBI's per utility: src/ncbi/ttl.ts; the
 * other services' per path: ./clients.ts). Keys carry the scope (utility, or service and path)
 * and the parameters that make the question.
 */

/** Parameters that identify the caller, not the question; they never split cache entries. */
const IDENTITY_PARAMS = new Set(["tool", "email", "api_key"]);

/** Same scope (utility, or service and path) and same parameters (in any order) give the same key. */
export function cacheKey(utility: string, params: [string, string][]): string {
  const relevant = params
    .filter(([k]) => !IDENTITY_PARAMS.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${utility}?${new URLSearchParams(relevant).toString()}`;
}

interface Entry<V> {
  value: V;
  expires: number;
  bytes: number;
  /** Values computed from `value` (a parse of a cached body), kept and evicted with it. */
  derived?: Map<string, unknown>;
}

export interface CacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

export class ResponseCache<V> {
  /** Map iteration order is insertion order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.expires <= this.now()) {
      if (entry) this.delete(key, entry);
      this.misses += 1;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits += 1;
    return entry.value;
  }

  /** `bytes` is the caller's size estimate; entries larger than the whole budget are not kept. */
  set(key: string, value: V, ttlMs: number, bytes: number): void {
    const old = this.entries.get(key);
    if (old) this.delete(key, old);
    if (ttlMs <= 0 || bytes > this.maxBytes) return;
    this.entries.set(key, { value, expires: this.now() + ttlMs, bytes });
    this.bytes += bytes;
    this.evict();
  }

  /**
   * A value derived from a live entry under `name` (e.g. its body parsed), or undefined. Not
   * counted as a hit or miss, and not an LRU touch: the `get` that found the entry was both.
   */
  derived(key: string, name: string): unknown {
    const entry = this.entries.get(key);
    if (!entry || entry.expires <= this.now()) return undefined;
    return entry.derived?.get(name);
  }

  /**
   * Keeps `value` with the live entry at `key` (nothing when it is gone), its `bytes` counted in
   * the budget: a derived value lives and dies with the entry it came from, so it is never older
   * than the body and never outlives its TTL.
   */
  setDerived(key: string, name: string, value: unknown, bytes: number): void {
    const entry = this.entries.get(key);
    if (!entry || entry.expires <= this.now()) return;
    const derived = (entry.derived ??= new Map());
    if (!derived.has(name)) {
      entry.bytes += bytes;
      this.bytes += bytes;
    }
    derived.set(name, value);
    this.evict();
  }

  stats(): CacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.entries.size, bytes: this.bytes };
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Drops least recently used entries until the budget holds. */
  private evict(): void {
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(k, e);
    }
  }

  private delete(key: string, entry: Entry<V>): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
