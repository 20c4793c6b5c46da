/**
 * The limits every tool call's arguments meet before its schema reads them: nesting depth, size,
 * and no control characters. One walk checks all three, iteratively (a stack of cursors, one per
 * open object or array), so no input can exhaust the call stack: arguments nested thousands of
 * levels deep used to overflow it in a recursive walk and come back UNKNOWN (issue 45, finding 2;
 * __tests__/tools/limits.test.ts guards it).
 */
import { ValidationError } from "../errors.js";
import { LISTED_PROBLEMS, excerpt, listSome } from "../excerpt.js";

/**
 * Objects and arrays nested deeper than this (the arguments object is level 1) are refused. No
 * tool's parameters nest past 3 levels (pubmed_match_citations: arguments, citations, a citation).
 */
export const MAX_ARGUMENT_DEPTH = 32;

/**
 * The arguments of one call as compact JSON, in UTF-8 bytes (escapes counted as the characters
 * they stand for). The largest legitimate call is pubmed_verify_references': at most 100
 * references once lists are split, each read up to 3,000 characters, about 0.3 MB with the
 * longest BibTeX entries around them; every other tool's parameters are a few kilobytes at most.
 */
export const MAX_ARGUMENT_BYTES = 1024 * 1024;

/** C0 controls but tab, line feed and carriage return, and DEL: never meaningful in an argument. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** "pmids[2]", "dateRange.minDate": a value's place in the arguments, each key cut to an excerpt. */
export function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, p) => {
    if (typeof p === "number") return `${acc}[${p}]`;
    const key = excerpt(String(p));
    return acc ? `${acc}.${key}` : key;
  }, "");
}

/** An open object or array of the walk: its keys (none for an array) and how far it has read. */
interface Cursor {
  value: Record<string, unknown> | unknown[];
  keys: string[] | null;
  length: number;
  next: number;
}

/** JSON's size of a scalar: quotes around strings; numbers, booleans and null as written. */
function scalarBytes(value: unknown): number {
  if (typeof value === "string") return Buffer.byteLength(value, "utf8") + 2;
  if (typeof value === "number" || typeof value === "boolean") return String(value).length;
  return value === null ? 4 : 0;
}

function tooLarge(tool: string): ValidationError {
  return new ValidationError(
    `Invalid arguments for ${tool}: the arguments are larger than ${MAX_ARGUMENT_BYTES.toLocaleString("en-US")} bytes as JSON (1 MiB, the limit for one call); send less in each call.`,
    { limit: "MAX_ARGUMENT_BYTES", maxBytes: MAX_ARGUMENT_BYTES },
  );
}

function tooDeep(tool: string): ValidationError {
  return new ValidationError(
    `Invalid arguments for ${tool}: objects and arrays are nested more than ${MAX_ARGUMENT_DEPTH} levels deep (the limit for one call); no parameter nests more than a few. See the tool's input schema.`,
    { limit: "MAX_ARGUMENT_DEPTH", maxDepth: MAX_ARGUMENT_DEPTH },
  );
}

/** Objects with more keys than this have them kept for the steps after the walk. */
const MANY_KEYS = 256;

/** What the walk saw on the way, for the steps after it. */
export interface ArgumentFacts {
  /** Some object holds "" as a value, which ./validate.ts drops as absent. */
  emptyStrings: boolean;
  /**
   * The keys of each object with more than MANY_KEYS, as Object.keys gave them: for an object of
   * 20,000 keys that takes a few ms (V8 sorts them in the order given), not to be spent twice.
   */
  keys: Map<object, string[]>;
}

/**
 * Refuses arguments nested deeper than MAX_ARGUMENT_DEPTH or larger than MAX_ARGUMENT_BYTES, and
 * strings holding a control character (a NUL would otherwise reach Postgres, which refuses it in
 * text, and come back as a STORE error), naming the first few of those.
 */
export function checkArgumentLimits(tool: string, args: object): ArgumentFacts {
  const open: Cursor[] = [];
  const controls: string[] = [];
  let controlCount = 0;
  let bytes = 0;
  let emptyStrings = false;
  const manyKeys = new Map<object, string[]>();
  const enter = (value: object) => {
    if (open.length >= MAX_ARGUMENT_DEPTH) throw tooDeep(tool);
    const list = Array.isArray(value) ? (value as unknown[]) : null;
    const keys = list ? null : Object.keys(value);
    const length = list ? list.length : keys!.length;
    if (keys && length > MANY_KEYS) manyKeys.set(value, keys);
    // Brackets and commas, and for an object each key with its quotes and colon.
    bytes += 1 + Math.max(length, 1);
    for (const key of keys ?? []) bytes += Buffer.byteLength(key, "utf8") + 3;
    open.push({ value: value as Cursor["value"], keys, length, next: 0 });
  };
  const keyOf = (c: Cursor, i: number): PropertyKey => (c.keys ? c.keys[i]! : i);
  enter(args);
  for (let top = open.at(-1); top; top = open.at(-1)) {
    if (bytes > MAX_ARGUMENT_BYTES) throw tooLarge(tool);
    if (top.next === top.length) {
      open.pop();
      continue;
    }
    const at = top.next++;
    const value = top.keys
      ? (top.value as Record<string, unknown>)[top.keys[at]!]
      : (top.value as unknown[])[at];
    if (value !== null && typeof value === "object") {
      enter(value);
      continue;
    }
    bytes += scalarBytes(value);
    if (value === "" && top.keys) emptyStrings = true;
    const hit = typeof value === "string" ? CONTROL.exec(value)?.[0] : undefined;
    if (hit === undefined) continue;
    controlCount++;
    if (controls.length < LISTED_PROBLEMS) {
      const path = pathText(open.map((c) => keyOf(c, c.next - 1)));
      const code = hit.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      controls.push(`${path} contains the control character U+${code}; remove it`);
    }
  }
  if (bytes > MAX_ARGUMENT_BYTES) throw tooLarge(tool);
  if (controlCount > 0) {
    throw new ValidationError(
      `Invalid arguments for ${tool}: ${listSome(controls, "; ", controlCount)}.`,
      {
        issues: controls.map((message) => ({ message })),
        ...(controlCount > controls.length && { issueCount: controlCount }),
      },
    );
  }
  return { emptyStrings, keys: manyKeys };
}
