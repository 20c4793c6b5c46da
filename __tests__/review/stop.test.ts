import { describe, expect, it } from "@jest/globals";
import { STOP_RULE, fisherCdf, stopDecision } from "../../src/review/stop.js";

const excludes = (n: number): boolean[] => Array<boolean>(n).fill(false);
const includes = (n: number): boolean[] => Array<boolean>(n).fill(true);

describe("stopDecision (Callaghan & Müller-Hansen's test, noncentral)", () => {
  it("never suggests stopping on a short history, and names the rule", () => {
    for (const included of [[], [true], [true, false, false], excludes(100)]) {
      const d = stopDecision(included, 1000);
      expect(d.stop).toBe(false);
      expect(d.reason).toMatch(/^Not yet, by the stopping test of Callaghan & Müller-Hansen/);
      expect(Number.isInteger(d.estimatedRemaining)).toBe(true);
      expect(d.estimatedRemaining).toBeGreaterThanOrEqual(1);
    }
    expect(stopDecision(excludes(100), 1000).reason).toMatch(/at least one included record/);
  });

  it("suggests stopping after enough excludes, not before", () => {
    const early = stopDecision([...includes(40), ...excludes(100)], 1000);
    expect(early.stop).toBe(false);
    expect(early.reason).toMatch(
      /last 100 records screened \(0 includes\).*do not rule out 3 or more/,
    );
    const later = stopDecision([...includes(40), ...excludes(400)], 1000);
    expect(later).toEqual({
      stop: true,
      reason: expect.stringMatching(
        /^Stopping is suggested by the stopping test of Callaghan & Müller-Hansen \(2020\): at α = 0\.05, the last 400 records screened \(0 includes\).*rule out 3 or more includes remaining \(p = 0\.0\d\d\), so recall is very likely ≥ 95 %\.$/,
      ),
      estimatedRemaining: 1,
    });
  });

  it("credits the ranking with ω: the paper's own test (ω = 1) does not stop there yet", () => {
    const history = [...includes(40), ...excludes(400)];
    expect(stopDecision(history, 1000, { ...STOP_RULE, oddsRatio: 1 }).stop).toBe(false);
  });

  it("does not stop while includes keep arriving, and estimates some remaining", () => {
    const steady = Array.from({ length: 400 }, (_, i) => i % 10 === 0);
    const d = stopDecision(steady, 1000);
    expect(d.stop).toBe(false);
    expect(d.estimatedRemaining).toBeGreaterThan(10);
  });

  it("stops when every record has been screened", () => {
    expect(stopDecision([true, false], 2)).toMatchObject({ stop: true, estimatedRemaining: 0 });
  });
});

describe("fisherCdf", () => {
  it("is the hypergeometric CDF at ω = 1, and matches scipy's nchypergeom_fisher", () => {
    // Two includes among 100, 50 drawn, none of them drawn: (50·49) / (100·99).
    expect(fisherCdf(0, 100, 2, 50, 1)).toBeCloseTo((50 * 49) / (100 * 99), 12);
    // scipy.stats.nchypergeom_fisher.cdf(3, 500, 10, 100, 4)
    expect(fisherCdf(3, 500, 10, 100, 4)).toBeCloseTo(0.18217200814, 9);
    expect(fisherCdf(10, 500, 10, 100, 4)).toBe(1);
  });
});
