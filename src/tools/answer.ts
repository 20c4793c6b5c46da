/**
 * Answers within a ceiling (docs/configuration.md, "Answer size"): every tool's answer is at most
 * min(the tool's own ceiling, MCP_MAX_ANSWER_BYTES) bytes of JSON text, whatever it was asked.
 * A tool whose result is a list of records pages: it keeps the records that fit, in order, and
 * says in `more` how many it left out and the arguments of the call that returns them. An answer
 * that cannot be cut that way (no list, or its first record alone too large) is a VALIDATION
 * error saying how to ask for less, never an answer past the ceiling.
 */
import { z } from "zod";
import { ValidationError } from "../errors.js";
import { sameArguments, type Pages } from "../paging.js";

export { sameArguments, type Pages };

/** `more` on a paged answer: the records left out and the call that returns them. */
export const moreSchema = z.object({
  omitted: z.int().min(1),
  arguments: z.record(z.string(), z.unknown()),
});

export type More = z.output<typeof moreSchema>;

type Json = Record<string, unknown>;

/** Pages over one array field of the result. */
export function arrayPages(
  field: string,
  rest: (args: Json, omitted: readonly unknown[]) => Json,
): Pages {
  const list = (result: Json) => (result[field] ?? []) as readonly unknown[];
  return {
    items: list,
    keep: (result, k) => ({ ...result, [field]: list(result).slice(0, k) }),
    rest: (args, result, k) => rest(args, list(result).slice(k)),
  };
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

export interface Fitted {
  /** The result to send: the whole one, or the first records with `more`. */
  value: Record<string, unknown>;
  /** Its JSON text, already serialised for the answer. */
  text: string;
}

/**
 * The result cut to `ceiling` bytes of JSON text (`extraBytes` of other content blocks counted
 * too), or a ValidationError naming the ceiling and `narrower` (how to ask for less).
 */
export function fitAnswer(
  tool: { name: string; pages?: Pages; narrower?: string },
  args: Record<string, unknown>,
  result: Record<string, unknown>,
  ceiling: number,
  extraBytes = 0,
): Fitted {
  const text = JSON.stringify(result);
  const size = bytes(text) + extraBytes;
  if (size <= ceiling) return { value: result, text };
  const fitted = tool.pages && page(tool.pages, args, result, ceiling - extraBytes);
  if (fitted) return fitted;
  throw new ValidationError(
    `The answer would be ${size} bytes, over ${tool.name}'s ceiling of ${ceiling} bytes ` +
      `(MCP_MAX_ANSWER_BYTES or the tool's own). ${tool.narrower ?? "Ask for less in one call."}`,
  );
}

/** The first records that fit with `more`, or undefined when not even one does. */
function page(
  pages: Pages,
  args: Record<string, unknown>,
  result: Record<string, unknown>,
  room: number,
): Fitted | undefined {
  const items = pages.items(result);
  // Each record's size once, then the most records whose sizes (and commas) fit beside the rest
  // of the answer; the final text is measured, and a record dropped while it is still over
  // (`more`'s arguments grow as records move into it).
  const sizes = items.map((item) => bytes(JSON.stringify(item)) + 1);
  const build = (k: number) => {
    const value = {
      ...pages.keep(result, k),
      more: { omitted: items.length - k, arguments: pages.rest(args, result, k) } as More,
    };
    return { value, text: JSON.stringify(value) };
  };
  const base = bytes(build(0).text);
  let k = 0;
  for (let used = base; k < items.length - 1 && used + sizes[k]! <= room; k++) used += sizes[k]!;
  for (; k > 0; k--) {
    const fitted = build(k);
    if (bytes(fitted.text) <= room) return fitted;
  }
  return undefined;
}
