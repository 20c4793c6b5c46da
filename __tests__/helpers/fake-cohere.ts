/**
 * A local stand-in for Cohere's v2 embed endpoint (POST /v2/embed), reached through
 * COHERE_BASE_URL. It checks the bearer key and the request shape the SDK sends
 * ({model, texts ≤ 96, input_type, embedding_types, output_dimension?, truncate?}) and answers in
 * Cohere's "embeddings_by_type" response shape with deterministic vectors, so tests can compare
 * results exactly. Tests script failures (status, body, headers) and delays per request, and read
 * every request back from `requests`.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { later } from "./fake-eutils.js";

export interface EmbedRequestBody {
  model: string;
  texts: string[];
  input_type: string;
  embedding_types?: string[];
  output_dimension?: number;
  truncate?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: EmbedRequestBody;
}

/** One scripted answer, used for the next request instead of a success. */
export interface Scripted {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (whatever the answer). */
  delayMs?: number;
}

export interface FakeCohere {
  url: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** Queue answers for the next requests, in order; when empty, requests succeed. */
  script(...answers: Scripted[]): void;
  stop(): Promise<void>;
}

const INPUT_TYPES = ["search_document", "search_query", "classification", "clustering", "image"];
const DEFAULT_DIMENSION: Record<string, number> = {
  "embed-v4.0": 1536,
  "embed-english-light-v3.0": 384,
};

/** The vector the fake returns for a text: a unit vector seeded by (input type, text). */
export function fakeVector(text: string, inputType: string, dimension: number): number[] {
  const seed = createHash("sha256").update(`${inputType}\u0000${text}`).digest();
  const v = Array.from({ length: dimension }, (_, i) => Math.sin(seed[i % 32]! * (i + 1)));
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / norm);
}

function problem(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return "body must be a JSON object";
  const b = body as Partial<EmbedRequestBody>;
  if (typeof b.model !== "string") return "model is required";
  if (!Array.isArray(b.texts) || b.texts.some((t) => typeof t !== "string")) {
    return "texts must be an array of strings";
  }
  if (b.texts.length === 0 || b.texts.length > 96) return "texts must hold 1 to 96 items";
  if (!INPUT_TYPES.includes(String(b.input_type))) return "invalid input_type";
  if (b.embedding_types !== undefined && !Array.isArray(b.embedding_types)) {
    return "embedding_types must be an array";
  }
  return undefined;
}

export async function startFakeCohere(apiKey = "co-test-key-0123456789"): Promise<FakeCohere> {
  const requests: RecordedRequest[] = [];
  const queue: Scripted[] = [];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = undefined;
      }
      requests.push({
        method: req.method ?? "",
        path: req.url ?? "",
        authorization: req.headers.authorization,
        body: body as EmbedRequestBody,
      });
      const scripted = queue.shift();
      const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        if (res.destroyed) return;
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(payload));
      };
      const respond = () => {
        if (req.method !== "POST" || req.url !== "/v2/embed") {
          return answer(404, { message: `no route for ${req.method} ${req.url}` });
        }
        if (scripted?.status) return answer(scripted.status, scripted.body ?? {}, scripted.headers);
        if (req.headers.authorization !== `Bearer ${apiKey}`) {
          return answer(401, { message: "invalid api token" });
        }
        const bad = problem(body);
        if (bad) return answer(400, { message: bad });
        const b = body as EmbedRequestBody;
        const dimension = b.output_dimension ?? DEFAULT_DIMENSION[b.model] ?? 1024;
        answer(200, {
          id: `fake-${requests.length}`,
          embeddings: { float: b.texts.map((t) => fakeVector(t, b.input_type, dimension)) },
          texts: b.texts,
          meta: {
            api_version: { version: "2" },
            billed_units: { input_tokens: b.texts.join(" ").split(/\s+/).length },
          },
          response_type: "embeddings_by_type",
        });
      };
      if (scripted?.delayMs) later(scripted.delayMs, res, respond);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    script: (...answers) => queue.push(...answers),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
