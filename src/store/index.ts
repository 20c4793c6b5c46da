/** The metadata store's public surface; see the individual modules for the contracts. */
export { openStore, type OpenStoreOptions, type Store } from "./db.js";
export * from "./docs.js";
export * from "./checkpoints.js";
export * from "./jobs.js";
export * from "./meta.js";
export { DEFAULT_LOCK_TIMEOUT_MS, withQueryKeyLock, type LockOptions } from "./locks.js";
export { inTransaction } from "./tx.js";
export type { Database, JobStatus, CheckpointSource } from "./schema.js";
