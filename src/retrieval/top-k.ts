/**
 * A bounded heap for the lexical index's candidates, so a query touching tens of thousands of
 * chunks keeps only `k` of them (O(n log k)), in the SQL order the adapters share. Typed arrays
 * and a score check before any work: a candidate below the current k-th costs one comparison.
 */
/** The best `k` (slot, score) pairs: score descending, then chunk id ascending (the SQL order). */
export class TopK {
  readonly #slots: Int32Array;
  readonly #scores: Float64Array;
  #size = 0;

  constructor(
    private readonly k: number,
    private readonly ids: readonly string[],
  ) {
    this.#slots = new Int32Array(Math.max(0, k));
    this.#scores = new Float64Array(Math.max(0, k));
  }

  /** (slot a, score sa) ranks below (slot b, score sb). */
  #worse(sa: number, a: number, sb: number, b: number): boolean {
    if (sa !== sb) return sa < sb;
    return this.ids[a]! > this.ids[b]!;
  }

  offer(slot: number, score: number): void {
    if (this.#size < this.k) {
      this.#slots[this.#size] = slot;
      this.#scores[this.#size] = score;
      this.#up(this.#size++);
    } else if (this.k > 0 && score >= this.#scores[0]!) {
      if (!this.#worse(this.#scores[0]!, this.#slots[0]!, score, slot)) return;
      this.#slots[0] = slot;
      this.#scores[0] = score;
      this.#down(0);
    }
  }

  sorted(): [number, number][] {
    const out: [number, number][] = [];
    for (let i = 0; i < this.#size; i++) out.push([this.#slots[i]!, this.#scores[i]!]);
    return out.sort((a, b) =>
      this.#worse(a[1], a[0], b[1], b[0]) ? 1 : this.#worse(b[1], b[0], a[1], a[0]) ? -1 : 0,
    );
  }

  #swap(i: number, j: number): void {
    const slot = this.#slots[i]!;
    const score = this.#scores[i]!;
    this.#slots[i] = this.#slots[j]!;
    this.#scores[i] = this.#scores[j]!;
    this.#slots[j] = slot;
    this.#scores[j] = score;
  }

  /** The entry at i ranks below the one at j. */
  #below(i: number, j: number): boolean {
    return this.#worse(this.#scores[i]!, this.#slots[i]!, this.#scores[j]!, this.#slots[j]!);
  }

  #up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#below(i, p)) return;
      this.#swap(i, p);
      i = p;
    }
  }

  #down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.#size && this.#below(l, m)) m = l;
      if (r < this.#size && this.#below(r, m)) m = r;
      if (m === i) return;
      this.#swap(i, m);
      i = m;
    }
  }
}
