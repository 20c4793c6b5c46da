import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { EmbeddingsError } from "../../src/errors.js";
import { CohereEmbedder, type CohereEmbedderOptions } from "../../src/embeddings/cohere.js";
import { createEmbedder } from "../../src/embeddings/index.js";
import { fakeVector, startFakeCohere, type FakeCohere } from "../helpers/fake-cohere.js";
import { REPO_DIR } from "../helpers/shared.js";

const run = promisify(execFile);

let fake: FakeCohere;

beforeAll(async () => {
  fake = await startFakeCohere();
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  fake.requests.length = 0;
});

function embedder(opts: Partial<CohereEmbedderOptions> = {}): CohereEmbedder {
  return new CohereEmbedder({
    apiKey: fake.apiKey,
    baseUrl: fake.url,
    model: "embed-v4.0",
    retryBaseMs: 1,
    ...opts,
  });
}

/** A local port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `fn`, expects an EmbeddingsError, and checks the key never leaks into it. */
async function embeddingsError(fn: () => Promise<unknown>, key = fake.apiKey) {
  const err = await fn().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EmbeddingsError);
  const e = err as EmbeddingsError;
  expect(`${e.message} ${JSON.stringify(e.details)}`).not.toContain(key);
  return e;
}

describe("CohereEmbedder", () => {
  it("embeds 250 texts in 3 ordered requests of at most 96, as search_document", async () => {
    const texts = Array.from({ length: 250 }, (_, i) => `abstract number ${i}`);
    // A 384-number model keeps the 250 vectors cheap to ship through the fake.
    const e = embedder({ model: "embed-english-light-v3.0" });
    expect(e.dimension).toBe(384);
    const vectors = await e.embedDocuments(texts);
    expect(fake.requests.map((r) => r.body.texts.length).sort()).toEqual([58, 96, 96]);
    for (const r of fake.requests) {
      expect(r).toMatchObject({ method: "POST", path: "/v2/embed" });
      expect(r.authorization).toBe(`Bearer ${fake.apiKey}`);
      expect(r.body).toMatchObject({
        model: "embed-english-light-v3.0",
        input_type: "search_document",
        embedding_types: ["float"],
      });
      // output_dimension exists only for embed-v4 models.
      expect(r.body).not.toHaveProperty("output_dimension");
    }
    expect(vectors).toHaveLength(250);
    expect(vectors).toEqual(texts.map((t) => fakeVector(t, "search_document", 384)));
  });

  it("embeds queries as search_query and reports embed-v4.0's 1536 dimensions", async () => {
    const e = embedder();
    expect(e).toMatchObject({ provider: "cohere", model: "embed-v4.0", dimension: 1536 });
    const v = await e.embedQuery("statins and myopathy");
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body).toMatchObject({
      model: "embed-v4.0",
      input_type: "search_query",
      texts: ["statins and myopathy"],
      embedding_types: ["float"],
      output_dimension: 1536,
    });
    expect(v).toEqual(fakeVector("statins and myopathy", "search_query", 1536));
  });

  it("learns the size of a model it does not know from health()", async () => {
    const e = embedder({ model: "embed-custom-x" });
    expect(() => e.dimension).toThrow(EmbeddingsError);
    await e.health();
    expect(e.dimension).toBe(1024);
    expect(fake.requests[0]!.body).not.toHaveProperty("output_dimension");
    await e.health(); // cached: no second probe
    expect(fake.requests).toHaveLength(1);
  });

  it("retries 429 and 5xx with backoff, then succeeds", async () => {
    fake.script(
      { status: 429, body: { message: "too many requests" }, headers: { "retry-after": "0" } },
      { status: 500, body: { message: "internal" } },
      { status: 503, body: { message: "unavailable" } },
    );
    const v = await embedder().embedQuery("retry me");
    expect(fake.requests).toHaveLength(4);
    expect(v).toEqual(fakeVector("retry me", "search_query", 1536));
  });

  it("gives up after maxRetries with a message naming the status", async () => {
    fake.script(...Array.from({ length: 3 }, () => ({ status: 503, body: { message: "down" } })));
    const err = await embeddingsError(() => embedder({ maxRetries: 2 }).embedQuery("q"));
    expect(fake.requests).toHaveLength(3);
    expect(err.message).toMatch(/HTTP 503.*after 3 attempts/);
    expect(err.details).toMatchObject({ provider: "cohere", status: 503, attempts: 3 });
  });

  it("reports a rejected key without retrying and without printing it", async () => {
    const err = await embeddingsError(
      () => embedder({ apiKey: "co-wrong-secret-987" }).embedQuery("q"),
      "co-wrong-secret-987",
    );
    expect(fake.requests).toHaveLength(1);
    expect(err.message).toMatch(/^Cohere rejected COHERE_API_KEY \(HTTP 401\)/);
  });

  it("scrubs the key from upstream messages", async () => {
    fake.script({ status: 400, body: { message: `bad request for token ${fake.apiKey}` } });
    const err = await embeddingsError(() => embedder().embedQuery("q"));
    expect(err.message).toContain("[redacted]");
    expect(err.message).toMatch(/HTTP 400/);
    expect(fake.requests).toHaveLength(1);
  });

  it("times out slow requests, retries, then fails clearly", async () => {
    fake.script({ delayMs: 400 }, { delayMs: 400 });
    const err = await embeddingsError(() =>
      embedder({ timeoutMs: 100, maxRetries: 1 }).embedQuery("slow"),
    );
    expect(err.message).toMatch(/did not answer within 0.1 s.*after 2 attempts/);
    expect(fake.requests).toHaveLength(2);
  });

  it("says so when Cohere is unreachable", async () => {
    const closed = await closedPort();
    const err = await embeddingsError(() =>
      embedder({ baseUrl: `http://127.0.0.1:${closed}`, maxRetries: 1 }).embedQuery("q"),
    );
    expect(err.message).toMatch(/not reachable \(ECONNREFUSED\).*EMBEDDINGS_PROVIDER=none/);
    expect(err.details).toMatchObject({ status: null, attempts: 2 });
  });

  it("lets the process exit after a failed request (no SDK timer left behind)", async () => {
    // cohere-ai keeps a timer for the whole request timeout when fetch rejects; see cohere.ts.
    // That timeout is an hour here: a timer left behind keeps the child alive until `run` kills
    // it at 2 minutes (and rejects), far beyond what starting it takes on a loaded machine.
    const script = `
      import { CohereEmbedder } from ${JSON.stringify(join(REPO_DIR, "src/embeddings/cohere.ts"))};
      const e = new CohereEmbedder({ apiKey: "k", baseUrl: "http://127.0.0.1:" + process.argv[1],
        model: "embed-v4.0", maxRetries: 0, timeoutMs: 3600000 });
      await e.embedQuery("x").catch((err) => console.log(err.name));`;
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script, String(await closedPort())],
      { cwd: REPO_DIR, timeout: 120_000 },
    );
    expect(stdout.trim()).toBe("EmbeddingsError");
  }, 180_000);

  it("stops at once when the caller aborts", async () => {
    fake.script({ delayMs: 300 });
    const ac = new AbortController();
    const pending = embedder().embedDocuments(["a", "b"], ac.signal);
    setTimeout(() => ac.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(fake.requests).toHaveLength(1);
  });

  it("stops the other batches when one fails for good", async () => {
    fake.script({ status: 401, body: { message: "invalid api token" } });
    const texts = Array.from({ length: 96 * 5 }, (_, i) => `t${i}`);
    await embeddingsError(() => embedder({ concurrency: 1 }).embedDocuments(texts));
    expect(fake.requests).toHaveLength(1);
  });

  it("is what createEmbedder picks for provider cohere", () => {
    const e = createEmbedder({
      provider: "cohere",
      cohereApiKey: fake.apiKey,
      cohereBaseUrl: `${fake.url}/v2/`,
      cohereModel: "embed-v4.0",
    });
    expect(e).toBeInstanceOf(CohereEmbedder);
    expect(() =>
      createEmbedder({
        provider: "cohere",
        cohereApiKey: undefined,
        cohereBaseUrl: undefined,
        cohereModel: "embed-v4.0",
      }),
    ).toThrow(EmbeddingsError);
  });
});
