/**
 * The corpus stores of the thread that runs the corpus operations: the corpus worker's
 * (entry.ts), or this thread's with an inline host (host.ts, the bench's single-threaded
 * baseline). They open on first use, with the modules behind them loaded then too, so a
 * live-only session never pays for the store and vector clients (issue 11,
 * __tests__/startup/lazy-modules.test.ts). A failed open (e.g. the embedded store is locked by
 * another process) is tried again on the next use.
 */
import type { Config } from "../config.js";
import type { Corpus, OpenCorpusOptions } from "../corpus/runtime.js";

export class CorpusStores {
  private opened: Promise<Corpus> | undefined;

  constructor(
    private readonly config: Config,
    /** How they open: the corpus worker puts BM25 and a sync's preparing in threads of their own. */
    private readonly opts: OpenCorpusOptions = {},
  ) {}

  /** The open stores; the first call opens them, and every call until then shares that attempt. */
  open(): Promise<Corpus> {
    if (!this.opened) {
      const attempt = import("../corpus/runtime.js").then((m) =>
        m.openCorpus(this.config, this.opts),
      );
      this.opened = attempt;
      attempt.catch(() => {
        if (this.opened === attempt) this.opened = undefined;
      });
    }
    return this.opened;
  }

  /** Closes the stores if they were opened (a failed open has nothing to close). */
  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened) await (await opened.catch(() => undefined))?.close();
  }
}
