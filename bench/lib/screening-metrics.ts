/**
 * Screening-prioritisation metrics, the simulation loop and the reference baseline, shared by the
 * in-process simulation (bench/screening-sim.ts) and benches that drive `review_screen` over MCP.
 *
 * The protocol (/work/shared/screening/README.md): the reviewer's answer is label2; screening
 * starts from one included and one excluded record drawn with a fixed seed; the ranker proposes
 * the next `batch` records, the "reviewer" decides them, until every record is screened. The two
 * starting records count as screened. Metrics are computed from the decisions in the order made.
 */
import type { ScreenDoc } from "../../src/review/screener.js";

/** What a ranker must offer: the undecided records, best first (Screener's shape). */
export interface RankerLike {
  rank(labels: ReadonlyMap<string, boolean>, limit: number): { ranked: { id: string }[] };
}

export interface SimulationTopic {
  docs: readonly ScreenDoc[];
  included: readonly boolean[];
}

export interface SimulationOptions {
  seed: number;
  /** Records proposed per ranking (1 = retrain after every decision). */
  batch: number;
}

/** The decisions in the order made (true = included), starting with the two prior records. */
export interface SimulationRun {
  ids: string[];
  order: boolean[];
}

/** mulberry32: a small seeded generator in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One random included and one random excluded record (their indexes), from `seed`. */
export function priorRecords(included: readonly boolean[], seed: number): [number, number] {
  const random = seededRandom(seed);
  const pick = (want: boolean): number => {
    const pool = included.flatMap((y, i) => (y === want ? [i] : []));
    const i = pool[Math.floor(random() * pool.length)];
    if (i === undefined) throw new Error(`no ${want ? "included" : "excluded"} record`);
    return i;
  };
  return [pick(true), pick(false)];
}

/** Screens every record of `topic` in the order `ranker` proposes. */
export function simulate(
  topic: SimulationTopic,
  ranker: RankerLike,
  options: SimulationOptions,
): SimulationRun {
  const truth = new Map(topic.docs.map((d, i) => [d.id, topic.included[i] === true]));
  const labels = new Map<string, boolean>();
  const run: SimulationRun = { ids: [], order: [] };
  const decide = (id: string): void => {
    const y = truth.get(id) === true;
    labels.set(id, y);
    run.ids.push(id);
    run.order.push(y);
  };
  for (const i of priorRecords(topic.included, options.seed)) decide(topic.docs[i]?.id as string);
  while (labels.size < topic.docs.length) {
    const { ranked } = ranker.rank(labels, options.batch);
    if (ranked.length === 0) throw new Error("the ranker proposed nothing");
    for (const { id } of ranked) decide(id);
  }
  return run;
}

/** Records screened when `recall` of the included records had been found. */
export function screenedAtRecall(order: readonly boolean[], recall: number): number {
  const total = order.filter(Boolean).length;
  const needed = Math.ceil(recall * total - 1e-9);
  let found = 0;
  for (let i = 0; i < order.length; i++) if (order[i] && ++found >= needed) return i + 1;
  return order.length;
}

/** Work saved over sampling at 95 % recall: 1 − screened@95% ÷ records − 0.05. */
export function wss95(order: readonly boolean[]): number {
  return 1 - screenedAtRecall(order, 0.95) / order.length - 0.05;
}

/** Recall (%) after screening `fraction` of the records. */
export function recallAt(order: readonly boolean[], fraction: number): number {
  const n = Math.round(fraction * order.length);
  const found = order.slice(0, n).filter(Boolean).length;
  return (100 * found) / Math.max(1, order.filter(Boolean).length);
}

export type StopRule = (
  included: readonly boolean[],
  total: number,
) => { stop: boolean; estimatedRemaining: number };

export interface StopOutcome {
  /** Records screened when the rule first said stop (all records if never). */
  screened: number;
  /** Recall (%) at that point. */
  recall: number;
  /** screened ÷ screened at 95 % recall (the ideal stop). */
  ratioToIdeal: number;
}

/**
 * Asks `rule` after the two prior records and then after every `every` decisions, as
 * `review_screen` would after each batch; the first "stop" is the stop point.
 */
export function stopOutcome(order: readonly boolean[], rule: StopRule, every: number): StopOutcome {
  for (let s = 2; s < order.length; s += every) {
    if (rule(order.slice(0, s), order.length).stop) return stoppedAt(order, s);
  }
  return stoppedAt(order);
}

/** The figures of one screening order (recalls and stop recall in %). */
export interface OrderMetrics {
  wss95: number;
  recall10: number;
  recall20: number;
  recall30: number;
  stopScreened: number;
  stopRecall: number;
  stopRatio: number;
}

/** An order's figures, its stop where `stop` says (stopOutcome's, or the server's first stop). */
export function orderMetrics(order: readonly boolean[], stop: StopOutcome): OrderMetrics {
  return {
    wss95: wss95(order),
    recall10: recallAt(order, 0.1),
    recall20: recallAt(order, 0.2),
    recall30: recallAt(order, 0.3),
    stopScreened: stop.screened,
    stopRecall: stop.recall,
    stopRatio: stop.ratioToIdeal,
  };
}

/** The stop outcome of stopping after `screened` records (all of them when undefined). */
export function stoppedAt(order: readonly boolean[], screened = order.length): StopOutcome {
  const found = order.slice(0, screened).filter(Boolean).length;
  return {
    screened,
    recall: (100 * found) / Math.max(1, order.filter(Boolean).length),
    ratioToIdeal: screened / screenedAtRecall(order, 0.95),
  };
}

/** A screening run to judge stopping rules on: its decisions in order, and how often to ask. */
export interface StopTrial {
  topic: string;
  order: readonly boolean[];
  every: number;
}

export interface HeldOut {
  topic: string;
  /** The constant chosen on the other topics, and the outcomes of the held-out topic's trials. */
  value: number;
  outcomes: StopOutcome[];
}

/**
 * Leave-one-topic-out choice of a stopping rule's constant: for each topic, the boldest value of
 * `grid` (ordered most cautious first) that never stopped before 95 % recall on any trial of the
 * other topics, then `stepBack` values more cautious (a margin), judged on the held-out topic.
 */
export function leaveOneTopicOut(
  trials: readonly StopTrial[],
  grid: readonly number[],
  ruleFor: (value: number) => StopRule,
  stepBack: number,
): HeldOut[] {
  const outcomes = grid.map((v) => trials.map((t) => stopOutcome(t.order, ruleFor(v), t.every)));
  const topics = [...new Set(trials.map((t) => t.topic))];
  return topics.map((topic) => {
    const safe = (g: number): boolean =>
      trials.every((t, i) => t.topic === topic || (outcomes[g]?.[i]?.recall ?? 0) >= 95 - 1e-9);
    let boldest = 0;
    for (let g = 0; g < grid.length && safe(g); g++) boldest = g;
    const g = Math.max(0, boldest - stepBack);
    const mine = outcomes[g]?.filter((_, i) => trials[i]?.topic === topic) ?? [];
    return { topic, value: grid[g] as number, outcomes: mine };
  });
}

/**
 * The reference baseline (ASReview's default model of the README's figures): TF-IDF of title +
 * abstract as scikit-learn's TfidfVectorizer makes it by default (lower case, words of 2+ word
 * characters, raw tf, smoothed idf, L2 norm), multinomial naive Bayes with ASReview's α = 3.822,
 * ranked by the probability of inclusion; retrained from the labels at every call.
 */
export class NaiveBayesRanker implements RankerLike {
  static readonly ALPHA = 3.822;
  private readonly ids: string[];
  private readonly rows: { idx: number[]; val: number[] }[];
  private readonly dimension: number;

  constructor(
    docs: readonly ScreenDoc[],
    private readonly balance = true,
  ) {
    this.ids = docs.map((d) => d.id);
    const vocab = new Map<string, number>();
    const counts = docs.map((d) => {
      const tf = new Map<number, number>();
      for (const w of `${d.title} ${d.abstract}`.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? []) {
        let id = vocab.get(w);
        if (id === undefined) vocab.set(w, (id = vocab.size));
        tf.set(id, (tf.get(id) ?? 0) + 1);
      }
      return tf;
    });
    const df = new Float64Array(vocab.size);
    for (const tf of counts) for (const id of tf.keys()) df[id] = (df[id] as number) + 1;
    const n = docs.length;
    this.rows = counts.map((tf) => {
      const idx = [...tf.keys()];
      const val = idx.map(
        (id) => (tf.get(id) as number) * (Math.log((1 + n) / (1 + (df[id] as number))) + 1),
      );
      const norm = Math.sqrt(val.reduce((s, v) => s + v * v, 0)) || 1;
      return { idx, val: val.map((v) => v / norm) };
    });
    this.dimension = vocab.size;
  }

  rank(
    labels: ReadonlyMap<string, boolean>,
    limit: number,
  ): { ranked: { id: string; score: number }[] } {
    const sums = [new Float64Array(this.dimension), new Float64Array(this.dimension)] as const;
    const included = [...labels.values()].filter(Boolean).length;
    const excluded = labels.size - included;
    // Included records count nExcluded / nIncluded times each, as if resampled to balance
    // (ASReview's default balances its training set by resampling; without it NB saves nothing).
    const upweight = this.balance ? Math.max(1, excluded / Math.max(1, included)) : 1;
    this.ids.forEach((id, i) => {
      const y = labels.get(id);
      if (y === undefined) return;
      const row = this.rows[i] as { idx: number[]; val: number[] };
      const sum = y ? sums[1] : sums[0];
      const w = y ? upweight : 1;
      row.idx.forEach((f, k) => (sum[f] = (sum[f] as number) + w * (row.val[k] as number)));
    });
    const a = NaiveBayesRanker.ALPHA;
    const logp = sums.map((sum) => {
      const total = sum.reduce((s, v) => s + v, 0) + a * this.dimension;
      return sum.map((v) => Math.log((v + a) / total));
    });
    const prior = Math.log((included || 1) / (excluded || 1));
    const ranked: { id: string; score: number }[] = [];
    this.ids.forEach((id, i) => {
      if (labels.has(id)) return;
      const row = this.rows[i] as { idx: number[]; val: number[] };
      let z = prior;
      row.idx.forEach(
        (f, k) =>
          (z += (row.val[k] as number) * ((logp[1]?.[f] as number) - (logp[0]?.[f] as number))),
      );
      ranked.push({ id, score: 1 / (1 + Math.exp(-z)) });
    });
    ranked.sort((x, y) => y.score - x.score);
    return { ranked: ranked.slice(0, limit) };
  }
}

/** The mean of some numbers (NaN for none). */
export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** The p-th percentile (nearest rank) of some numbers. */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ??
    NaN
  );
}
