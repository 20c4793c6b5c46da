import { describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Screener, stopDecision, type ScreenDoc } from "../../src/review/screener.js";
import { readTopic } from "../../bench/lib/screening-data.js";
import { simulate, stopOutcome, wss95 } from "../../bench/lib/screening-metrics.js";
import { SHARED_DIR } from "../helpers/shared.js";

function doc(id: string, title: string, abstract = "", mesh: string[] = []): ScreenDoc {
  return { id, title, abstract, mesh, pubTypes: [] };
}

const DOCS: ScreenDoc[] = [
  doc("pmid:1", "Soil bacteria in alpine meadows", "Microbial diversity of meadow soil.", ["Soil"]),
  doc(
    "pmid:2",
    "Methylphenidate in children with ADHD: a randomised trial",
    "Stimulant efficacy.",
    ["Attention Deficit Disorder with Hyperactivity/drug therapy", "Methylphenidate"],
  ),
  doc("pmid:3", "Bridge engineering with steel cables", "Tension in suspension bridges."),
  doc("pmid:4", "Atomoxetine versus placebo for attention deficit hyperactivity disorder", "", [
    "Attention Deficit Disorder with Hyperactivity",
  ]),
  doc("pmid:5", "Coral reef bleaching and ocean temperature", "Reef decline.", ["Coral Reefs"]),
  doc("pmid:6", "Soil nitrogen cycling under grazing", "Meadow soil nitrogen.", ["Soil"]),
];

describe("Screener before the model can train", () => {
  it("ranks records matching the question above unrelated ones, scores in [0, 1]", () => {
    const screener = new Screener(
      "Drugs for attention deficit hyperactivity disorder (ADHD)",
      "randomised trials of stimulants",
    );
    screener.add(DOCS);
    const { ranked, mode } = screener.rank(new Map(), 10);
    expect(mode).toBe("relevance");
    expect(
      ranked
        .slice(0, 2)
        .map((r) => r.id)
        .sort(),
    ).toEqual(["pmid:2", "pmid:4"]);
    expect(ranked[0]?.score).toBe(1);
    for (const r of ranked) expect(r.score).toBeGreaterThanOrEqual(0);
  });

  it("with only includes, pulls towards them", () => {
    const screener = new Screener("", "");
    screener.add(DOCS);
    const { ranked, mode } = screener.rank(new Map([["pmid:1", true]]), 1);
    expect(mode).toBe("relevance");
    expect(ranked.map((r) => r.id)).toEqual(["pmid:6"]);
  });
});

describe("Screener with a model", () => {
  it("ranks records like the included ones first, leaving decided ones out", () => {
    const screener = new Screener("", "");
    screener.add(DOCS);
    const labels = new Map([
      ["pmid:2", true],
      ["pmid:3", false],
    ]);
    const { ranked, mode } = screener.rank(labels, 10);
    expect(mode).toBe("model");
    expect(ranked.map((r) => r.id)).toHaveLength(4);
    expect(ranked.map((r) => r.id)).not.toContain("pmid:2");
    expect(ranked[0]?.id).toBe("pmid:4");
    for (const r of ranked) {
      expect(r.score).toBeGreaterThan(0);
      expect(r.score).toBeLessThan(1);
    }
  });

  it("follows a changed decision (retrains) and honours the limit", () => {
    const screener = new Screener("", "");
    screener.add(DOCS);
    const first = screener.rank(
      new Map([
        ["pmid:2", true],
        ["pmid:1", false],
      ]),
      10,
    );
    expect(first.ranked[0]?.id).toBe("pmid:4");
    const flipped = screener.rank(
      new Map([
        ["pmid:2", false],
        ["pmid:1", true],
      ]),
      2,
    );
    expect(flipped.ranked).toHaveLength(2);
    expect(flipped.ranked[0]?.id).toBe("pmid:6");
  });

  it("adds incrementally: ids kept, duplicates ignored, new records ranked", () => {
    const screener = new Screener("ADHD drugs", "");
    screener.add(DOCS.slice(0, 3));
    expect(screener.size).toBe(3);
    screener.add([...DOCS.slice(2), DOCS[0] as ScreenDoc]);
    expect(screener.size).toBe(6);
    const labels = new Map([
      ["pmid:2", true],
      ["pmid:1", false],
    ]);
    const ids = screener.rank(labels, 10).ranked.map((r) => r.id);
    expect(ids.sort()).toEqual(["pmid:3", "pmid:4", "pmid:5", "pmid:6"]);
    expect(screener.rank(labels, 1).ranked[0]?.id).toBe("pmid:4");
  });
});

const TOPIC = join(SHARED_DIR, "screening", "UrinaryIncontinence.csv");
const HAS_TOPIC = existsSync(TOPIC);
if (!HAS_TOPIC)
  process.stderr.write(`note: skipping the screening simulation: ${TOPIC} is absent\n`);

(HAS_TOPIC ? describe : describe.skip)(
  "simulation on a labelled topic (bench/screening-sim.ts)",
  () => {
    it("saves work over random screening, and stops before the end but not before 95 % recall", () => {
      const topic = readTopic(TOPIC);
      const screener = new Screener(
        "Drugs for overactive bladder and urge urinary incontinence",
        "",
      );
      screener.add(topic.docs);
      const run = simulate(topic, screener, { seed: 1, batch: 10 });
      expect(run.order).toHaveLength(topic.docs.length);
      expect(wss95(run.order)).toBeGreaterThan(0.2);
      // The topic that bounds the stopping rule's ω (src/review/stop.ts): a late cluster of includes.
      const stop = stopOutcome(run.order, stopDecision, 10);
      expect(stop.recall).toBeGreaterThanOrEqual(95);
      expect(stop.screened).toBeLessThan(topic.docs.length);
    });
  },
);
