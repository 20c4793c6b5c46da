/**
 * What docs/reference.md reads from the sources rather than from live objects: the environment
 * variables of src/config.ts (its zod schema is module-private, so the `envSchema` object literal
 * is read with the TypeScript parser: each variable's base type, limits and `.default(...)`) and
 * the codes of src/errors.ts's `ErrorCode` union with the error classes that carry each.
 * Nothing here imports src/config.ts's behaviour or changes it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { REPO_ROOT } from "./metadata.js";

export interface ConfigVariable {
  name: string;
  /** "integer 1–100", "URL", "one of `stdio`, `http`", … */
  type: string;
  /** The schema's own default, as text (undefined: none in the schema). */
  default: string | undefined;
}

const parse = (file: string) =>
  ts.createSourceFile(
    file,
    readFileSync(join(REPO_ROOT, file), "utf8"),
    ts.ScriptTarget.ES2022,
    true,
  );

class SourceShapeError extends Error {
  constructor(file: string, node: ts.Node | undefined, what: string) {
    const where = node
      ? `:${node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1}`
      : "";
    super(
      `${file}${where}: ${what} (scripts/reference-sources.ts reads it; update one of the two)`,
    );
  }
}

function findVariable(source: ts.SourceFile, name: string): ts.VariableDeclaration | undefined {
  let found: ts.VariableDeclaration | undefined;
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === name) {
      found = node;
    }
    if (!found) ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** One step of a call chain `a.b(x).c(y)`: the method name and its arguments. */
interface Step {
  name: string;
  args: readonly ts.Expression[];
}

/** `z.string().min(1).default("x")` → base `z.string()` and the steps after it, innermost first. */
function unchain(expr: ts.Expression): { base: ts.Expression; steps: Step[] } {
  const steps: Step[] = [];
  let node = expr;
  while (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    // `z.string()` is a base, not a step on `z`
    !(ts.isIdentifier(node.expression.expression) && node.expression.expression.text === "z")
  ) {
    steps.unshift({ name: node.expression.name.text, args: node.arguments });
    node = node.expression.expression;
  }
  return { base: node, steps };
}

const numberText = (n: number) => n.toLocaleString("en-US");

/**
 * A literal's value: numbers (separators, `*` products), strings, booleans, or a constant the
 * module exports (`DEFAULT_MAX_ANSWER_BYTES`).
 */
function literal(expr: ts.Expression, exported: Record<string, unknown>): unknown {
  if (ts.isNumericLiteral(expr)) return Number(expr.text.replace(/_/g, ""));
  if (ts.isStringLiteralLike(expr)) return expr.text;
  if (expr.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (expr.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (ts.isParenthesizedExpression(expr)) return literal(expr.expression, exported);
  if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.AsteriskToken) {
    const [a, b] = [literal(expr.left, exported), literal(expr.right, exported)];
    if (typeof a === "number" && typeof b === "number") return a * b;
  }
  if (ts.isIdentifier(expr) && expr.text in exported) return exported[expr.text];
  return undefined;
}

function describeBase(
  base: ts.Expression,
  exported: Record<string, unknown>,
  toolsets: readonly string[],
): string | undefined {
  if (ts.isIdentifier(base)) {
    if (base.text === "url") return "http(s) URL";
    if (base.text === "bool") return "boolean (`true`/`false`, `1`/`0`, `yes`/`no`)";
    if (base.text === "toolsetList") {
      return `comma list of ${toolsets.map((t) => `\`${t}\``).join(", ")}`;
    }
    return undefined;
  }
  if (!ts.isCallExpression(base)) return undefined;
  const callee = base.expression;
  if (ts.isIdentifier(callee) && callee.text === "int") {
    const [min, max] = base.arguments.map((a) => literal(a, exported));
    if (typeof min === "number" && typeof max === "number") {
      return `integer ${numberText(min)}–${numberText(max)}`;
    }
    return undefined;
  }
  if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) {
    if (callee.expression.text !== "z") return undefined;
    const method = callee.name.text;
    if (method === "string") return "string";
    if (method === "email") return "e-mail address";
    if (method === "url") return "URL";
    if (method === "enum") {
      const [values] = base.arguments;
      if (values && ts.isArrayLiteralExpression(values)) {
        const names = values.elements.map((e) => literal(e, exported));
        if (names.every((n) => typeof n === "string")) {
          return `one of ${names.map((n) => `\`${n}\``).join(", ")}`;
        }
      }
    }
  }
  return undefined;
}

function formatDefault(value: unknown): string {
  if (typeof value === "number") return `\`${value}\``;
  return `\`${String(value)}\``;
}

/** The variables of src/config.ts's `envSchema`, in the schema's order. */
export function configVariables(
  exported: Record<string, unknown>,
  toolsets: readonly string[],
): ConfigVariable[] {
  const file = "src/config.ts";
  const source = parse(file);
  const decl = findVariable(source, "envSchema");
  const init = decl?.initializer;
  const object =
    init &&
    ts.isCallExpression(init) &&
    init.arguments[0] &&
    ts.isObjectLiteralExpression(init.arguments[0])
      ? init.arguments[0]
      : undefined;
  if (!object) throw new SourceShapeError(file, decl, "no `const envSchema = z.object({...})`");
  return object.properties.map((prop) => {
    if (!ts.isPropertyAssignment(prop) || !ts.isIdentifier(prop.name)) {
      throw new SourceShapeError(file, prop, "an envSchema entry that is not `NAME: schema`");
    }
    const name = prop.name.text;
    const { base, steps } = unchain(prop.initializer);
    let type = describeBase(base, exported, toolsets);
    if (!type) throw new SourceShapeError(file, prop, `cannot read the type of ${name}`);
    let fallback: string | undefined;
    for (const step of steps) {
      const arg = step.args[0] && literal(step.args[0], exported);
      if (step.name === "default") {
        if (arg === undefined) {
          throw new SourceShapeError(file, prop, `cannot read the default of ${name}`);
        }
        fallback = formatDefault(arg);
      } else if (
        step.name === "regex" &&
        step.args[0] &&
        ts.isRegularExpressionLiteral(step.args[0])
      ) {
        type += ` matching \`${step.args[0].text}\``;
      } else if (step.name === "min" && type === "string" && typeof arg === "number" && arg > 1) {
        type += ` of at least ${arg} characters`;
      }
      // optional(), min(1) on strings (empty counts as unset anyway), refine(): nothing to add.
    }
    return { name, type, default: fallback };
  });
}

export interface ErrorCodeInfo {
  code: string;
  /** The exported classes of src/errors.ts whose `code` is this one. */
  classes: string[];
}

/** The codes of `ErrorCode`, in the union's order, each with the classes that carry it. */
export function errorCodes(errors: Record<string, unknown>): ErrorCodeInfo[] {
  const file = "src/errors.ts";
  const source = parse(file);
  let union: ts.TypeNode | undefined;
  ts.forEachChild(source, (node) => {
    if (ts.isTypeAliasDeclaration(node) && node.name.text === "ErrorCode") union = node.type;
  });
  if (!union || !ts.isUnionTypeNode(union)) {
    throw new SourceShapeError(file, union, 'no `type ErrorCode = "A" | "B" | …`');
  }
  const codes = union.types.map((t) => {
    if (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal)) return t.literal.text;
    throw new SourceShapeError(file, t, "an ErrorCode member that is not a string literal");
  });
  const AppError = errors.AppError as abstract new (message: string) => Error & { code: string };
  const classes = new Map<string, string[]>(codes.map((c) => [c, []]));
  for (const [name, value] of Object.entries(errors)) {
    if (typeof value !== "function" || !(value.prototype instanceof AppError)) continue;
    let code: string;
    try {
      code = new (value as new (message: string) => { code: string })("").code;
    } catch {
      continue; // a class whose constructor needs more than a message: named by its JSDoc only
    }
    classes.get(code)?.push(name);
  }
  return codes.map((code) => ({ code, classes: classes.get(code) ?? [] }));
}
