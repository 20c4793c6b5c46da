/**
 * Reads by key, batched while the store is busy: the first read goes at once; reads asked for
 * while it runs wait and then go together as one. A statement's fixed cost outweighs its rows
 * (the embedded store read the payloads of 80 chunks in one statement for about a quarter of what
 * eight statements of 10 cost), so concurrent searches share it, and a lone search waits for
 * nothing.
 */
export class ReadBatcher<V> {
  #busy = false;
  #next: { keys: Set<string>; waiters: Waiter<V>[] } | undefined;

  constructor(private readonly read: (keys: string[]) => Promise<Map<string, V>>) {}

  /** The values of `keys` found (possibly with others read in the same batch). */
  get(keys: readonly string[]): Promise<Map<string, V>> {
    if (!this.#busy) return this.#run([...keys]);
    const next = (this.#next ??= { keys: new Set(), waiters: [] });
    for (const k of keys) next.keys.add(k);
    return new Promise((resolve, reject) => next.waiters.push({ resolve, reject }));
  }

  async #run(keys: string[]): Promise<Map<string, V>> {
    this.#busy = true;
    try {
      return await this.read(keys);
    } finally {
      this.#busy = false;
      const next = this.#next;
      this.#next = undefined;
      if (next) {
        this.#run([...next.keys]).then(
          (values) => next.waiters.forEach((w) => w.resolve(values)),
          (err: unknown) => next.waiters.forEach((w) => w.reject(err)),
        );
      }
    }
  }
}

interface Waiter<V> {
  resolve: (values: Map<string, V>) => void;
  reject: (err: unknown) => void;
}
