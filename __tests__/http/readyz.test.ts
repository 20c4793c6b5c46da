/**
 * GET /readyz follows the registered readiness probes: 503 naming the failing check while a
 * dependency is stopped, 200 again once it is back; /health stays 200 throughout (liveness must
 * not depend on anything). The probe here is a switch the test flips; the real store probes are
 * registered by initProcess (src/worker/process.ts) and exercised by the corpus tests.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { StartingError, StoreError } from "../../src/errors.js";
import { checkReadiness } from "../../src/http/readiness.js";
import { getReadiness } from "../../src/worker/process.js";
import { startHttpHarness, type HttpHarness } from "./harness.js";

interface ReadyBody {
  status: string;
  checks: Record<string, { status: string; ms: number; error?: string }>;
}

describe("GET /readyz", () => {
  let h: HttpHarness;
  let real: Record<string, () => Promise<void>>;
  let up = true;

  beforeAll(async () => {
    h = await startHttpHarness();
    const probes = getReadiness();
    real = { ...probes };
    // Only the switchable probe: the real ones open stores, which is the corpus tests' business.
    for (const name of Object.keys(probes)) delete probes[name];
    probes.metadata_store = async () => {
      if (!up) throw new StoreError("Postgres is not answering (connection refused)");
    };
    probes.embedder = async () => undefined;
  });
  afterAll(() => h.close());

  const get = async (path: string) => {
    const res = await fetch(new URL(path, h.http.url));
    return { status: res.status, body: (await res.json()) as ReadyBody };
  };

  it("is 200 with every check up while the dependencies answer", async () => {
    const { status, body } = await get("/readyz");
    expect(status).toBe(200);
    expect(body).toEqual({
      status: "ready",
      checks: {
        metadata_store: { status: "up", ms: expect.any(Number) },
        embedder: { status: "up", ms: expect.any(Number) },
      },
    });
  });

  it("goes 503 naming the stopped dependency, and back to 200 when it returns", async () => {
    up = false;
    const down = await get("/readyz");
    expect(down.status).toBe(503);
    expect(down.body.status).toBe("not_ready");
    expect(down.body.checks.metadata_store).toEqual({
      status: "down",
      ms: expect.any(Number),
      error: "Postgres is not answering (connection refused)",
    });
    expect(down.body.checks.embedder?.status).toBe("up");
    expect((await get("/health")).status).toBe(200);

    up = true;
    const back = await get("/readyz");
    expect(back.status).toBe(200);
    expect(back.body.status).toBe("ready");
  });

  it("initProcess registers the metadata and vector store probes (no embedder by default)", () => {
    // EMBEDDINGS_PROVIDER defaults to none without COHERE_API_KEY: nothing to probe.
    expect(Object.keys(real).sort()).toEqual(["metadata_store", "vector_store"]);
  });
});

describe("checkReadiness", () => {
  it("marks a probe that hangs as down after the timeout instead of hanging /readyz", async () => {
    // The probe never settles: only the 100 ms timeout can produce this answer.
    const result = await checkReadiness({ stuck: () => new Promise(() => undefined) }, 100);
    expect(result).toEqual({
      status: "not_ready",
      checks: {
        stuck: { status: "down", ms: expect.any(Number), error: "no answer within 100 ms" },
      },
    });
  });

  it("never shows credentials or local paths from an unexpected error", async () => {
    const result = await checkReadiness({
      db: async () => {
        throw new Error(
          "connect to postgres://app:hunter2@db:5432/pubmed failed in /srv/app/dist/store/db.js",
        );
      },
    });
    const error = result.checks.db?.error ?? "";
    expect(error).not.toContain("hunter2");
    expect(error).not.toContain("/srv/app");
    expect(error).toContain("postgres://***@db:5432");
  });

  it("says starting while a dependency is still opening, and not_ready once one is down", async () => {
    const opening = async () => {
      throw new StartingError("starting: the corpus stores are opening");
    };
    const starting = await checkReadiness({ metadata_store: opening, embedder: async () => {} });
    expect(starting).toEqual({
      status: "starting",
      checks: {
        metadata_store: {
          status: "starting",
          ms: expect.any(Number),
          error: "starting: the corpus stores are opening",
        },
        embedder: { status: "up", ms: expect.any(Number) },
      },
    });
    const down = await checkReadiness({
      metadata_store: opening,
      embedder: async () => {
        throw new StoreError("down");
      },
    });
    expect(down.status).toBe("not_ready");
  });

  it("is ready with no probes registered", async () => {
    expect(await checkReadiness({})).toEqual({ status: "ready", checks: {} });
  });
});
