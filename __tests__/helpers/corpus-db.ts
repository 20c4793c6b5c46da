/**
 * A Kysely handle on the corpus's metadata store for tests: the store is open in the corpus
 * worker (the embedded one admits one opener), so each compiled query is run there through the
 * worker's `query` operation. No transactions: every statement is its own.
 */
import {
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from "kysely";
import { getCorpusHost } from "../../src/worker/process.js";
import type { Database } from "../../src/store/schema.js";

const connection: DatabaseConnection = {
  executeQuery: async <R>(q: CompiledQuery): Promise<QueryResult<R>> =>
    (await getCorpusHost().call("query", [q.sql, q.parameters])) as QueryResult<R>,
  streamQuery: () => {
    throw new Error("streaming is not supported through the corpus worker");
  },
};

const driver: Driver = {
  init: async () => undefined,
  acquireConnection: async () => connection,
  beginTransaction: async () => undefined,
  commitTransaction: async () => undefined,
  rollbackTransaction: async () => undefined,
  releaseConnection: async () => undefined,
  destroy: async () => undefined,
};

/** The metadata store of the current state's corpus, wherever its worker runs. */
export const corpusDb = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => driver,
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** Points in the vector store, as resource://pubmed/corpus counts them. */
export async function corpusVectorCount(): Promise<number> {
  return (await getCorpusHost().call("summary", [])).vectors;
}
