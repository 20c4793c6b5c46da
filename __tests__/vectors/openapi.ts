/**
 * Validates HTTP traffic against an OpenAPI 3.0 document with ajv: the Qdrant test double uses it
 * on every request it receives and every response it sends, so the adapter is tested against the
 * published API, not against the double's reading of it.
 *
 * OpenAPI 3.0 is not plain JSON Schema; two translations make it so. `nullable: true` becomes a
 * "null" type (a bare `{nullable: true}` — the spec's "or null" branch of an anyOf — becomes
 * `{type: "null"}`, the stricter reading), and the spec's numeric formats (uint, uint32, float…)
 * become checked ajv formats, so an out-of-range sparse index or a fraction where an integer
 * belongs is a violation.
 *
 * Objects are closed: a schema that lists `properties` and says nothing of others gets
 * `additionalProperties: false`. Qdrant itself ignores unknown fields except where it denies them
 * (Filter, the payload selectors — already closed in the spec), so a misspelt `on_disk_paylod`
 * would reach it, be dropped, and leave a collection without the layout; here it is a 400.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

type Json = unknown;
type JsonObject = Record<string, unknown>;

export interface Operation {
  operationId: string;
  method: string;
  template: string;
  regex: RegExp;
  paramNames: string[];
  /** Query parameters the spec declares, with their schemas. */
  query: Map<string, JsonObject>;
  hasJsonBody: boolean;
}

export interface Violation {
  operationId: string;
  where: "request" | "query" | "response";
  errors: Pick<ErrorObject, "instancePath" | "message" | "params">[];
}

const DOC_ID = "openapi.json";
const SCHEMA_KEYS = ["anyOf", "oneOf", "allOf", "enum", "properties", "items", "$ref", "const"];

function isObject(v: Json): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deep copy with OpenAPI's `nullable` rewritten as JSON Schema. */
function normalize(node: Json): Json {
  if (Array.isArray(node)) return node.map(normalize);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) if (k !== "nullable") out[k] = normalize(v);
  if (isObject(out.properties) && !("additionalProperties" in out))
    out.additionalProperties = false;
  if (node.nullable !== true) return out;
  if (typeof out.type === "string") {
    out.type = [out.type, "null"];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
  if (!SCHEMA_KEYS.some((k) => k in out)) return { ...out, type: "null" };
  return { anyOf: [out, { type: "null" }] };
}

const pointer = (...segments: string[]): string =>
  "#/" +
  segments.map((s) => encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/");

const uint = (max: number) => (x: number) => Number.isInteger(x) && x >= 0 && x <= max;

export class OpenApiSpec {
  readonly operations: Operation[] = [];
  readonly #ajv: Ajv;
  readonly #doc: JsonObject;
  readonly #compiled = new Map<string, ValidateFunction | null>();

  constructor(document: JsonObject) {
    this.#doc = normalize(document) as JsonObject;
    this.#ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(this.#ajv);
    const numeric: Record<string, (x: number) => boolean> = {
      uint: uint(Number.MAX_SAFE_INTEGER),
      uint8: uint(0xff),
      uint16: uint(0xffff),
      uint32: uint(0xffffffff),
      uint64: uint(Number.MAX_SAFE_INTEGER),
      float: (x) => Number.isFinite(x) && Math.abs(x) <= 3.4028234663852886e38,
      double: Number.isFinite,
    };
    for (const [name, validate] of Object.entries(numeric)) {
      this.#ajv.addFormat(name, { type: "number", validate });
    }
    this.#ajv.addFormat("partial-date-time", true);
    this.#ajv.addSchema(this.#doc, DOC_ID);

    const paths = this.#doc.paths as Record<string, Record<string, JsonObject>>;
    for (const [template, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (typeof op.operationId !== "string") continue;
        const paramNames: string[] = [];
        const source = template
          .replace(/[.*+?^$()|[\]\\]/g, "\\$&")
          .replace(/\{(\w+)\}/g, (_, n) => {
            paramNames.push(n as string);
            return "([^/]+)";
          });
        const params = (op.parameters ?? []) as JsonObject[];
        const body = (op.requestBody as JsonObject | undefined)?.content as JsonObject | undefined;
        this.operations.push({
          operationId: op.operationId,
          method: method.toUpperCase(),
          template,
          regex: new RegExp(`^${source}$`),
          paramNames,
          query: new Map(
            params
              .filter((p) => p.in === "query")
              .map((p) => [p.name as string, p.schema as JsonObject]),
          ),
          hasJsonBody: Boolean(body?.["application/json"]),
        });
      }
    }
    // Literal segments win over parameters ("/points/count" before "/points/{id}").
    this.operations.sort((a, b) => a.paramNames.length - b.paramNames.length);
  }

  match(
    method: string,
    path: string,
  ): { op: Operation; params: Record<string, string> } | undefined {
    for (const op of this.operations) {
      if (op.method !== method) continue;
      const m = op.regex.exec(path);
      if (!m) continue;
      const params = Object.fromEntries(
        op.paramNames.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]),
      );
      return { op, params };
    }
    return undefined;
  }

  validateRequest(op: Operation, body: Json): Violation | undefined {
    const fn = this.#validator(
      pointer(
        "paths",
        op.template,
        op.method.toLowerCase(),
        "requestBody",
        "content",
        "application/json",
        "schema",
      ),
    );
    return this.#run(op, "request", fn, body);
  }

  /** Query strings are text; values are coerced to the declared type before validation. */
  validateQuery(op: Operation, query: URLSearchParams): Violation | undefined {
    const errors: Violation["errors"] = [];
    for (const [name, raw] of query) {
      const schema = op.query.get(name);
      if (!schema) {
        errors.push({
          instancePath: `/${name}`,
          message: "is not a declared query parameter",
          params: {},
        });
        continue;
      }
      const types = ([] as unknown[]).concat(schema.type);
      const value = types.includes("boolean")
        ? raw === "true"
          ? true
          : raw === "false"
            ? false
            : raw
        : types.includes("integer")
          ? Number(raw)
          : raw;
      const key = `${op.operationId}?${name}`;
      if (!this.#compiled.has(key)) this.#compiled.set(key, this.#ajv.compile(schema));
      const fn = this.#compiled.get(key)!;
      if (!fn(value))
        errors.push(
          ...(fn.errors ?? []).map((e) => ({ ...e, instancePath: `/${name}${e.instancePath}` })),
        );
    }
    return errors.length ? { operationId: op.operationId, where: "query", errors } : undefined;
  }

  validateResponse(op: Operation, status: number, body: Json): Violation | undefined {
    const responses = ((this.#doc.paths as JsonObject)[op.template] as JsonObject)[
      op.method.toLowerCase()
    ] as JsonObject;
    const codes = responses.responses as JsonObject;
    const code =
      String(status) in codes
        ? String(status)
        : status >= 400 && status < 500 && "4XX" in codes
          ? "4XX"
          : "default";
    const fn = this.#validator(
      pointer(
        "paths",
        op.template,
        op.method.toLowerCase(),
        "responses",
        code,
        "content",
        "application/json",
        "schema",
      ),
    );
    return this.#run(op, "response", fn, body);
  }

  #validator(ptr: string): ValidateFunction | null {
    if (!this.#compiled.has(ptr)) {
      let target: Json = this.#doc;
      for (const seg of ptr.slice(2).split("/")) {
        const key = decodeURIComponent(seg).replace(/~1/g, "/").replace(/~0/g, "~");
        target = isObject(target) ? target[key] : undefined;
      }
      this.#compiled.set(
        ptr,
        target === undefined ? null : this.#ajv.compile({ $ref: `${DOC_ID}${ptr}` }),
      );
    }
    return this.#compiled.get(ptr)!;
  }

  #run(op: Operation, where: Violation["where"], fn: ValidateFunction | null, value: Json) {
    if (!fn) {
      return value === undefined
        ? undefined
        : {
            operationId: op.operationId,
            where,
            errors: [
              { instancePath: "", message: "the spec declares no JSON body here", params: {} },
            ],
          };
    }
    if (fn(value)) return undefined;
    const errors = (fn.errors ?? []).map(({ instancePath, message, params }) => ({
      instancePath,
      message,
      params,
    }));
    return { operationId: op.operationId, where, errors };
  }
}
