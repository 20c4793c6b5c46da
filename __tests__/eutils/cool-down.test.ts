/**
 * One long Retry-After must not stop the server: the cool-down is bounded (MAX_COOL_DOWN_MS), a
 * probe tests every PROBE_INTERVAL_MS whether NCBI is back, and a call that cannot start before its
 * deadline fails at once with RATE_LIMIT saying when NCBI accepts requests again. Real loopback
 * HTTP against the fake NCBI; the assertions are on outcomes and on what reached the fake, never on
 * how long anything took.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from "@jest/globals";
import { RateLimitError } from "../../src/errors.js";
import { EutilsClient } from "../../src/ncbi/client.js";
import {
  CoolDownError,
  MAX_COOL_DOWN_MS,
  PROBE_INTERVAL_MS,
  RateLimiter,
  setDeadline,
} from "../../src/net/limiter.js";
import { log } from "../../src/log.js";
import {
  onUtility,
  rateLimitReply,
  startFakeEutils,
  type FakeEutils,
} from "../helpers/fake-eutils.js";
import { ncbiConfig } from "../helpers/ncbi-config.js";
import { callTool, startHarness } from "../helpers/mcp.js";

jest.setTimeout(60_000);

const OK = "<eSearchResult><Count>1</Count><IdList><Id>31452104</Id></IdList></eSearchResult>";

let fake: FakeEutils;

function client(): EutilsClient {
  return new EutilsClient(ncbiConfig(fake.baseUrl), { backoffBaseMs: 10 });
}

/** A signal that aborts like a tool's deadline, registered with the limiter. */
function deadline(ms: number): AbortSignal {
  return setDeadline(AbortSignal.timeout(ms), performance.now() + ms);
}

const search = (c: EutilsClient, term: string, signal?: AbortSignal) =>
  c.request("esearch", { db: "pubmed", term }, { signal });

const savedLevel = log.level;
beforeAll(async () => {
  fake = await startFakeEutils({ routes: [onUtility("esearch", { body: OK })] });
  log.level = "error"; // the rate-limit warnings these tests provoke on purpose
});
beforeEach(() => fake.reset());
afterAll(async () => {
  log.level = savedLevel;
  await fake.close();
});

describe("the limiter's cool-down policy", () => {
  it("bounds a long Retry-After and fails a call at once when its deadline comes first", async () => {
    let now = 1_000;
    const limiter = new RateLimiter({ maxRps: 10, now: () => now });
    limiter.coolDown(3_600_000);
    expect(limiter.coolDownMs).toBe(MAX_COOL_DOWN_MS);
    // The next probe slot is PROBE_INTERVAL_MS away: a call due before it cannot start at all.
    const signal = new AbortController().signal;
    setDeadline(signal, now + PROBE_INTERVAL_MS - 1);
    const ran = jest.fn(async () => "sent");
    const err = await limiter.run(ran, signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoolDownError);
    expect((err as CoolDownError).waitMs).toBe(MAX_COOL_DOWN_MS);
    expect(ran).not.toHaveBeenCalled();
    // Once the probe slot has come, one call goes as the probe; a success ends the cool-down.
    now += PROBE_INTERVAL_MS;
    await expect(limiter.run(ran)).resolves.toBe("sent");
    limiter.accepted();
    expect(limiter.coolDownMs).toBe(0);
  });
});

describe("the client after a 429 with Retry-After: 3600", () => {
  it("probes NCBI before the cool-down ends and succeeds once NCBI is back", async () => {
    const c = client();
    fake.failNext(1, rateLimitReply(429, 3600));
    // A 6 s deadline: without probing this call would wait the whole cool-down and fail.
    await expect(search(c, "a", deadline(6_000))).resolves.toMatchObject({ body: OK });
    expect(fake.requests).toHaveLength(2);
    expect(c.info().queueSize).toBe(0);
    // The probe's success ended the cool-down for every later call.
    await expect(search(c, "b", deadline(1_000))).resolves.toMatchObject({ body: OK });
  });

  it("fails a call that cannot start before its deadline at once, with RATE_LIMIT and a time", async () => {
    const c = client();
    fake.failNext(1, rateLimitReply(429, 3600));
    // The first call gives up with the refusal (its own deadline is short too).
    const first = await search(c, "a", deadline(1_500)).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(RateLimitError);
    const sent = fake.requests.length;
    const err = await search(c, "b", deadline(1_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).message).toMatch(
      /accepts requests again at \d{4}-\d\d-\d\dT[\d:.]+Z \(in \d+ s\), after this call's deadline \(NCBI_DEADLINE_MS\), so nothing was sent/,
    );
    expect((err as RateLimitError).details).toMatchObject({
      retryAfterSeconds: expect.any(Number),
    });
    expect(fake.requests).toHaveLength(sent); // nothing more reached NCBI
  });
});

describe("through a live tool", () => {
  it("pubmed_spell answers RATE_LIMIT at once, not UPSTREAM at its deadline", async () => {
    const spellFake = await startFakeEutils({
      routes: [onUtility("espell", rateLimitReply(429, 3600))],
    });
    const h = await startHarness({
      fake: spellFake,
      env: { NCBI_DEADLINE_MS: "1000", NCBI_MAX_RETRIES: "4" }, // shorter than PROBE_INTERVAL_MS
    });
    try {
      const first = await callTool(h.client, "pubmed_spell", { query: "asthmaa" });
      expect(first.json).toMatchObject({ error: { code: "RATE_LIMIT" } });
      const sent = spellFake.requests.length;
      const second = await callTool(h.client, "pubmed_spell", { query: "childrn" });
      expect(second.isError).toBe(true);
      expect(second.json).toMatchObject({
        error: { code: "RATE_LIMIT", message: expect.stringMatching(/accepts requests again at/) },
      });
      expect(spellFake.requests).toHaveLength(sent);
    } finally {
      await h.close();
      await spellFake.close();
    }
  });
});
