/**
 * Argument validation for every tool: the zod parameters decide, and every problem comes back as
 * one VALIDATION error whose message names each bad path, so the model can correct the call.
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

/** "pmids[2] must be digits" style, one clause per problem. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], raw?: unknown): string {
  return issues
    .map((i) => {
      const path = pathText(i.path);
      const message = issueMessage(i, raw);
      return path ? `${path} ${message}` : message;
    })
    .join("; ");
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
  const parsed = tool.parameters.safeParse(dropEmptyStrings(args));
  if (!parsed.success) {
    const issues = parsed.error.issues;
    throw new ValidationError(
      `Invalid arguments for ${tool.name}: ${describeIssues(issues, args)}. See the tool's input schema.`,
      {
        issues: issues.map((i) => ({
          path: i.path.map(String),
          message: issueMessage(i, args),
        })),
      },
    );
  }
  return parsed.data;
}
