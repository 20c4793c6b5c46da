/**
 * The demo's labelled review (src/devtools/demo-review.ts): labels that are the same on every
 * build of the corpus, a relevant minority whose titles and abstracts say so, a corpus whose
 * first records are the three-term demo's unchanged, and the walk-through run twice for real
 * (the server spawned over stdio, through tsx): each run starts clean, stops where the stopping
 * rule says with nearly every relevant record found, and leaves the diagram and the export.
 */
import { afterAll, describe, expect, it, jest } from "@jest/globals";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  REVIEW_QUESTION,
  REVIEW_TERM,
  type WalkthroughSummary,
  demoLabels,
  runReviewWalkthrough,
} from "../../src/devtools/demo-review.js";
import { demoCorpus } from "../../src/devtools/synth-ncbi.js";
import type { SynthRecord } from "../../src/devtools/synth.js";

jest.setTimeout(600_000);

const corpus = demoCorpus({ review: true });
const labels = demoLabels(corpus);
const text = (r: SynthRecord) =>
  `${r.title} ${r.abstract.map((s) => s.text).join(" ")}`.toLowerCase();

describe("the demo review's corpus and labels", () => {
  it("labels every record the search finds, the same way on every build, 8–12 % relevant", () => {
    expect([...labels.keys()]).toEqual(corpus.pmidsFor(REVIEW_TERM));
    expect(labels.size).toBe(400);
    expect([...demoLabels(demoCorpus({ review: true }))]).toEqual([...labels]);
    const share = [...labels.values()].filter(Boolean).length / labels.size;
    expect(share).toBeGreaterThanOrEqual(0.08);
    expect(share).toBeLessThanOrEqual(0.12);
  });

  it("keeps the three-term demo's records and links as they were", () => {
    const plain = demoCorpus();
    for (let i = 0; i < plain.size; i++) {
      const pmid = plain.pmidOf(i);
      expect(corpus.recordAt(i)).toEqual(plain.recordAt(i));
      expect(corpus.neighboursOf(pmid)).toEqual(plain.neighboursOf(pmid));
      expect(corpus.citedByOf(pmid)).toEqual(plain.citedByOf(pmid));
    }
  });

  it("gives relevant records text that answers the question, and the others not", () => {
    const words = [...new Set(REVIEW_QUESTION.toLowerCase().match(/[a-z0-9]{5,}/g))];
    const groups = [true, false].map((relevant) => {
      const records = corpus.records([...labels].filter(([, v]) => v === relevant).map(([k]) => k));
      const hits = records.map((r) => words.filter((w) => text(r).includes(w)).length);
      return {
        meanHits: hits.reduce((a, b) => a + b, 0) / hits.length,
        namePopulation: records.filter((r) => text(r).includes("physical inactivity")).length,
        size: records.length,
      };
    });
    const [relevant, other] = groups as [(typeof groups)[0], (typeof groups)[0]];
    expect(relevant.meanHits).toBeGreaterThan(3 * other.meanHits);
    expect(relevant.namePopulation).toBe(relevant.size);
    expect(other.namePopulation).toBe(0);
  });
});

describe("npm run demo -- --review", () => {
  const runs: { summary: WalkthroughSummary; lines: string[] }[] = [];
  afterAll(() => {
    for (const run of runs) rmSync(run.summary.dir, { recursive: true, force: true });
  });

  it("screens until stop is suggested, with recall at least 0.9, and writes its files; twice", async () => {
    for (let i = 0; i < 2; i++) {
      const lines: string[] = [];
      runs.push({
        summary: await runReviewWalkthrough({ env: process.env, print: (l) => lines.push(l) }),
        lines,
      });
    }
    const [first, second] = runs as [(typeof runs)[0], (typeof runs)[0]];
    const s = first.summary;
    const relevantPmids = [...labels].filter(([, v]) => v).map(([k]) => k);
    expect(s).toMatchObject({
      identified: 400,
      relevant: relevantPmids.length,
      stopSuggested: true,
      stopReason: expect.stringContaining("Callaghan & Müller-Hansen"),
    });
    expect(s.recall).toBeGreaterThanOrEqual(0.9);
    expect(s.screened).toBeLessThan(s.identified);
    expect(s.prisma).toMatchObject({
      identified: 400,
      duplicates_removed: 0,
      screened: s.screened,
      excluded_screening: s.screened - s.found,
      included: s.found,
    });
    expect(first.lines).toContainEqual(expect.stringMatching(/^\s+screened\s+included \//));
    expect(first.lines).toContainEqual(expect.stringMatching(/\s+yes$/));
    expect(first.lines).toContain(`PRISMA flow diagram: ${s.diagramPath}`);
    expect(first.lines).toContain(`included records (RIS): ${s.exportPath}`);

    const svg = readFileSync(s.diagramPath, "utf8");
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    const ris = readFileSync(s.exportPath, "utf8");
    const exported = [...ris.matchAll(/^AN {2}- (\d+)/gm)].map((m) => m[1]);
    expect(exported).toHaveLength(s.found);
    expect(relevantPmids).toEqual(expect.arrayContaining(exported));
    expect(existsSync(join(s.dir, "store"))).toBe(false);

    // A second run has its own folder and store, so it screens the same way from the start.
    expect(second.summary.dir).not.toBe(s.dir);
    const same = (x: WalkthroughSummary) => ({
      ...x,
      reviewId: 0,
      dir: 0,
      diagramPath: 0,
      exportPath: 0,
    });
    expect(same(second.summary)).toEqual(same(s));
  });
});
