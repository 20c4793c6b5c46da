/**
 * PGlite runs a statement synchronously inside the calling thread, and its promise settles as a
 * microtask: a chain of statements (a sync batch's writes, dozens of them) never lets the thread
 * reach its macrotask queue. In the corpus worker that queue holds the MCP thread's messages —
 * rag_search calls, cancels, NCBI replies — which then waited for the whole batch (a second or
 * so). Yielding once per statement (a setImmediate, microseconds) lets them in between
 * statements. Store.read's named statements go past Kysely, so they call afterStatement too.
 * Guarded by __tests__/store/yield-plugin.test.ts.
 */
import { setImmediate as macrotask } from "node:timers/promises";
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from "kysely";

/** What every PGlite statement does once it has settled: lets the thread's macrotasks in. */
export const afterStatement = (): Promise<void> => macrotask();

export class YieldAfterStatement implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    await afterStatement();
    return args.result;
  }
}
