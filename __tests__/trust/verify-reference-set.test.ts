/**
 * The whole reference test set (src/devtools/reference-set.ts: the recorded PubMed records written
 * in six styles, with wrong years, pages, volumes and authors, and invented references) through
 * pubmed_verify_references and the official MCP client, against the stand-in PubMed serving those
 * records. The bench's references section runs the set of the default seed; this one draws another
 * seed, so the variants (identifiers given, wrong values, invented titles) differ from the ones the
 * parser was tuned on. The goals are the assertions.
 */
import { afterAll, beforeAll, expect, jest, test } from "@jest/globals";
import {
  fixturePubmedRoute,
  loadFixturePubmed,
  type FixturePubmed,
} from "../../src/devtools/fixture-pubmed.js";
import { buildReferenceSet, type ReferenceCase } from "../../src/devtools/reference-set.js";
import type { FakeRequest } from "../helpers/fake-eutils.js";
import { startHarness, type Harness } from "../helpers/mcp.js";
import { EUTILS_FIXTURES, describeShared } from "../helpers/shared.js";

jest.setTimeout(300_000);

interface Result {
  status: string;
  pmid?: string;
  differences: string[];
}

describeShared("the reference test set, another seed", () => {
  let pubmed: FixturePubmed;
  let h: Harness;
  let cases: ReferenceCase[];
  const results: Result[] = [];

  beforeAll(async () => {
    pubmed = loadFixturePubmed(EUTILS_FIXTURES);
    cases = buildReferenceSet(
      pubmed.records.map((r) => r.article),
      { seed: 4_242 },
    );
    const route = fixturePubmedRoute(pubmed);
    h = await startHarness({ routes: [(req: FakeRequest) => route(req)] });
    for (let i = 0; i < cases.length; i += 100) {
      const batch = cases.slice(i, i + 100);
      const res = await h.client.callTool({
        name: "pubmed_verify_references",
        arguments: { references: batch.map((c) => c.text) },
      });
      const out = JSON.parse((res.content as { text: string }[])[0]!.text) as {
        results: Result[];
      };
      expect(out.results).toHaveLength(batch.length);
      results.push(...out.results);
    }
  });
  afterAll(async () => {
    await h?.close();
  });

  const of = (kind: string) =>
    cases.flatMap((c, i) => (c.kind === kind ? [{ c, r: results[i]! }] : []));

  test("≥ 97 % of real references are verified with the right PMID, in every style", () => {
    const real = of("real");
    expect(real.length).toBeGreaterThan(600);
    for (const style of new Set(real.map(({ c }) => c.style))) {
      const mine = real.filter(({ c }) => c.style === style);
      const right = mine.filter(({ c, r }) => r.status === "verified" && r.pmid === c.expect.pmid);
      expect({ style, share: right.length / mine.length >= 0.97 }).toEqual({ style, share: true });
    }
  });

  test("no invented reference is verified", () => {
    const invented = of("fabricated");
    expect(invented.length).toBeGreaterThan(100);
    expect(invented.filter(({ r }) => r.status === "verified")).toEqual([]);
  });

  test("≥ 95 % of references with one wrong field are a mismatch naming it, with the right PMID", () => {
    const wrong = cases.flatMap((c, i) =>
      c.expect.status === "mismatch" ? [{ c, r: results[i]! }] : [],
    );
    expect(wrong.length).toBeGreaterThan(400);
    const named = wrong.filter(
      ({ c, r }) =>
        r.status === "mismatch" &&
        r.pmid === c.expect.pmid &&
        (c.expect.differences ?? []).every((f) => r.differences.includes(f)),
    );
    expect(named.length / wrong.length).toBeGreaterThanOrEqual(0.95);
  });

  test("≤ 1.5 NCBI requests per reference", () => {
    expect(h.fake.requests.length / cases.length).toBeLessThanOrEqual(1.5);
  });
});
