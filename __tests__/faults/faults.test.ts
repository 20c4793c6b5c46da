/**
 * NCBI faults × every live tool (and resource://pubmed/stats), through the real SDK client against
 * the fake NCBI answering every request with the fault (matrix.ts): each call ends, with the
 * fault's code and a message that says what to do. Nothing here times a call; how far past its
 * deadline each one ends is `npm run bench -- --only faults`.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { FakeEutils } from "../helpers/fake-eutils.js";
import { FAULTS, TARGETS, runCell, startFaultyNcbi, type Fault, type Target } from "./matrix.js";

// A cell takes milliseconds to NCBI_DEADLINE_MS (2 s); a loaded machine may take far longer.
jest.setTimeout(120_000);

/** Advice by code: how to get past the fault (retrying later, checking the setup, waiting). */
const ADVICE: Record<string, RegExp> = {
  RATE_LIMIT: /wait a few seconds|try again|NCBI_API_KEY/i,
  UPSTREAM: /try again|retry|check (the network|NCBI_EUTILS_BASE_URL)/i,
  // NCBI's own words say what was wrong with the request.
  ENTREZ: /reported.*: \S/,
};

/** Cells known to fall short, marked `it.failing` so a fix shows up here as a test to un-mark. */
const KNOWN_GAPS = new Set<string>([]);
const LONG_PAUSE = "429, Retry-After 3600 s";

let fake: FakeEutils;
beforeAll(async () => {
  fake = await startFaultyNcbi();
});
afterAll(async () => {
  await fake?.close();
});

async function check(fault: Fault, target: Target): Promise<void> {
  const out = await runCell(fake, target, fault);
  expect({ code: out.code, message: out.message }).toEqual({
    code: fault.code,
    message: expect.stringMatching(ADVICE[fault.code] ?? /./),
  });
  // Something reached NCBI, and the answer is not a stack trace or an internal path.
  expect(out.requests).toBeGreaterThan(0);
  expect(out.message).not.toMatch(/\bat .*\.(ts|js):\d+|\/work\/|node_modules/);
  // A hang ends by the call hanging up on NCBI (the deadline), never by NCBI answering.
  if (fault.ends === "deadline") expect(out.abandoned).toBe(out.requests);
  // After an hour's Retry-After the retry fails at once: one refusal per request the call made
  // (pubmed_trend asks once per year, in parallel), nothing more on the wire.
  if (fault.name === LONG_PAUSE) {
    expect(out.message).toMatch(/accepts requests again at .*so nothing was sent/);
    expect(out.requests).toBe(target.name === "pubmed_trend" ? 3 : 1);
  }
}

describe.each(FAULTS)("$name", (fault) => {
  for (const target of TARGETS) {
    const title = `${target.name} ends with ${fault.code}`;
    if (KNOWN_GAPS.has(`${fault.name} × ${target.name}`))
      it.failing(title, () => check(fault, target));
    else it(title, () => check(fault, target));
  }
});
