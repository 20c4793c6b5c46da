/**
 * The store, sync and search modules the corpus operations import when they first run (so that
 * registering the corpus tools loads none of them: issue 11), each imported once: a later call
 * awaits the same promise instead of resolving the specifier again. Per call, that resolution
 * went through the module loader (and in development through tsx's hooks), some 5 % of the corpus
 * worker's time per rag_search with 8 callers.
 */

/** `load` run at the first call; the same promise after, unless it failed (then tried again). */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () =>
    (loaded ??= load().catch((err: unknown) => {
      loaded = undefined;
      throw err;
    }));
}

export const searchModule = once(() => import("./search.js"));
export const syncModule = once(() => import("./sync.js"));
export const docsModule = once(() => import("../store/docs.js"));
export const checkpointsModule = once(() => import("../store/checkpoints.js"));
export const jobsModule = once(() => import("../store/jobs.js"));
