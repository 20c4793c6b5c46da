/**
 * When it is safe to stop screening: the hypothesis test of Callaghan & Müller-Hansen
 * ("Statistical stopping criteria for automated screening in systematic reviews", Systematic
 * Reviews 9:273, 2020), with Fisher's noncentral hypergeometric distribution in place of the
 * hypergeometric so the test credits the ranking with some, bounded, skill.
 *
 * With r includes found among s screened of N records, recall is below τ = STOP_RULE.target only
 * if at least m = ⌊r/τ⌋ + 1 − r includes are still unscreened. Take the last n records screened,
 * holding k includes, and the records never screened: an urn of N − s + n records that would hold
 * K = m + k includes. The paper assumes the n were drawn from that urn no better than at random
 * (hypergeometric); we assume an include was at most ω = STOP_RULE.oddsRatio times as likely (in
 * odds) as an exclude to be drawn (Fisher's noncentral hypergeometric, weight ω on includes; ω = 1
 * is the paper's test). Stopping is suggested when P(X ≤ k) < α = STOP_RULE.alpha for some window
 * n, i.e. so few includes among the last n screened are unlikely if m or more were left. Over the
 * windows with the same k the longest is the strongest evidence, so only the windows reaching back
 * to just after an include (and the whole history) are tested (the same stops as testing all).
 *
 * Constants: τ = 0.95 and α = 0.05 are the paper's. ω was set on Cohen et al.'s five topics by
 * `npx tsx bench/screening-sim.ts --stop` (seeds 1–5, batches 1 and 10, 50 runs): the boldest ω of
 * 1, 2, 4, 8, 16, 32 that never stopped before 95 % recall on any run is 8 (UrinaryIncontinence,
 * where five includes come after 60 excludes, fails from 10; the other topics allow 24 or more),
 * and ω is one step back from it, 4: a margin of 2. Chosen the same way leave-one-topic-out, no held-out
 * topic stopped before 95 % recall, at 2.07× the records of the ideal stop (95 % recall reached)
 * on average; without the step back, UrinaryIncontinence held out got ω = 16 and stopped at 82 %
 * recall. With ω = 4 the stop comes at 2.11× the ideal (ADHD 3.2, Antihistamines 1.5, NSAIDS 2.2,
 * Triptans 2.2, UrinaryIncontinence 1.4); the knee rule used before (slope ratio 20): 2.26×; the
 * paper's test (ω = 1): 2.72×; ω = 8: 1.76×, safe only because UrinaryIncontinence was seen. ADHD
 * is the worst: 20 includes among 851 records leave the test a large pool to rule out.
 * The model's scores were measured as a signal (sum, maximum, recalibrated on recent batches) and
 * did not help: over the unscreened records they are flat (0.02–0.1) and drift down as excludes
 * accrue, in the same range whether includes remain or not, so the rule takes only the sequence.
 *
 * estimatedRemaining extrapolates the include rate of the most telling window, smoothed by half an
 * include ((k + ½) ÷ (n + 1)), over the records not yet screened.
 */

export interface StopRule {
  /** The recall the rule protects. */
  target: number;
  /** The test's significance level. */
  alpha: number;
  /** How much more likely (odds) an include than an exclude was to be screened, at most. */
  oddsRatio: number;
}

export const STOP_RULE: StopRule = { target: 0.95, alpha: 0.05, oddsRatio: 4 };

export interface StopDecision {
  stop: boolean;
  reason: string;
  estimatedRemaining: number;
}

const RULE_NAME = "the stopping test of Callaghan & Müller-Hansen (2020)";

export interface StopTest {
  /** The smallest P(X ≤ k) over the windows, and the window it came from. */
  p: number;
  window: number;
  includesInWindow: number;
  /** Includes that would have to be unscreened for recall to be below the target. */
  needed: number;
}

/** The test over the decisions in the order made (true = included); undefined with no include. */
export function stopTest(
  included: readonly boolean[],
  total: number,
  rule: StopRule = STOP_RULE,
): StopTest | undefined {
  const s = included.length;
  const found = included.filter(Boolean).length;
  if (found === 0) return undefined;
  const needed = Math.floor(found / rule.target + 1e-9) + 1 - found;
  const logFact = logFactorials(Math.max(total, s));
  let best: StopTest = { p: 1, window: 0, includesInWindow: 0, needed };
  // Windows: the last n records for n = s and for each n reaching back to just after an include.
  let k = 0;
  for (let i = s - 1; i >= -1; i--) {
    if (i >= 0 && !included[i]) continue;
    const n = s - 1 - i;
    if (n > 0) {
      const urn = total - s + n;
      const p = fisherCdf(k, urn, Math.min(needed + k, urn), n, rule.oddsRatio, logFact);
      if (p < best.p || best.window === 0) best = { p, window: n, includesInWindow: k, needed };
    }
    k++;
  }
  return best;
}

/** The stopping rule over the decisions in the order they were made (true = included). */
export function stopDecision(
  included: readonly boolean[],
  total: number,
  rule: StopRule = STOP_RULE,
): StopDecision {
  const s = included.length;
  const unscreened = Math.max(0, total - s);
  if (unscreened === 0) {
    const reason = `Every record has been screened: nothing is left for ${RULE_NAME} to weigh.`;
    return { stop: true, reason, estimatedRemaining: 0 };
  }
  const test = stopTest(included, total, rule);
  if (!test || test.window === 0) {
    return {
      stop: false,
      reason: `Not yet, by ${RULE_NAME}: it needs at least one included record to measure recall against.`,
      // Nothing to extrapolate from: at least the one include a review is presumed to have.
      estimatedRemaining: 1,
    };
  }
  const { p, window: n, includesInWindow: k, needed } = test;
  const estimatedRemaining = Math.round(((k + 0.5) / (n + 1)) * unscreened);
  const target = Math.round(rule.target * 100);
  const evidence =
    `the last ${n} record${n === 1 ? "" : "s"} screened (${k} include${k === 1 ? "" : "s"}), ` +
    `taken as drawn with ` +
    `includes at most ${rule.oddsRatio}× as likely as excludes`;
  if (p >= rule.alpha) {
    return {
      stop: false,
      reason:
        `Not yet, by ${RULE_NAME}: ${evidence}, do not rule out ${needed} or more includes ` +
        `remaining, which would put recall below ${target} % (p = ${p.toFixed(2)}, α = ${rule.alpha}).`,
      estimatedRemaining,
    };
  }
  return {
    stop: true,
    reason:
      `Stopping is suggested by ${RULE_NAME}: at α = ${rule.alpha}, ${evidence}, rule out ` +
      `${needed} or more includes remaining (p = ${p.toFixed(3)}), so recall is very likely ≥ ${target} %.`,
    estimatedRemaining,
  };
}

/**
 * P(X ≤ k) for Fisher's noncentral hypergeometric distribution: n drawn from an urn of `urn`
 * records, K of them includes, each include's odds of being drawn ω times an exclude's.
 */
export function fisherCdf(
  k: number,
  urn: number,
  K: number,
  n: number,
  omega: number,
  logFact: Float64Array = logFactorials(urn),
): number {
  const lo = Math.max(0, n - (urn - K));
  const hi = Math.min(n, K);
  if (k < lo) return 0;
  if (k >= hi) return 1;
  const logC = (a: number, b: number): number =>
    (logFact[a] as number) - (logFact[b] as number) - (logFact[a - b] as number);
  const logW: number[] = [];
  for (let x = lo; x <= hi; x++) {
    logW.push(logC(K, x) + logC(urn - K, n - x) + x * Math.log(omega));
  }
  const max = Math.max(...logW);
  let below = 0;
  let all = 0;
  logW.forEach((w, i) => {
    const e = Math.exp(w - max);
    all += e;
    if (lo + i <= k) below += e;
  });
  return below / all;
}

/** ln(i!) for i = 0..n. */
function logFactorials(n: number): Float64Array {
  const out = new Float64Array(n + 1);
  for (let i = 2; i <= n; i++) out[i] = (out[i - 1] as number) + Math.log(i);
  return out;
}
