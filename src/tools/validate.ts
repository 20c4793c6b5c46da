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

/** Empty strings in optional arguments count as absent (docs/reference.md#conventions); nested objects too. */
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
    if (Array.isArray(from)) {
      for (let i = 0; i < from.length; i++) (to as unknown[])[i] = copy(from[i]);
    } else {
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
 * `looseName(key)`, or undefined when that has more than `longest` characters, which is seen
 * without building it: each ASCII character but a separator stays one character of it (lower
 * case maps no character to none, and ASCII ones without regard to their neighbours). So each of
 * 20,000 unknown keys costs a look at its first few characters.
 */
function looseWithin(key: string, longest: number): string | undefined {
  let kept = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 0x80) break;
    const separator = c === 0x20 || c === 0x2d || c === 0x5f || (c >= 0x09 && c <= 0x0d);
    if (!separator && ++kept > longest) return undefined;
  }
  return looseName(key);
}

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

/**
 * What reconciliation does at a schema, worked out once per schema: match an object's keys to
 * its parameters (`byLoose`: each name's loose form, the first name having it), reconcile an
 * array's items, or nothing (a leaf, an object taking any key). `plain`: nothing below changes a
 * value either (an array of strings), so the caller's value is used as it is, never walked.
 */
interface ObjectNode {
  type: "object";
  shape: Record<string, z.ZodType>;
  known: string[];
  byLoose: Map<string, string>;
  /** The length of the longest loose name. */
  longest: number;
}
type Node = { type: "leaf" } | { type: "array"; element: Node; plain: boolean } | ObjectNode;

const LEAF: Node = { type: "leaf" };
const nodes = new WeakMap<z.ZodType, Node>();

function nodeOf(schema: z.ZodType): Node {
  const cached = nodes.get(schema);
  if (cached) return cached;
  const def = defOf(unwrap(schema));
  const open = def.catchall && defOf(def.catchall).type !== "never";
  let node = LEAF;
  if (def.type === "array" && def.element) {
    const element = nodeOf(def.element);
    const plain = element.type === "leaf" || (element.type === "array" && element.plain);
    node = { type: "array", element, plain };
  } else if (def.type === "object" && def.shape && !open) {
    const known = Object.keys(def.shape);
    const byLoose = new Map<string, string>();
    for (const name of known) if (!byLoose.has(looseName(name))) byLoose.set(looseName(name), name);
    const longest = Math.max(0, ...[...byLoose.keys()].map((loose) => loose.length));
    node = { type: "object", shape: def.shape, known, byLoose, longest };
  }
  nodes.set(schema, node);
  return node;
}

/** Whether reconciling `value` against `node` can change it: else it is taken as it is. */
function descends(node: Node, value: unknown): boolean {
  if (node.type === "array") return !node.plain && Array.isArray(value);
  return node.type === "object" && isObject(value);
}

/** A value to reconcile with its node; its result goes to `into[key]`, and `key` is its place. */
interface Visit {
  node: Node;
  value: unknown;
  parent: Visit | null;
  key: PropertyKey;
  into: unknown[] | Record<PropertyKey, unknown>;
}

/** A key of `parent`'s object that names no parameter, taken in its turn. */
interface Stray {
  parent: Visit;
  key: string;
  known: string[];
  twin: string | undefined;
}

/** A place's path from the arguments (the root visit has none). */
function pathOf(visit: Visit): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let v: Visit = visit; v.parent; v = v.parent) path.push(v.key);
  return path.reverse();
}

const settle = (visit: Visit, value: unknown) => {
  (visit.into as Record<PropertyKey, unknown>)[visit.key] = value;
};

/**
 * The arguments with each object's keys matched to its schema's: a key that names a parameter in
 * another case or separator style is renamed to it (unless that parameter is given as well); the
 * keys that name none are counted, and the first few kept with the names their object takes, in
 * the order they are given (depth first). Objects that take any key (a catchall) are left as
 * they are, and so is every value with no object schema below it: a list of 100,000 PMIDs is
 * used as given, not walked (__tests__/tools/validate-walks.test.ts counts the reads).
 */
class Reconciliation {
  readonly unknown: UnknownKey[] = [];
  unknownCount = 0;
  /** Children are pushed in reverse, so they are taken in order, and so are unknown keys. */
  readonly #tasks: (Visit | Stray)[] = [];

  /** `keys`: the keys of large objects, already listed (./arg-limits.ts). */
  constructor(private readonly keys: ReadonlyMap<object, string[]>) {}

  run(schema: z.ZodType, value: unknown): unknown {
    const root: Record<string, unknown> = {};
    this.#tasks.push({ node: nodeOf(schema), value, parent: null, key: "value", into: root });
    for (let task = this.#tasks.pop(); task; task = this.#tasks.pop()) {
      if (!("node" in task)) this.#stray(task.parent, task.key, task.known, task.twin);
      else if (!descends(task.node, task.value)) settle(task, task.value);
      else if (task.node.type === "array") this.#array(task, task.node.element);
      else if (task.node.type === "object") this.#object(task, task.node);
    }
    return root.value;
  }

  #stray(parent: Visit, key: string, known: string[], twin: string | undefined): void {
    this.unknownCount++;
    if (this.unknown.length < LISTED_PROBLEMS) {
      this.unknown.push({ path: [...pathOf(parent), key], known, twin });
    }
  }

  #array(task: Visit, element: Node): void {
    const from = task.value as unknown[];
    const items = new Array<unknown>(from.length);
    settle(task, items);
    for (let i = from.length - 1; i >= 0; i--) {
      const x = from[i];
      if (descends(element, x)) {
        this.#tasks.push({ node: element, value: x, parent: task, key: i, into: items });
      } else items[i] = x;
    }
  }

  /**
   * Keys are settled at once until one needs a walk of its own; from there on each waits its
   * turn, so a parameter given twice in other styles still ends as the last one given.
   */
  #object(task: Visit, { shape, known, byLoose, longest }: ObjectNode): void {
    const from = task.value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    settle(task, out);
    const waiting: (Visit | Stray)[] = [];
    for (const key of this.keys.get(from) ?? Object.keys(from)) {
      let name: string | undefined = key;
      if (!Object.hasOwn(shape, key)) {
        const loose = looseWithin(key, longest);
        name = loose === undefined ? undefined : byLoose.get(loose);
      }
      let twin: string | undefined;
      if (name !== undefined && name !== key && Object.hasOwn(from, name)) {
        twin = name;
        name = undefined;
      }
      if (name === undefined) {
        if (waiting.length > 0) waiting.push({ parent: task, key, known, twin });
        else this.#stray(task, key, known, twin);
        continue;
      }
      const node = nodeOf(shape[name]!);
      const value = from[key];
      if (waiting.length === 0 && !descends(node, value)) out[name] = value;
      else waiting.push({ node, value, parent: task, key: name, into: out });
    }
    for (let i = waiting.length - 1; i >= 0; i--) this.#tasks.push(waiting[i]!);
  }
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
  const { emptyStrings, keys } = checkArgumentLimits(tool.name, args);
  const reconciled = new Reconciliation(keys);
  const value = reconciled.run(tool.parameters, args);
  // Without an empty string in any object there is nothing to drop, and no copy to make.
  const input = emptyStrings ? dropEmptyStrings(value) : value;
  const parsed = tool.parameters.safeParse(input);
  if (parsed.success && reconciled.unknownCount === 0) return parsed.data;
  const issues = parsed.success ? [] : parsed.error.issues;
  const total = reconciled.unknownCount + issues.length;
  // Only the first few problems are put in words ("pmids[2] must be digits"), then how many more.
  const problems = [
    ...reconciled.unknown.map((u) => ({ path: u.path, message: unknownKeyMessage(u) })),
    ...issues.slice(0, LISTED_PROBLEMS).map((i) => ({
      path: i.path,
      message: issueMessage(i, value),
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
