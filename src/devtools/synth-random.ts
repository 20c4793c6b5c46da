/**
 * Seeded randomness for the synthetic PubMed generator. Every record draws from its own stream,
 * keyed by (seed, index, purpose), so any record can be rebuilt alone and in any order.
 */

/** A 32-bit avalanche hash of several integers (murmur3's finaliser, chained). */
export function mix(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units; enough to turn a term or a label into a stream key. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Stream purposes, so two uses of the same record index never share draws. */
export const STREAM = {
  content: 1,
  citation: 2,
  abstract: 3,
  edat: 4,
  refs: 5,
  topic: 6,
  flags: 7,
} as const;

/** mulberry32: small, fast and good enough for test data. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  static of(...parts: number[]): Rng {
    return new Rng(mix(...parts));
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return at(items, Math.floor(this.next() * items.length));
  }

  /** One item chosen with probability proportional to its weight. */
  weighted<T>(items: readonly T[], weight: (item: T) => number): T {
    let total = 0;
    for (const item of items) total += weight(item);
    let r = this.next() * total;
    for (const item of items) {
      r -= weight(item);
      if (r < 0) return item;
    }
    return at(items, items.length - 1);
  }

  /** `count` distinct items (fewer when the list is shorter), in draw order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length > 0) {
      const i = Math.floor(this.next() * pool.length);
      out.push(at(pool, i));
      pool.splice(i, 1);
    }
    return out;
  }
}

/** Index into a list the caller knows is long enough; a miss is a generator bug. */
export function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined)
    throw new RangeError(`synth: index ${index} outside a list of ${items.length}`);
  return item;
}
