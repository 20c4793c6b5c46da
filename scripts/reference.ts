/**
 * docs/reference.md, generated: every tool (its toolset, annotations, description, parameters and
 * result fields, from the JSON Schema tools/list advertises), the resources, resource templates
 * and prompts (from their registries), the error codes (src/errors.ts) and the configuration
 * variables (src/config.ts), with the words no definition carries from ./reference-notes.ts.
 *
 *   npm run docs                      writes docs/reference.md
 *   tsx scripts/reference.ts --check  exits 1 while docs/reference.md differs (npm run lint)
 *
 * The text is formatted with prettier's API before it is written or compared, so the file passes
 * `prettier --check` and a check never fails on formatting alone. Importing the registries starts
 * nothing: no server, no thread, no store.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as prettier from "prettier";
import { z } from "zod";
import { REPO_ROOT } from "./metadata.js";
import { CONFIG_NOTES, ERROR_NOTES, PROTOCOL_ERRORS } from "./reference-notes.js";
import { configVariables, errorCodes } from "./reference-sources.js";

export const REFERENCE_FILE = "docs/reference.md";
export const OUT_OF_DATE = `${REFERENCE_FILE} is out of date: run npm run docs`;

/** A JSON Schema as zod writes it (draft-07), loosely typed. */
interface Schema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  pattern?: string;
  format?: string;
  $ref?: string;
  definitions?: Record<string, Schema>;
  $defs?: Record<string, Schema>;
}

// --- Markdown helpers -------------------------------------------------------------------------

/** An inline code span holding `text` whatever backticks it contains. */
function code(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const fence = "`".repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Plain text as markdown: one line, and the characters markdown would read as markup escaped. */
function prose(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\\/g, "\\\\")
    .replace(/</g, "\\<")
    .replace(/\*/g, "\\*")
    .replace(/(^|\s)_/g, "$1\\_")
    .replace(/_(\s|$)/g, "\\_$1");
}

/** Text that already is markdown (backticks, links), on one line. */
const line = (text: string) => text.replace(/\s+/g, " ").trim();

/** A table cell: pipes escaped (GFM requires it inside code spans too), empty as "—". */
const cell = (text: string) => (text === "" ? "—" : text.replace(/\|/g, "\\|"));

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(" | ")} |`,
    `| ${head.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
}

const json = (value: unknown) => code(JSON.stringify(value));
const num = (n: number) => n.toLocaleString("en-US");

// --- JSON Schema → rows -----------------------------------------------------------------------

function resolve(schema: Schema, root: Schema): Schema {
  if (!schema.$ref) return schema;
  const m = /^#\/(definitions|\$defs)\/(.+)$/.exec(schema.$ref);
  const target = m ? root[m[1] as "definitions" | "$defs"]?.[decodeURIComponent(m[2]!)] : undefined;
  if (!target) throw new Error(`cannot resolve ${schema.$ref}`);
  return { ...target, ...schema, $ref: undefined };
}

/** The members of an anyOf/oneOf, or the schema itself. */
const alternatives = (s: Schema): Schema[] => s.anyOf ?? s.oneOf ?? [s];

function typeName(raw: Schema, root: Schema): string {
  const s = resolve(raw, root);
  if (s.anyOf || s.oneOf) {
    return [...new Set(alternatives(s).map((a) => typeName(a, root)))].join(" or ");
  }
  if (s.allOf) return s.allOf.map((a) => typeName(a, root)).join(" and ");
  if (s.const !== undefined) return json(s.const);
  if (s.enum) return s.enum.map((v) => json(v)).join(", ");
  const type = Array.isArray(s.type) ? s.type.join(" or ") : s.type;
  if (type === "array")
    return s.items ? `${typeName(s.items, root)}[]`.replace(/^(.* .*)\[\]$/, "($1)[]") : "array";
  if (type === "object" && !s.properties && s.additionalProperties) {
    const value =
      typeof s.additionalProperties === "object" ? typeName(s.additionalProperties, root) : "any";
    return `object (map of ${value})`;
  }
  return type ?? "any";
}

/** Length, count, range and pattern limits of one schema (an array's items' too). */
function limits(raw: Schema, root: Schema): string[] {
  const s = resolve(raw, root);
  const out: string[] = [];
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    const u = unit ? ` ${unit}` : "";
    if (min !== undefined && max !== undefined) out.push(`${num(min)}–${num(max)}${u}`);
    else if (max !== undefined) out.push(`≤ ${num(max)}${u}`);
    else if (min !== undefined && min > 0) out.push(`≥ ${num(min)}${u}`);
  };
  range(s.minLength, s.maxLength, "characters");
  range(s.minItems, s.maxItems, "items");
  if (s.minimum !== undefined && s.minimum <= Number.MIN_SAFE_INTEGER) s.minimum = undefined;
  if (s.maximum !== undefined && s.maximum >= Number.MAX_SAFE_INTEGER) s.maximum = undefined;
  range(s.minimum, s.maximum, "");
  if (s.exclusiveMinimum !== undefined) out.push(`> ${num(s.exclusiveMinimum)}`);
  if (s.exclusiveMaximum !== undefined) out.push(`< ${num(s.exclusiveMaximum)}`);
  if (s.pattern) out.push(`pattern ${code(s.pattern)}`);
  if (s.format) out.push(`format ${s.format}`);
  if (s.items) {
    const item = limits(s.items, root);
    if (item.length > 0) out.push(`each: ${item.join(", ")}`);
  }
  return out;
}

/** The object schema an object, array of objects or nullable object holds, if any. */
function fieldsOf(raw: Schema, root: Schema): { schema: Schema; suffix: string } | undefined {
  const s = resolve(raw, root);
  for (const alt of alternatives(s).map((a) => resolve(a, root))) {
    if (alt.properties) return { schema: alt, suffix: "" };
    if (alt.items) {
      const items = resolve(alt.items, root);
      if (items.properties) return { schema: items, suffix: "[]" };
    }
  }
  return undefined;
}

interface Field {
  path: string;
  schema: Schema;
  required: boolean;
}

/** Every property of an object schema, nested ones as `a.b` and `a[].b`, in declaration order. */
function fields(object: Schema, root: Schema, prefix = ""): Field[] {
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).flatMap(([name, schema]) => {
    const path = `${prefix}${name}`;
    const nested = fieldsOf(schema, root);
    return [
      { path, schema, required: required.has(name) },
      ...(nested ? fields(nested.schema, root, `${path}${nested.suffix}.`) : []),
    ];
  });
}

function parameterTable(schema: Schema): string {
  const rows = fields(schema, schema).map((f) => {
    const s = resolve(f.schema, schema);
    return [
      code(f.path),
      typeName(s, schema),
      f.required ? "yes" : "",
      s.default === undefined ? "" : json(s.default),
      limits(s, schema).join("; "),
      prose(s.description ?? ""),
    ];
  });
  if (rows.length === 0) return "No parameters.";
  return table(["parameter", "type", "required", "default", "limits", "description"], rows);
}

function resultTable(schema: Schema): string {
  const rows = fields(schema, schema).map((f) => {
    const s = resolve(f.schema, schema);
    return [
      code(f.path),
      typeName(s, schema),
      f.required ? "always" : "optional",
      prose(s.description ?? ""),
    ];
  });
  // Output schemas are terse (src/tools/outputs.ts): a description column only where one has any.
  if (rows.every((r) => r[3] === "")) {
    return table(
      ["field", "type", "present"],
      rows.map((r) => r.slice(0, 3)),
    );
  }
  return table(["field", "type", "present", "description"], rows);
}

// --- Sections -----------------------------------------------------------------------------------

type Registries = Awaited<ReturnType<typeof loadRegistries>>;

async function loadRegistries() {
  const [{ TOOLS }, { toFastMcpTool }, { TOOLSETS }, resources, { PROMPTS }, errors, config] =
    await Promise.all([
      import("../src/tools/index.js"),
      import("../src/tools/tool.js"),
      import("../src/toolsets.js"),
      import("../src/resources/index.js"),
      import("../src/prompts/index.js"),
      import("../src/errors.js"),
      import("../src/config.js"),
    ]);
  return {
    TOOLS,
    toFastMcpTool,
    TOOLSETS,
    RESOURCES: resources.RESOURCES,
    RESOURCE_TEMPLATES: resources.RESOURCE_TEMPLATES,
    PROMPTS,
    errors: errors as unknown as Record<string, unknown>,
    config: config as unknown as Record<string, unknown>,
  };
}

/** The JSON Schema fastmcp advertises in tools/list (Standard JSON Schema of src/tools/tool.ts). */
function advertised(schema: unknown): Schema | undefined {
  const std = (schema as { "~standard"?: { jsonSchema?: { input?: (o: object) => unknown } } })?.[
    "~standard"
  ];
  return std?.jsonSchema?.input?.({ target: "draft-07" }) as Schema | undefined;
}

function toolTraits(tool: Registries["TOOLS"][number]): string {
  const a = tool.annotations;
  const traits = [
    `toolset ${code(tool.toolset)}`,
    a.readOnlyHint ? "read-only" : "writes",
    ...(a.destructiveHint ? ["destructive"] : []),
    ...(a.idempotentHint ? ["idempotent"] : []),
    a.openWorldHint ? "reaches outside services" : "local only",
    tool.noDeadline
      ? "no call deadline (its requests keep their own)"
      : `deadline ${code(tool.budget === "corpus" ? "CORPUS_DEADLINE_MS" : "NCBI_DEADLINE_MS")}`,
    tool.maxAnswerBytes !== undefined
      ? `answer ≤ ${num(tool.maxAnswerBytes / 1024)} KiB (and ${code("MCP_MAX_ANSWER_BYTES")})`
      : `answer ≤ ${code("MCP_MAX_ANSWER_BYTES")}`,
    ...(tool.pages ? [`pages with ${code("more")}`] : []),
  ];
  return `_${prose(a.title)}_ — ${traits.join(" · ")}.`;
}

/** What holds for every tool (src/tools/tool.ts, validate.ts, answer.ts, src/ncbi/dates.ts). */
const CONVENTIONS = `- **Arguments.** Validated before the call runs; a bad call is a \`VALIDATION\` result naming
  each bad path. Empty strings in optional arguments count as absent; PMIDs may come as numbers,
  counts and years as digit strings, flags as \`"true"\`/\`"false"\`, and a parameter name in
  another case or separator style (\`max_results\`, \`topK\`) is taken for the parameter; a name
  the tool does not have is refused. Arguments hold at most 1 MiB of JSON, nested at most 32
  levels ([configuration.md](configuration.md#limits)).
- **Results.** The result object comes as JSON text and as the same object in
  \`structuredContent\`; a tool with more content (\`pubmed_trend\`'s chart) adds its blocks after
  the JSON text block. Result objects are open: a field added to a result is a minor change, so
  clients should ignore fields they do not know. A field marked optional may be absent.
- **Dates.** ISO-8601, as precise as the source (\`2019\`, \`2019-08\`, \`2019-08-28\`); a
  date-time only where the source has a time, in UTC (\`2019-08-28T06:00:00Z\`).
- **Size.** An answer holds at most \`MCP_MAX_ANSWER_BYTES\` of JSON text (less where a tool says
  so); a tool that pages returns the records that fit and \`more: {omitted, arguments}\`, the
  call for the rest ([configuration.md](configuration.md#answer-size)).
- **Failures.** A result with \`isError: true\` holding the [error envelope](#tool-errors).`;

function toolsSection(r: Registries): string[] {
  const byToolset = r.TOOLSETS.map((set) => ({
    set,
    tools: r.TOOLS.filter((t) => t.toolset === set),
  }));
  const stray = r.TOOLS.filter((t) => !r.TOOLSETS.includes(t.toolset));
  if (stray.length > 0) throw new Error(`tools outside every toolset: ${stray.map((t) => t.name)}`);
  const out = [
    "## Tools",
    "`MCP_TOOLSETS` and `MCP_READ_ONLY` decide which tools a server offers " +
      "([configuration.md](configuration.md#toolsets)); a tool not offered is an unknown tool. " +
      "Below, parameters and fields nested in an object are written `a.b`, in a list of objects " +
      "`a[].b`.",
    table(
      ["tool", "toolset", "writes", "summary"],
      r.TOOLS.map((t) => [
        `[${code(t.name)}](#${t.name})`,
        code(t.toolset),
        t.annotations.readOnlyHint ? "" : "yes",
        prose(t.annotations.title),
      ]),
    ),
  ];
  out.push("### Conventions", CONVENTIONS);
  for (const { set, tools } of byToolset) {
    if (tools.length === 0) continue;
    out.push(`### Toolset ${code(set)}`);
    for (const tool of tools) {
      // The schemas tools/list advertises; zod's own conversion where fastmcp's shape changed.
      const fast = r.toFastMcpTool(tool) as { parameters: unknown; outputSchema?: unknown };
      const input =
        advertised(fast.parameters) ??
        (z.toJSONSchema(tool.parameters, { target: "draft-07", io: "input" }) as Schema);
      const output =
        (fast.outputSchema === undefined ? undefined : advertised(fast.outputSchema)) ??
        (tool.output &&
          (z.toJSONSchema(tool.output, { target: "draft-07", io: "output" }) as Schema));
      out.push(
        `#### ${code(tool.name)}`,
        toolTraits(tool),
        prose(tool.description),
        "**Parameters**",
        parameterTable(input),
        "**Result**",
        output ? resultTable(output) : "No declared result schema.",
      );
      if (tool.moreContent) {
        out.push("More content blocks follow the JSON text block (e.g. a chart).");
      }
    }
  }
  return out;
}

function resourcesSection(r: Registries): string[] {
  const offered = (toolset: string | undefined) =>
    toolset ? `with toolset ${code(toolset)}` : "always";
  return [
    "## Resources",
    "Read with `resources/read`; a URI this server does not hold is JSON-RPC `-32002`.",
    table(
      ["URI", "name", "type", "offered", "description"],
      r.RESOURCES.map((res) => [
        code(res.uri),
        code(res.name),
        code(res.mimeType),
        offered(res.toolset),
        prose(res.description),
      ]),
    ),
    "### Resource templates",
    table(
      ["URI template", "arguments", "type", "offered", "description"],
      r.RESOURCE_TEMPLATES.map((t) => [
        code(t.uriTemplate),
        [
          ...t.arguments.map((a) => `${code(a.name)}: ${prose(a.description)}`),
          ...(t.query ?? []).map((q) => `${code(`?${q}`)} (query)`),
        ].join("<br>"),
        code(t.mimeType),
        offered(t.toolset),
        prose(t.description),
      ]),
    ),
  ];
}

function promptsSection(r: Registries): string[] {
  const out = [
    "## Prompts",
    "Offered whatever the toolsets; `prompts/get` with bad arguments is JSON-RPC `-32602`.",
  ];
  for (const p of r.PROMPTS) {
    out.push(
      `### ${code(p.name)}`,
      prose(p.description),
      table(
        ["argument", "required", "values", "description"],
        p.arguments.map((a) => [
          code(a.name),
          a.required ? "yes" : "",
          (a.enum ?? []).map((v) => code(v)).join(", "),
          prose(a.description),
        ]),
      ),
    );
  }
  return out;
}

function errorsSection(r: Registries): string[] {
  const codes = errorCodes(r.errors);
  const missing = codes.filter((c) => !(c.code in ERROR_NOTES)).map((c) => c.code);
  const stale = Object.keys(ERROR_NOTES).filter((k) => !codes.some((c) => c.code === k));
  if (missing.length > 0 || stale.length > 0) {
    throw new Error(
      `scripts/reference-notes.ts ERROR_NOTES must describe exactly src/errors.ts's ErrorCode: ` +
        `missing ${missing.join(", ") || "none"}; not a code ${stale.join(", ") || "none"}`,
    );
  }
  return [
    "## Errors",
    "### Tool errors",
    "A tool call that fails answers a result with `isError: true` whose text is the envelope " +
      '`{"error": {"code": "…", "message": "…", "details": {…} | null}}`. The message is for the ' +
      "model: what was wrong and how to fix the call; it never carries SQL, stack traces or " +
      "secrets. The envelope is sent as text only, not in `structuredContent` (the MCP SDK " +
      "client checks `structuredContent` against the tool's output schema even on errors).",
    table(
      ["code", "raised as", "meaning"],
      codes.map((c) => [
        code(c.code),
        c.classes.map((n) => code(n)).join(", "),
        line(ERROR_NOTES[c.code]!),
      ]),
    ),
    "### Protocol errors",
    "JSON-RPC errors, answered instead of a result.",
    table(
      ["code", "when"],
      PROTOCOL_ERRORS.map((e) => [code(String(e.code)), line(e.when)]),
    ),
  ];
}

function configSection(r: Registries): string[] {
  const vars = configVariables(r.config, r.TOOLSETS);
  const missing = vars.filter((v) => !(v.name in CONFIG_NOTES)).map((v) => v.name);
  const stale = Object.keys(CONFIG_NOTES).filter((k) => !vars.some((v) => v.name === k));
  if (missing.length > 0 || stale.length > 0) {
    throw new Error(
      `scripts/reference-notes.ts CONFIG_NOTES must describe exactly src/config.ts's variables: ` +
        `missing ${missing.join(", ") || "none"}; not a variable ${stale.join(", ") || "none"}`,
    );
  }
  return [
    "## Configuration",
    "Environment variables, read once at start-up by `src/config.ts`; an empty value counts as " +
      "unset, and bad values stop start-up listing every problem. " +
      "[configuration.md](configuration.md) says more about each.",
    table(
      ["variable", "type", "default", "meaning"],
      vars.map((v) => {
        const note = CONFIG_NOTES[v.name]!;
        return [
          code(v.name),
          v.type,
          line(note.default ?? v.default ?? "unset"),
          line(note.meaning),
        ];
      }),
    ),
  ];
}

/** The reference as markdown, before formatting. */
export async function renderReference(): Promise<string> {
  const r = await loadRegistries();
  const sections = [
    "# Reference",
    "<!-- Generated by `npm run docs` (scripts/reference.ts); do not edit. `npm run lint` fails while this file differs from what the script writes. -->",
    "The public interface of pubmed-mcp, generated from the definitions themselves: the tools " +
      "(`src/tools`), resources (`src/resources`), prompts (`src/prompts`), error codes " +
      "(`src/errors.ts`) and configuration (`src/config.ts`).",
    "- [Tools](#tools)\n- [Resources](#resources)\n- [Prompts](#prompts)\n- [Errors](#errors)\n- [Configuration](#configuration)",
    ...toolsSection(r),
    ...resourcesSection(r),
    ...promptsSection(r),
    ...errorsSection(r),
    ...configSection(r),
  ];
  return `${sections.join("\n\n")}\n`;
}

/** The reference as it is written: rendered, then formatted as `prettier --write` would. */
export async function buildReference(): Promise<string> {
  const filepath = join(REPO_ROOT, REFERENCE_FILE);
  const options = (await prettier.resolveConfig(filepath)) ?? {};
  return prettier.format(await renderReference(), { ...options, filepath });
}

// Run as a script: write docs/reference.md, or with --check compare it.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const path = join(REPO_ROOT, REFERENCE_FILE);
  const text = await buildReference();
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(path, "utf8");
    } catch {
      // missing: out of date
    }
    if (current !== text) {
      process.stderr.write(`${OUT_OF_DATE}\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(path, text);
    process.stderr.write(`${REFERENCE_FILE} written\n`);
  }
}
