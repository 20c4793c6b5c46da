/**
 * The damage the edges section does to valid arguments (bench/lib/edges-calls.ts), one kind per
 * call: every kind a client, a model or an attacker could send.
 */
import type { Rng } from "../../src/devtools/synth-random.js";
import type { JsonSchema, Kind } from "./edges-calls.js";

const EMOJI = ["😀", "👩‍👩‍👧‍👦", "🏳️‍🌈", "🧬", "🇫🇷", "👍🏽", "𝔘𝔫𝔦"];
const COMBINING = ["e\u0301", "a\u0308\u0323", "Z\u0335\u0321\u0337\u0318", "n\u0303"];
const RTL = [
  "\u202Eevil\u202C",
  "\u05E9\u05DC\u05D5\u05DD",
  "\u0645\u0631\u062D\u0628\u0627",
  "\u200F",
];
const SCRIPTS = ["漢字", "ελληνικά", "русский", "한국어", "ﷺ", "\uFEFF", "\u00A0", "ß"];
const CONTROL = [
  "\u0000",
  "\u0001",
  "\u0007",
  "\b",
  "\t",
  "\n",
  "\r",
  "\u001B[31m",
  "\u001F",
  "\u007F",
  "\u0085",
  "\u2028",
  "\u2029",
];
const SURROGATES = ["\uD800", "\uDFFF", "\uDBFF", "\uDC00x", "😀".slice(0, 1), "😀".slice(1)];
const ODD_NUMBERS = [
  Number.NaN,
  Infinity,
  -Infinity,
  -0,
  -1,
  0.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  1e-300,
];

function text(rng: Rng, parts: readonly string[], n: number): string {
  let out = "";
  for (let i = 0; i < n; i++)
    out += rng.chance(0.5) ? rng.pick(parts) : rng.pick(["a", "b", " ", "1"]);
  return out;
}

/** A string of about `bytes` UTF-8 bytes, mostly ASCII, sometimes unicode-heavy or a PMID run. */
function hugeString(rng: Rng, bytes: number): string {
  const unit = rng.pick(["asthma ", "31452104,", "😀e\u0301", "\u0000\u0001", "a\uD800", "x"]);
  return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
}

function nest(rng: Rng, depth: number): unknown {
  const inner = rng.pick(["31452104", 1, null, true]);
  if (rng.chance(0.5))
    return JSON.parse(`${"[".repeat(depth)}${JSON.stringify(inner)}${"]".repeat(depth)}`);
  return JSON.parse(`${'{"a":'.repeat(depth)}${JSON.stringify(inner)}${"}".repeat(depth)}`);
}

export const typeOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type[0] : s.type);

/** A value of a JSON type other than the schema's. */
function wrongType(rng: Rng, s: JsonSchema): unknown {
  const type = typeOf(s);
  const others: unknown[] = [42, "42", true, null, [], {}, ["a"], { a: 1 }, 3.5].filter((v) => {
    const t = v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
    if (type === "integer" || type === "number") return t !== "number";
    return t !== type;
  });
  return rng.pick(others);
}

/** Paths of every value in the arguments (object keys and array indexes), root excluded. */
function paths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []) {
  if (Array.isArray(value)) {
    value.slice(0, 5).forEach((v, i) => {
      out.push([...prefix, i]);
      paths(v, [...prefix, i], out);
    });
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push([...prefix, k]);
      paths(v, [...prefix, k], out);
    }
  }
  return out;
}

function schemaAt(s: JsonSchema, path: (string | number)[]): JsonSchema {
  let at: JsonSchema | undefined = s;
  for (const step of path) at = typeof step === "number" ? at?.items : at?.properties?.[step];
  return at ?? {};
}

function setAt(root: Record<string, unknown>, path: (string | number)[], value: unknown): void {
  let at: unknown = root;
  for (const step of path.slice(0, -1)) at = (at as Record<string | number, unknown>)[step];
  (at as Record<string | number, unknown>)[path.at(-1)!] = value;
}

/** Every string in the value, changed by `f` (keys too when `keys`). */
function mapStrings(value: unknown, f: (s: string) => string, keys = false): unknown {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f, keys));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [keys ? f(k) : k, mapStrings(v, f, keys)]),
    );
  }
  return value;
}

const getAt = (root: unknown, path: (string | number)[]) =>
  path.reduce<unknown>((at, step) => (at as Record<string | number, unknown>)[step], root);

/** What a kind of damage works on: the valid arguments, their schema and their paths. */
interface Target {
  rng: Rng;
  args: Record<string, unknown>;
  s: JsonSchema;
  /** Paths of every value in `args`. */
  all: (string | number)[][];
  /** One of them, chosen. */
  target: (string | number)[];
  /** The tool's parameter names. */
  names: string[];
}

const propType = (t: Target, k: string) => typeOf(t.s.properties?.[k] ?? {});

const DAMAGE: Record<Kind, (t: Target) => unknown> = {
  valid: ({ args }) => args,
  wrong_type: ({ rng, args, s, target }) => {
    setAt(args, target, wrongType(rng, schemaAt(s, target)));
    return args;
  },
  huge_string: ({ rng, args, s, all, target }) => {
    const bytes = rng.weighted([10_000, 100_000, 300_000, 1_000_000], (b) => 1_000_000 / b);
    const strings = all.filter((p) => typeOf(schemaAt(s, p)) === "string");
    setAt(args, strings.length > 0 ? rng.pick(strings) : target, hugeString(rng, bytes));
    return args;
  },
  huge_array: (t) => {
    const { rng, args, names } = t;
    const n = rng.weighted([1_000, 10_000, 100_000], (k) => 100_000 / k);
    const item = rng.pick(["31452104", "not a pmid", "", 7, null, "😀"]);
    const arrays = names.filter((k) => propType(t, k) === "array");
    const key = arrays.length > 0 && rng.chance(0.8) ? rng.pick(arrays) : rng.pick(names);
    args[key] = Array.from({ length: n }, (_, i) =>
      typeof item === "string" && rng.chance(0.1) ? `${item}${i}` : item,
    );
    return args;
  },
  deep_nesting: ({ rng, args, target }) => {
    setAt(args, target, nest(rng, rng.pick([100, 1_000, 2_000, 5_000])));
    return args;
  },
  unicode: ({ rng, args }) =>
    mapStrings(
      args,
      (v) => `${v}${text(rng, [...EMOJI, ...COMBINING, ...RTL, ...SCRIPTS], rng.int(1, 12))}`,
      rng.chance(0.2),
    ),
  control_chars: ({ rng, args }) =>
    mapStrings(
      args,
      (v) => `${text(rng, CONTROL, rng.int(1, 4))}${v}${text(rng, CONTROL, 2)}`,
      rng.chance(0.2),
    ),
  lone_surrogate: ({ rng, args }) =>
    mapStrings(
      args,
      (v) => `${v.slice(0, 3)}${rng.pick(SURROGATES)}${v.slice(3)}`,
      rng.chance(0.2),
    ),
  unknown_keys: ({ rng, args, names }) => {
    // A few (the first two often a parameter's name in another case or separator style), or
    // thousands.
    const count = rng.weighted([1, 3, 1_000, 20_000], (k) => (k < 10 ? 10 : 1));
    const twins = (k: string) => [
      k.toLowerCase(),
      k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      k.toUpperCase(),
    ];
    for (let i = 0; i < count; i++) {
      const key =
        i < 2 && names.length > 0
          ? rng.pick(twins(rng.pick(names)))
          : `unknown_${i}_${"k".repeat(rng.int(0, 40))}`;
      args[key] = rng.pick([1, "x", null, { a: 1 }]);
    }
    return args;
  },
  proto_key: ({ rng, args }) => {
    // JSON.parse makes `__proto__` an own key, as a client's JSON text does.
    const key = rng.pick(["__proto__", "constructor", "prototype", "__defineGetter__"]);
    const value = rng.pick(['{"polluted":true}', '{"isAdmin":1}', "null", '"x"', "[1]"]);
    const merged = JSON.parse(`{${JSON.stringify(key)}:${value}}`) as Record<string, unknown>;
    for (const [k, v] of Object.entries(args)) merged[k] = v;
    return rng.chance(0.3) ? { ...args, nested: merged } : merged;
  },
  numbers_as_strings: (t) => {
    const { rng, args, all, names } = t;
    for (const p of all) {
      const v = getAt(args, p);
      if (typeof v === "number" || typeof v === "boolean") setAt(args, p, String(v));
    }
    for (const k of names) {
      const type = propType(t, k);
      if ((type === "integer" || type === "number") && !(k in args))
        args[k] = rng.pick(["10", "1e3", "0x10", " 5 ", ""]);
    }
    return args;
  },
  nulls: ({ rng, args, names, target }) => {
    if (rng.chance(0.2)) return null;
    for (const k of rng.chance(0.5) ? names : [String(target[0])]) args[k] = null;
    return args;
  },
  missing_required: ({ rng, args, s }) =>
    rng.chance(0.5)
      ? {}
      : Object.fromEntries(Object.entries(args).filter(([k]) => !s.required?.includes(k))),
  not_an_object: ({ rng, args }) => rng.pick([[], [args], "pmids=1", 42, true, null, ""]),
  odd_numbers: (t) => {
    const numeric = t.names.filter((k) => ["integer", "number"].includes(propType(t, k) ?? ""));
    const key = numeric.length > 0 ? t.rng.pick(numeric) : String(t.target[0]);
    t.args[key] = t.rng.pick(ODD_NUMBERS);
    return t.args;
  },
  many_problems: (t) => {
    // Every item and every key wrong at once: the refusal must stay short.
    const n = t.rng.pick([50, 1_000, 10_000]);
    for (const k of t.names) {
      t.args[k] =
        propType(t, k) === "array"
          ? Array.from({ length: n }, (_, i) => `bad ${i} ${"\u0000".repeat(i % 3)}`)
          : wrongType(t.rng, t.s.properties?.[k] ?? {});
    }
    for (let i = 0; i < n / 10; i++) t.args[`extra_${i}`] = i;
    return t.args;
  },
};

/** The valid `args` of a tool with schema `s`, damaged as `kind` says (args may be changed). */
export function damage(
  rng: Rng,
  kind: Kind,
  args: Record<string, unknown>,
  s: JsonSchema,
): unknown {
  const all = paths(args);
  const names = Object.keys(s.properties ?? {});
  const target = all.length > 0 ? rng.pick(all) : [rng.pick(names.length > 0 ? names : ["x"])];
  return DAMAGE[kind]({ rng, args, s, all, target, names });
}
