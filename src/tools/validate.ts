/**
 * Argument validation for every tool: the zod parameters decide, and every problem comes back as
 * one VALIDATION error whose message names each bad path, so the model can correct the call.
 * A parameter's name in another case or separator style (`max_results`, `topK`) is taken as the
 * parameter; a name the tool does not have is refused with the names it has, as the advertised
 * schema (`additionalProperties: false`) says, rather than ignored while the call runs on defaults.
 *
 * Every walk over the arguments here is iterative (an explicit stack), and the first one
 * (./arg-limits.ts) bounds their depth and size; messages quote at most an excerpt of any key and
 * list the first few problems, then how many more (issue 45, findings 2 and 3).
 */
import { z } from "zod";
import { ValidationError } from "../errors.js";
import { LISTED_PROBLEMS, excerpt, listSome } from "../excerpt.js";
import { checkArgumentLimits, pathText } from "./arg-limits.js";

/** A copy of an object or array being made: the original and the copy its entries go into. */
interface Copying {
  from: object;
  to: Record<string, unknown> | unknown[];
}

/** `to[key] = value`, as a data property even for the key "__proto__" (no prototype change). */
function put(to: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(to, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Empty strings in optional arguments count as absent (CONTRACTS §4); nested objects too. */
function dropEmptyStrings(value: unknown): unknown {
  const pending: Copying[] = [];
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== "object") return v;
    const to = Array.isArray(v) ? new Array<unknown>(v.length) : {};
    pending.push({ from: v, to });
    return to;
  };
  const out = copy(value);
  for (let job = pending.pop(); job; job = pending.pop()) {
    const { from, to } = job;
    if (Array.isArray(from)) from.forEach((v, i) => ((to as unknown[])[i] = copy(v)));
    else {
      for (const [k, v] of Object.entries(from)) {
        if (v !== "") put(to as Record<string, unknown>, k, copy(v));
      }
    }
  }
  return out;
}

type Path = readonly PropertyKey[];

const MISSING = Symbol("missing");

/** The caller's own value at `path`, before empty strings were dropped; MISSING when absent. */
function rawAt(raw: unknown, path: Path): unknown {
  let at: unknown = raw;
  for (const key of path) {
    if (!at || typeof at !== "object" || !Object.hasOwn(at, key)) return MISSING;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/**
 * zod's message, except where the caller's value says more: a required field given as "" (which
 * dropEmptyStrings turned into an absent one) "must not be empty", an absent one "is required".
 */
function issueMessage(issue: z.core.$ZodIssue, raw: unknown): string {
  if (issue.code !== "invalid_type") return issue.message;
  const given = rawAt(raw, issue.path);
  if (typeof given === "string" && given.trim() === "") return "must not be empty";
  if (given === MISSING) return "is required";
  return issue.message;
}

/** What key reconciliation needs of a zod schema's definition (zod 4's `_zod.def`). */
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under optional, default, preprocess… wrappers: an object, an array or a leaf. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = defOf(s);
    let next = def.innerType;
    // z.preprocess(fn, schema) is a pipe from a transform into the schema.
    if (def.type === "pipe") next = defOf(def.in!).type === "transform" ? def.out : def.in;
    if (!next) return s;
    s = next;
  }
}

/** `max_results`, `maxResults`, `Max-Results` → "maxresults". */
const looseName = (key: string) => key.toLowerCase().replace(/[\s_-]/g, "");

/**
 * The name among `names` that `key` means, exactly or in another case or separator style; none
 * when it means none, or only `twin` when that name is in `given` under its own spelling as well.
 * Tool parameters (here) and prompt arguments (protocol/calls.ts) are matched by it.
 */
export function resolveName(
  names: readonly string[],
  key: string,
  given: object,
): { name?: string; twin?: string } {
  if (names.includes(key)) return { name: key };
  const name = names.find((n) => looseName(n) === looseName(key));
  if (name === undefined) return {};
  return Object.hasOwn(given, name) ? { twin: name } : { name };
}

/** The clause for a key `resolveName` did not take. */
export function twinMessage(twin: string): string {
  return `names ${twin}, which is given as well; keep one of the two`;
}

interface UnknownKey {
  path: PropertyKey[];
  known: string[];
  /** The parameter this key names in another style, given under its own name as well. */
  twin?: string;
}

/** A place in the arguments: its parent's place and its key there (a path, built only on demand). */
interface Place {
  parent: Place | null;
  key: PropertyKey;
}

function pathOf(place: Place | null): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let p = place; p; p = p.parent) path.push(p.key);
  return path.reverse();
}

/** A value to reconcile with its schema, and where its result goes; or a key that names nothing. */
type Task =
  | { schema: z.ZodType; value: unknown; place: Place | null; set: (v: unknown) => void }
  | { unknown: UnknownKey };

/**
 * The arguments with each object's keys matched to its schema's: a key that names a parameter in
 * another case or separator style is renamed to it (unless that parameter is given as well); the
 * keys that name none are returned, with the names the object takes, in the order they are given.
 * Objects that take any key (a catchall) are left as they are.
 */
function reconcileKeys(
  schema: z.ZodType,
  value: unknown,
): { value: unknown; unknown: UnknownKey[] } {
  const unknown: UnknownKey[] = [];
  let result: unknown;
  // Children are pushed in reverse, so they are taken in order: each object's keys are set in
  // the order given, and unknown keys are listed in that order too.
  const tasks: Task[] = [{ schema, value, place: null, set: (v) => (result = v) }];
  for (let task = tasks.pop(); task; task = tasks.pop()) {
    if ("unknown" in task) {
      unknown.push(task.unknown);
      continue;
    }
    const { value: v, place } = task;
    const def = defOf(unwrap(task.schema));
    if (def.type === "array" && def.element && Array.isArray(v)) {
      const items = new Array<unknown>(v.length);
      task.set(items);
      const element = def.element;
      for (let i = v.length - 1; i >= 0; i--) {
        tasks.push({
          schema: element,
          value: v[i],
          place: { parent: place, key: i },
          set: (x) => (items[i] = x),
        });
      }
      continue;
    }
    const shape = def.shape;
    const open = def.catchall && defOf(def.catchall).type !== "never";
    if (def.type !== "object" || !shape || !isObject(v) || open) {
      task.set(v);
      continue;
    }
    const known = Object.keys(shape);
    const out: Record<string, unknown> = {};
    task.set(out);
    const children: Task[] = [];
    for (const [key, x] of Object.entries(v)) {
      const { name, twin } = resolveName(known, key, v);
      if (name === undefined) {
        children.push({ unknown: { path: [...pathOf(place), key], known, twin } });
      } else {
        const field = { parent: place, key: name };
        children.push({
          schema: shape[name]!,
          value: x,
          place: field,
          set: (y) => (out[name] = y),
        });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) tasks.push(children[i]!);
  }
  return { value: result, unknown };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function unknownKeyMessage({ path, known, twin }: UnknownKey): string {
  if (twin) return twinMessage(twin);
  const where = path.length > 1 ? `${pathText(path.slice(0, -1))} takes` : "this tool takes";
  return `is not a parameter (${where} ${known.join(", ")})`;
}

/** The most of one problem's path, or of its message, that a VALIDATION message holds. */
const MESSAGE_CHARS = 200;

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/**
 * Parses a call's arguments. Absent arguments are an empty object; anything else that is not an
 * object (null, an array, a string…) is a VALIDATION error, not a crash in the framework.
 */
export function validateArgs<S extends z.ZodObject>(
  tool: { name: string; parameters: S },
  raw: unknown,
): z.output<S> {
  const args = raw === undefined ? {} : raw;
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    throw new ValidationError(
      `Invalid arguments for ${tool.name}: arguments must be a JSON object of named parameters, got ${kindOf(args)}. See the tool's input schema.`,
      { issues: [{ path: [], message: "arguments must be a JSON object" }] },
    );
  }
  checkArgumentLimits(tool.name, args);
  const reconciled = reconcileKeys(tool.parameters, args);
  const parsed = tool.parameters.safeParse(dropEmptyStrings(reconciled.value));
  if (parsed.success && reconciled.unknown.length === 0) return parsed.data;
  const issues = parsed.success ? [] : parsed.error.issues;
  const total = reconciled.unknown.length + issues.length;
  // Only the first few problems are put in words ("pmids[2] must be digits"), then how many more.
  const problems = [
    ...reconciled.unknown
      .slice(0, LISTED_PROBLEMS)
      .map((u) => ({ path: u.path, message: unknownKeyMessage(u) })),
    ...issues.slice(0, LISTED_PROBLEMS).map((i) => ({
      path: i.path,
      message: issueMessage(i, reconciled.value),
    })),
  ]
    .slice(0, LISTED_PROBLEMS)
    .map(({ path, message }) => ({
      path: path.map((p) => (typeof p === "number" ? String(p) : excerpt(String(p)))),
      // zod's and our messages are short; the cut only bounds what no message should need.
      message: excerpt(message, MESSAGE_CHARS),
      where: excerpt(pathText(path), MESSAGE_CHARS),
    }));
  const clauses = problems.map(({ where, message }) => (where ? `${where} ${message}` : message));
  throw new ValidationError(
    `Invalid arguments for ${tool.name}: ${listSome(clauses, "; ", total)}. See the tool's input schema.`,
    {
      issues: problems.map(({ path, message }) => ({ path, message })),
      ...(total > problems.length && { issueCount: total }),
    },
  );
}
