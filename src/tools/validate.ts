/**
 * Argument validation for every tool: the zod parameters decide, and every problem comes back as
 * one VALIDATION error whose message names each bad path, so the model can correct the call.
 * A parameter's name in another case or separator style (`max_results`, `topK`) is taken as the
 * parameter; a name the tool does not have is refused with the names it has, as the advertised
 * schema (`additionalProperties: false`) says, rather than ignored while the call runs on defaults.
 */
import { z } from "zod";
import { ValidationError } from "../errors.js";

/** Empty strings in optional arguments count as absent (CONTRACTS §4); nested objects too. */
export function dropEmptyStrings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropEmptyStrings);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== "")
        .map(([k, v]) => [k, dropEmptyStrings(v)]),
    );
  }
  return value;
}

type Path = readonly PropertyKey[];

function pathText(path: Path): string {
  return path.reduce<string>(
    (acc, p) => (typeof p === "number" ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)),
    "",
  );
}

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

/** C0 controls but tab, line feed and carriage return, and DEL: never meaningful in an argument. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * Paths of string arguments holding a control character, with the first one found. A NUL would
 * otherwise reach Postgres (which refuses it in text) and come back as a STORE error.
 */
function controlCharacters(value: unknown, path: PropertyKey[] = []): string[] {
  if (typeof value === "string") {
    const hit = CONTROL.exec(value)?.[0];
    if (hit === undefined) return [];
    const code = hit.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    return [`${pathText(path) || "argument"} contains the control character U+${code}; remove it`];
  }
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) =>
      controlCharacters(v, [...path, Array.isArray(value) ? Number(k) : k]),
    );
  }
  return [];
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

/**
 * The arguments with each object's keys matched to its schema's: a key that names a parameter in
 * another case or separator style is renamed to it (unless that parameter is given as well); the
 * keys that name none are returned, with the names the object takes. Objects that take any key
 * (a catchall) are left as they are.
 */
function reconcileKeys(
  schema: z.ZodType,
  value: unknown,
  path: PropertyKey[] = [],
): { value: unknown; unknown: UnknownKey[] } {
  const s = unwrap(schema);
  const def = defOf(s);
  if (def.type === "array" && def.element && Array.isArray(value)) {
    const unknown: UnknownKey[] = [];
    const items = value.map((item, i) => {
      const r = reconcileKeys(def.element!, item, [...path, i]);
      unknown.push(...r.unknown);
      return r.value;
    });
    return { value: items, unknown };
  }
  const shape = def.shape;
  if (def.type !== "object" || !shape || !isObject(value)) return { value, unknown: [] };
  if (def.catchall && defOf(def.catchall).type !== "never") return { value, unknown: [] };
  const known = Object.keys(shape);
  const unknown: UnknownKey[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const { name, twin } = resolveName(known, key, value);
    if (name === undefined) {
      unknown.push({ path: [...path, key], known, twin });
      continue;
    }
    const r = reconcileKeys(shape[name]!, v, [...path, name]);
    unknown.push(...r.unknown);
    out[name] = r.value;
  }
  return { value: out, unknown };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function unknownKeyMessage({ path, known, twin }: UnknownKey): string {
  if (twin) return twinMessage(twin);
  const where = path.length > 1 ? `${pathText(path.slice(0, -1))} takes` : "this tool takes";
  return `is not a parameter (${where} ${known.join(", ")})`;
}

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
  const controls = controlCharacters(args);
  if (controls.length > 0) {
    throw new ValidationError(`Invalid arguments for ${tool.name}: ${controls.join("; ")}.`, {
      issues: controls.map((message) => ({ message })),
    });
  }
  const reconciled = reconcileKeys(tool.parameters, args);
  const parsed = tool.parameters.safeParse(dropEmptyStrings(reconciled.value));
  const problems = [
    ...reconciled.unknown.map((u) => ({ path: u.path, message: unknownKeyMessage(u) })),
    ...(parsed.success
      ? []
      : parsed.error.issues.map((i) => ({
          path: i.path,
          message: issueMessage(i, reconciled.value),
        }))),
  ];
  if (!parsed.success || problems.length > 0) {
    // "pmids[2] must be digits" style, one clause per problem.
    const text = problems
      .map(({ path, message }) => (path.length > 0 ? `${pathText(path)} ${message}` : message))
      .join("; ");
    throw new ValidationError(
      `Invalid arguments for ${tool.name}: ${text}. See the tool's input schema.`,
      { issues: problems.map(({ path, message }) => ({ path: path.map(String), message })) },
    );
  }
  return parsed.data;
}
