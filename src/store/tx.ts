import type { Kysely, Transaction } from "kysely";
import type { Database } from "./schema.js";

/**
 * Runs fn in the caller's transaction when handed one (Kysely cannot nest transactions), else in
 * a new one — so repositories compose inside a caller's larger transaction.
 */
export function inTransaction<T>(
  db: Kysely<Database>,
  fn: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return db.isTransaction ? fn(db as Transaction<Database>) : db.transaction().execute(fn);
}
