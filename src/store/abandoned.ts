/**
 * A process that died mid-sync leaves its job `running` forever; the next store open marks such
 * jobs `abandoned`. A job is only abandoned when nobody holds its query_key's sync lock: every sync
 * holds that lock from creating its job to finishing it (src/corpus/sync.ts), so a held lock means
 * a live process — another replica on the same PostgreSQL — still runs it. On PGlite the data
 * directory's lock keeps other processes out, so at open every running job is a dead one.
 */
import { StoreError } from "../errors.js";
import { log } from "../log.js";
import type { Store } from "./handle.js";
import { abandonRunningJobs, runningJobKeys } from "./jobs.js";
import { withQueryKeyLock } from "./locks.js";

export const ABANDONED_REASON =
  "The process running this sync stopped before it finished; the checkpoint stayed where the last complete window put it.";

/** Marks dead syncs' jobs abandoned; returns how many. Never waits for a live sync's lock. */
export async function markAbandonedJobs(store: Store): Promise<number> {
  let marked = 0;
  for (const key of await runningJobKeys(store.db)) {
    try {
      marked += await withQueryKeyLock(
        store,
        key,
        () => abandonRunningJobs(store.db, key, ABANDONED_REASON),
        { timeoutMs: 0 },
      );
    } catch (err) {
      // The lock is held: a live sync of this key owns its running job.
      if (!(err instanceof StoreError)) throw err;
      log.debug("a sync of this key is running elsewhere; its job stays running", {
        queryKey: key,
      });
    }
  }
  if (marked > 0) log.info("marked abandoned sync jobs", { jobs: marked });
  return marked;
}
