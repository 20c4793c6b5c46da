/**
 * A Qdrant REST test double on 127.0.0.1:<random port>. Every request body and query string is
 * validated against the Qdrant OpenAPI spec (../shared/specs/qdrant-openapi-v1.18.json) and
 * answered 400 with the ajv errors on a mismatch; every response it sends is validated too. Both
 * kinds are recorded in `violations`, which tests assert stays empty.
 *
 * Objects in request bodies are closed (../vectors/openapi.ts): an unknown or misspelt field is a
 * 400, where Qdrant would drop it silently.
 *
 * It implements what the adapter uses — collections (create, get, exists, update, delete), payload
 * indexes, upsert, delete by ids or filter, count, and the Query API — with Qdrant's scoring
 * (cosine; sparse dot product with the idf modifier), see ../vectors/qdrant-model.ts. Anything
 * else is answered 501 and recorded in `unsupported`, so a test cannot pass by accident.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { OpenApiSpec, type Violation } from "../vectors/openapi.js";
import {
  HttpError,
  Unsupported,
  collectionInfo,
  createCollection,
  getPoints,
  passes,
  query,
  unit,
  updateCollection,
  type Collection,
  type Point,
  type Sparse,
} from "../vectors/qdrant-model.js";
import { SHARED_DIR } from "./shared.js";

export const QDRANT_SPEC_PATH = join(SHARED_DIR, "specs", "qdrant-openapi-v1.18.json");

let cachedSpec: OpenApiSpec | undefined;
/** The parsed spec, or undefined when ../shared is absent (callers skip with a note). */
export function loadQdrantSpec(): OpenApiSpec | undefined {
  if (!existsSync(QDRANT_SPEC_PATH)) return undefined;
  return (cachedSpec ??= new OpenApiSpec(JSON.parse(readFileSync(QDRANT_SPEC_PATH, "utf8"))));
}

export interface FakeQdrant {
  url: string;
  collections: Map<string, Collection>;
  requests: {
    method: string;
    path: string;
    query: string;
    operationId: string | undefined;
    body: unknown;
  }[];
  violations: Violation[];
  unsupported: string[];
  stop(): Promise<void>;
}

/** A reply as a test reads it: any JSON Qdrant sends. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
type Reply = { result?: any; status: any };

/** One raw JSON request to the fake, as a test writes it by hand; the status and parsed body. */
export async function callFake(
  fake: FakeQdrant,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Reply }> {
  const res = await fetch(`${fake.url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Reply };
}

export async function startFakeQdrant(
  spec: OpenApiSpec,
  opts: { apiKey?: string } = {},
): Promise<FakeQdrant> {
  const collections = new Map<string, Collection>();
  let version = 0;
  const fake: Omit<FakeQdrant, "url" | "stop"> = {
    collections,
    requests: [],
    violations: [],
    unsupported: [],
  };

  const need = (name: string): Collection => {
    const c = collections.get(name);
    if (!c) throw new HttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return c;
  };
  const unsupported = (what: string): never => {
    throw new Unsupported(what);
  };

  const updated = () => ({ operation_id: ++version, status: "completed" });

  // The body has just been validated against the spec for this operation.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  function handle(opId: string, params: Record<string, string>, body: any): unknown {
    const name = params.collection_name ?? "";
    switch (opId) {
      case "collection_exists":
        return { exists: collections.has(name) };
      case "create_collection": {
        if (collections.has(name))
          throw new HttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
        collections.set(name, createCollection(body));
        return true;
      }
      case "update_collection":
        updateCollection(need(name), body);
        return true;
      case "delete_collection":
        return collections.delete(name);
      case "get_collection":
        return collectionInfo(need(name));
      case "create_field_index": {
        const schema = body.field_schema;
        need(name).payloadSchema[body.field_name] =
          typeof schema === "string" ? schema : schema?.type;
        return updated();
      }
      case "upsert_points": {
        const c = need(name);
        if (!Array.isArray(body.points)) return unsupported("batch upserts");
        for (const p of body.points) {
          const vectors: Point["vectors"] = {};
          const given = Array.isArray(p.vector) ? { "": p.vector } : p.vector;
          for (const [vname, v] of Object.entries(given as Record<string, unknown>)) {
            if (c.dense[vname] && Array.isArray(v)) {
              if (v.length !== c.dense[vname].size)
                throw new HttpError(
                  400,
                  `Wrong input: Vector dimension error: expected dim: ${c.dense[vname].size}, got ${v.length}`,
                );
              vectors[vname] = unit(v as number[]);
            } else if (c.sparse[vname] && v && typeof v === "object") vectors[vname] = v as Sparse;
            else throw new HttpError(400, `Wrong input: Not existing vector name error: ${vname}`);
          }
          c.points.set(String(p.id), { id: p.id, vectors, payload: p.payload ?? {}, version });
        }
        return updated();
      }
      case "delete_points": {
        const c = need(name);
        if (Array.isArray(body.points)) for (const id of body.points) c.points.delete(String(id));
        else for (const [id, p] of c.points) if (passes(p, body.filter)) c.points.delete(id);
        return updated();
      }
      case "count_points": {
        const c = need(name);
        return { count: [...c.points.values()].filter((p) => passes(p, body?.filter)).length };
      }
      case "query_points":
        return query(need(name), body);
      case "get_points":
        return getPoints(need(name), body);
      default:
        return unsupported(`operation ${opId}`);
    }
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const route = spec.match(req.method ?? "GET", url.pathname);
    let body: unknown;
    const send = (status: number, payload: unknown) => {
      if (route) {
        const v = spec.validateResponse(route.op, status, payload);
        if (v) fake.violations.push(v);
      }
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
    };
    const fail = (status: number, error: string) => send(status, { status: { error }, time: 0 });
    fake.requests.push({
      method: req.method ?? "",
      path: url.pathname,
      query: url.search,
      operationId: route?.op.operationId,
      body: undefined,
    });
    if (!route) return fail(404, `fake-qdrant: no such endpoint ${req.method} ${url.pathname}`);
    if (opts.apiKey !== undefined && req.headers["api-key"] !== opts.apiKey)
      return fail(401, "Invalid api-key");
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      return fail(400, "Format error in JSON body");
    }
    fake.requests[fake.requests.length - 1]!.body = body;
    const violation =
      spec.validateQuery(route.op, url.searchParams) ??
      (route.op.hasJsonBody || body !== undefined
        ? spec.validateRequest(route.op, body)
        : undefined);
    if (violation) {
      fake.violations.push(violation);
      return fail(400, `Format error: ${JSON.stringify(violation.errors)}`);
    }
    try {
      send(200, {
        result: handle(route.op.operationId, route.params, body),
        status: "ok",
        time: 0.0001,
      });
    } catch (err) {
      if (err instanceof Unsupported) fake.unsupported.push(err.what);
      if (err instanceof HttpError) return fail(err.status, err.message);
      throw err;
    }
  }

  const server: Server = createServer((req, res) => {
    onRequest(req, res).catch((err: unknown) => {
      fake.unsupported.push(`crash: ${String(err)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...fake,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
