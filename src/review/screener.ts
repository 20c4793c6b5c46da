/**
 * Screening prioritisation for systematic reviews (the `review_screen` tool): which undecided
 * records the reviewer should see next.
 *
 * Until the reviewer has made at least one include and one exclude, records are ranked by their
 * relevance to the review's question and criteria (BM25, normalised to [0, 1] by the best score),
 * pulled towards the records already included if there are some. From then on an L2-regularised
 * logistic regression over the record features of src/review/features.ts, trained on every
 * decision so far with the two classes weighted equally, ranks them by its probability of
 * inclusion (active learning with certainty queries). The question and criteria join the training
 * set as one pseudo-included record, so they keep a say while few records are included.
 *
 * Training is full-batch Nesterov gradient descent on the features the decided records use,
 * warm-started from the previous weights, so a retrain after a few more decisions is a few
 * milliseconds (bench/screening-sim.ts measures it: 5,000 records, 500 decisions).
 * The stopping rule is in src/review/stop.ts.
 */
import { FeatureSpace, dot, type ScreenDoc, type Sparse } from "./features.js";

export type { ScreenDoc } from "./features.js";
export { stopDecision } from "./stop.js";

export interface ScreenerOptions {
  /** L2 strength against a loss whose sample weights sum to 1. */
  lambda?: number;
  /** The question's pseudo-record counts as this many included records (0: not used). */
  questionWeight?: number;
  /** Gradient steps for a cold start, and after new decisions (warm start). */
  coldSteps?: number;
  warmSteps?: number;
}

/**
 * λ was chosen leave-one-topic-out on Cohen et al.'s five topics (`bench/screening-sim.ts
 * --tune`, a decade grid 0.0003–0.03): every fold picked 0.0003, and WSS@95 moved by ≤ 0.02 across
 * the grid. The step counts are what converges from cold and tracks a few new decisions warm.
 */
export const SCREENER_DEFAULTS: Required<ScreenerOptions> = {
  lambda: 0.0003,
  questionWeight: 1,
  coldSteps: 60,
  warmSteps: 25,
};

export interface Ranked {
  ranked: { id: string; score: number }[];
  mode: "relevance" | "model";
}

export class Screener {
  private readonly space = new FeatureSpace();
  private readonly ids: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly options: Required<ScreenerOptions>;
  private readonly prompt: string;
  private theta = new Float64Array(0);
  private look = new Float64Array(0);
  private grad = new Float64Array(0);
  private seen = new Uint8Array(0);
  private bias = 0;
  private trained = false;
  private lastLabels = new Map<string, boolean>();
  private lastSize = -1;

  constructor(question: string, criteria: string, options: ScreenerOptions = {}) {
    this.prompt = `${question}\n${criteria}`.trim();
    this.options = { ...SCREENER_DEFAULTS, ...options };
  }

  /** Featurizes and adds documents (incremental: may be called again with more). */
  add(docs: readonly ScreenDoc[]): void {
    for (const doc of docs) {
      if (this.index.has(doc.id)) continue;
      this.index.set(doc.id, this.ids.length);
      this.ids.push(doc.id);
      this.space.add(doc);
    }
  }

  get size(): number {
    return this.ids.length;
  }

  /**
   * The undecided documents (ids not in `labels`), best first, at most `limit`, with a score in
   * [0,1]. Retrains when labels (or the documents) changed since the last call.
   */
  rank(labels: ReadonlyMap<string, boolean>, limit: number): Ranked {
    const known = [...labels].filter(([id]) => this.index.has(id));
    const hasBoth = known.some(([, y]) => y) && known.some(([, y]) => !y);
    const scores = hasBoth ? this.modelScores(known, labels) : this.relevanceScores(known);
    const ranked: { id: string; score: number }[] = [];
    this.ids.forEach((id, i) => {
      if (!labels.has(id)) ranked.push({ id, score: scores[i] as number });
    });
    // Ties (no question, nothing decided) keep the order the records were added in.
    ranked.sort((a, b) => b.score - a.score);
    return { ranked: ranked.slice(0, Math.max(0, limit)), mode: hasBoth ? "model" : "relevance" };
  }

  /** BM25 to the question, averaged with cosine to the included records' centroid if any. */
  private relevanceScores(known: [string, boolean][]): Float64Array {
    const scores = normalise(this.space.relevance(this.prompt));
    const included = known.filter(([, y]) => y).map(([id]) => this.index.get(id) as number);
    if (included.length === 0) return scores;
    const vectors = this.space.vectors();
    const centroid = new Float64Array(this.space.dimension);
    for (const i of included) addTo(centroid, vectors[i] as Sparse, 1 / included.length);
    const similar = normalise(Float64Array.from(vectors, (x) => dot(x, centroid)));
    const hasPrompt = scores.some((s) => s > 0);
    return similar.map((s, i) => (hasPrompt ? (s + (scores[i] as number)) / 2 : s));
  }

  private modelScores(known: [string, boolean][], labels: ReadonlyMap<string, boolean>) {
    const vectors = this.space.vectors();
    if (this.changed(labels)) {
      const examples = known.map(([id, y]) => ({ x: vectors[this.index.get(id) as number], y }));
      const prompt = this.space.textVector(this.prompt);
      const weight = this.options.questionWeight;
      const extra = prompt.idx.length > 0 && weight > 0 ? [{ x: prompt, y: true, weight }] : [];
      this.train([...examples.map((e) => ({ x: e.x as Sparse, y: e.y, weight: 1 })), ...extra]);
      this.lastLabels = new Map(labels);
      this.lastSize = this.size;
    }
    return Float64Array.from(vectors, (x) => sigmoid(dot(x, this.theta) + this.bias));
  }

  private changed(labels: ReadonlyMap<string, boolean>): boolean {
    if (!this.trained || this.lastSize !== this.size) return true;
    if (labels.size !== this.lastLabels.size) return true;
    for (const [id, y] of labels) if (this.lastLabels.get(id) !== y) return true;
    return false;
  }

  /**
   * Minimises Σ c_i·log(1 + e^(−y_i·(θ·x_i + b))) + λ/2·‖θ‖², c_i = w_i / (2·W_class(i)), by
   * Nesterov's accelerated gradient with step 1/L, L = 0.25·(‖x‖² + 1) + λ = 0.5 + λ (‖x‖ ≤ 1).
   */
  private train(examples: { x: Sparse; y: boolean; weight: number }[]): void {
    const { lambda } = this.options;
    this.grow(this.space.dimension);
    const classWeight = { pos: 0, neg: 0 };
    for (const e of examples) classWeight[e.y ? "pos" : "neg"] += e.weight;
    const signedC = Float64Array.from(
      examples,
      (e) => ((e.y ? 1 : -1) * e.weight) / (2 * classWeight[e.y ? "pos" : "neg"]),
    );
    const xs = examples.map((e) => e.x);
    const active = activeFeatures(xs, this.seen);
    const steps = this.trained ? this.options.warmSteps : this.options.coldSteps;
    const eta = 1 / (0.5 + lambda);
    const { theta, look, grad } = this;
    const prev = Float64Array.from(active, (f) => theta[f] as number);
    let prevBias = this.bias;
    for (let t = 0; t < steps; t++) {
      const momentum = t / (t + 3);
      // The look-ahead point θ + momentum·(θ − θ_prev), where the gradient is taken.
      for (let k = 0; k < active.length; k++) {
        const f = active[k] as number;
        const th = theta[f] as number;
        const y = th + momentum * (th - (prev[k] as number));
        look[f] = y;
        grad[f] = lambda * y;
      }
      const lookBias = this.bias + momentum * (this.bias - prevBias);
      let gradBias = 0;
      for (let i = 0; i < xs.length; i++) {
        const c = signedC[i] as number;
        const x = xs[i] as Sparse;
        // d/dz of c·log(1 + e^(−s·z)) is −c·s·σ(−s·z), c carrying the sign s here.
        const g = -c * sigmoid((c > 0 ? -1 : 1) * (dot(x, look) + lookBias));
        gradBias += g;
        addTo(grad, x, g);
      }
      for (let k = 0; k < active.length; k++) {
        const f = active[k] as number;
        prev[k] = theta[f] as number;
        theta[f] = (look[f] as number) - eta * (grad[f] as number);
      }
      prevBias = this.bias;
      this.bias = lookBias - eta * gradBias;
    }
    this.trained = true;
  }

  /** Grows the weights and their scratch buffers to `dimension` features (kept between calls). */
  private grow(dimension: number): void {
    if (this.theta.length >= dimension) return;
    const size = Math.max(dimension, Math.ceil(this.theta.length * 1.5));
    const theta = new Float64Array(size);
    theta.set(this.theta);
    this.theta = theta;
    this.look = new Float64Array(size);
    this.grad = new Float64Array(size);
    this.seen = new Uint8Array(size);
  }
}

/** The features any of `xs` uses, each once (`seen` is scratch, all zero on return). */
function activeFeatures(xs: readonly Sparse[], seen: Uint8Array): Int32Array {
  const out: number[] = [];
  for (const x of xs) {
    for (const f of x.idx) {
      if (seen[f] === 0) {
        seen[f] = 1;
        out.push(f);
      }
    }
  }
  for (const f of out) seen[f] = 0;
  return Int32Array.from(out);
}

function addTo(dense: Float64Array, x: Sparse, scale: number): void {
  for (let k = 0; k < x.idx.length; k++) {
    const f = x.idx[k] as number;
    dense[f] = (dense[f] as number) + scale * (x.val[k] as number);
  }
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** Divides by the maximum (all zeros stay zeros), so scores are in [0, 1]. */
function normalise(scores: Float64Array): Float64Array {
  let max = 0;
  for (const s of scores) max = Math.max(max, s);
  return max > 0 ? scores.map((s) => s / max) : scores;
}
