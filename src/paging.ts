/**
 * How a tool's answer splits into records for paging (docs/configuration.md, "Answer size"): the
 * contract between a tool's result and src/tools/answer.ts, which cuts an answer to its ceiling
 * and says in `more` which call returns the rest. Here, below every part, so that the parts that
 * build results (e.g. src/pubmed/fetch-pages.ts) can say how theirs page.
 */

type Json = Record<string, unknown>;

/** How a tool's result splits into records (its answer order) for paging. */
export interface Pages<A = Json, R = Json> {
  /** The records, each as its own JSON-able value. */
  items: (result: R) => readonly unknown[];
  /** The result holding only the first `k` records (everything else unchanged). */
  keep: (result: R, k: number) => R;
  /** Arguments of the call that returns the records from `k` on. */
  rest: (args: A, result: R, k: number) => Record<string, unknown>;
}

/** The call's arguments as a client would send them again: defaults kept, undefined dropped. */
export function sameArguments(args: object, change: Record<string, unknown>) {
  return JSON.parse(JSON.stringify({ ...args, ...change })) as Record<string, unknown>;
}
