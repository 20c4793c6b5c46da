/**
 * A bounded heap for the lexical index's candidates, so a query touching tens of thousands of
 * chunks keeps only `k` of them (O(n log k)), in the SQL order the adapters share.
 */
/** The best `k` (slot, score) pairs: score descending, then chunk id ascending (the SQL order). */
export class TopK {
  readonly #heap: [number, number][] = [];
  constructor(
    private readonly k: number,
    private readonly ids: readonly string[],
  ) {}

  /** a ranks below b. */
  #worse(a: [number, number], b: [number, number]): boolean {
    if (a[1] !== b[1]) return a[1] < b[1];
    return this.ids[a[0]]! > this.ids[b[0]]!;
  }

  offer(slot: number, score: number): void {
    const item: [number, number] = [slot, score];
    const h = this.#heap;
    if (h.length < this.k) {
      h.push(item);
      this.#up(h.length - 1);
    } else if (this.k > 0 && this.#worse(h[0]!, item)) {
      h[0] = item;
      this.#down(0);
    }
  }

  sorted(): [number, number][] {
    return [...this.#heap].sort((a, b) => (this.#worse(a, b) ? 1 : this.#worse(b, a) ? -1 : 0));
  }

  #up(i: number): void {
    const h = this.#heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#worse(h[i]!, h[p]!)) return;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  #down(i: number): void {
    const h = this.#heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.#worse(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.#worse(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}
