/**
 * Two syncs of one query_key must never interleave (docs/architecture.md#a-sync-pubmed_sync_delta), within a process and across
 * processes or replicas sharing a database.
 *
 * - In-process: a per-key async mutex. Needed on every backend because Postgres advisory locks
 *   are re-entrant within one session, and PGlite is a single session (and single process: the
 *   data-directory lock keeps other processes out).
 * - On a server Postgres, additionally a session-level advisory lock held on a dedicated pooled
 *   connection for the whole sync. A session lock rather than pg_advisory_xact_lock because a
 *   sync spans many transactions. If that connection dies, the server drops the lock; the sync
 *   itself carries on, which is acceptable because the document writes are idempotent.
 *
 * A second caller waits up to `timeoutMs` (default 30 s), then gets a StoreError saying another
 * sync is running — waiting suits a scheduler that overlaps by seconds; failing beats hanging a
 * tool call for the length of someone else's multi-minute sync. timeoutMs 0 = try-lock.
 */
import { sql, type Kysely } from "kysely";
import { StoreError } from "../errors.js";
import { sleep } from "../sleep.js";
import { log } from "../log.js";
import type { Store } from "./handle.js";
import type { Database } from "./schema.js";
import { toStoreError } from "./store-errors.js";

export interface LockOptions {
  timeoutMs?: number;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 30_000;
const POLL_MS = 200;

/** Per database handle, per key: the promise the next waiter queues behind. */
const tails = new WeakMap<Kysely<Database>, Map<string, Promise<void>>>();

function busy(key: string, timeoutMs: number): StoreError {
  return new StoreError(
    `Another sync of "${key}" is running and did not finish within ${Math.round(timeoutMs / 1000)} s. ` +
      "Wait for it to finish, then retry.",
    { queryKey: key },
  );
}

/** Queues behind the current holder of `key`; resolves with a release function or throws on timeout. */
async function acquireLocal(store: Store, key: string, timeoutMs: number): Promise<() => void> {
  let perKey = tails.get(store.db);
  if (!perKey) tails.set(store.db, (perKey = new Map()));
  const keys = perKey;
  const prev = keys.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => (release = r));
  const tail = prev.then(() => mine);
  keys.set(key, tail);
  void tail.then(() => {
    if (keys.get(key) === tail) keys.delete(key);
  });

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">(
    (r) => (timer = setTimeout(() => r("timeout"), timeoutMs)),
  );
  const won = await Promise.race([prev.then(() => "ok" as const), timedOut]);
  clearTimeout(timer);
  if (won === "timeout") {
    // Give up our place: successors then wait only for `prev`.
    release();
    throw busy(key, timeoutMs);
  }
  return release;
}

/** Runs fn while holding the advisory lock for `key` on one dedicated connection. */
async function withAdvisoryLock<T>(
  store: Store,
  key: string,
  deadline: number,
  timeoutMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  // Two int4 keys: a fixed namespace for this application, then the query_key's hash. A hash
  // collision between two keys only serialises them, never lets two syncs of one key overlap.
  const lockKey = sql`hashtext('pubmed-mcp'), hashtext(${key})`;
  return store.db.connection().execute(async (conn) => {
    for (;;) {
      const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${lockKey}) as ok`
        .execute(conn)
        .catch((err: unknown) => {
          throw toStoreError(err, "taking the sync lock");
        });
      if (rows[0]?.ok) break;
      if (Date.now() >= deadline) throw busy(key, timeoutMs);
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
    }
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${lockKey})`.execute(conn).catch((err: unknown) => {
        log.warn("could not release the sync advisory lock", {
          queryKey: key,
          message: err instanceof Error ? err.message : String(err),
        });
      });
    }
  });
}

/** Runs fn as the only holder of `key` for this database; see the module comment. */
export async function withQueryKeyLock<T>(
  store: Store,
  key: string,
  fn: () => Promise<T>,
  opts: LockOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const release = await acquireLocal(store, key, timeoutMs);
  try {
    // PGlite: the file lock already excludes other processes, and its pool has one connection,
    // which a dedicated lock connection would starve.
    if (store.kind === "pglite") return await fn();
    return await withAdvisoryLock(store, key, deadline, timeoutMs, fn);
  } finally {
    release();
  }
}
