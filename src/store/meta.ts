/**
 * corpus_meta: small facts about the corpus as a whole, e.g. the embedding provider, model and
 * dimension the stored vectors were made with (a mismatch means re-indexing).
 */
import type { Kysely } from "kysely";
import { InvariantError } from "../errors.js";
import type { Database } from "./schema.js";
import { storeCall } from "./store-errors.js";

type Db = Kysely<Database>;

/** The stored JSON value, or undefined when the key was never set. The caller asserts `T`. */
export async function getMeta<T = unknown>(db: Db, key: string): Promise<T | undefined> {
  const row = await storeCall("reading corpus metadata", () =>
    db.selectFrom("corpus_meta").select("value").where("key", "=", key).executeTakeFirst(),
  );
  return row ? (row.value as T) : undefined;
}

/** Stores any JSON-serialisable value under `key`, replacing what was there. */
export async function setMeta(db: Db, key: string, value: unknown): Promise<void> {
  const json = JSON.stringify(value);
  if (json === undefined) {
    throw new InvariantError(`Corpus metadata "${key}" must be a JSON value, not ${typeof value}.`);
  }
  await storeCall("saving corpus metadata", () =>
    db
      .insertInto("corpus_meta")
      .values({ key, value: json })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: json }))
      .execute(),
  );
}
