/**
 * Offline simulation of screening prioritisation and of the stopping rule (pure, in-process, no
 * MCP): `npx tsx bench/screening-sim.ts [folder] [--seeds 5] [--batches 1,10] [--tune] [--latency]`
 * over the labelled topics of /work/shared/screening (README there: protocol and metrics).
 *
 * For every topic, seed and batch size it screens the whole topic three ways from the same two
 * prior records: the Screener with the topic's question, the Screener with an empty question,
 * and the baseline (TF-IDF + naive Bayes, bench/lib/screening-metrics.ts). It prints per topic,
 * averaged over seeds: WSS@95, recall after 10/20/30 % screened, and for the stopping rule the
 * records screened at the first "stop", the recall there and its ratio to the ideal stop (the
 * records screened when 95 % recall was reached). `--tune` chooses λ leave-one-topic-out (the
 * only tuned constant of the model; block weights and step counts are set by principle); `--stop`
 * chooses the stopping rule's ω (src/review/stop.ts) leave-one-topic-out and prints, per held-out
 * topic and batch size, the stop point, recall there (mean, min) and its ratio to the ideal;
 * `--latency` times `rank` on 5,000 records (the topics repeated, so every feature is in at least
 * two records: the pessimistic case for src/review/features.ts's MIN_DF) with 500–700 decisions.
 */
import { performance } from "node:perf_hooks";
import { Screener, type ScreenerOptions } from "../src/review/screener.js";
import { STOP_RULE, stopDecision } from "../src/review/stop.js";
import { DEFAULT_SCREENING_DIR, readTopics, type ScreeningTopic } from "./lib/screening-data.js";
import {
  NaiveBayesRanker,
  leaveOneTopicOut,
  mean,
  orderMetrics,
  percentile,
  simulate,
  stopOutcome,
  type OrderMetrics,
  type RankerLike,
  type SimulationRun,
  type StopTrial,
} from "./lib/screening-metrics.js";

export * from "./lib/screening-metrics.js";

/**
 * The review questions of the simulation, written from the topic names alone (the CSVs carry
 * none), as a reviewer would state them in a line, without looking at the records.
 */
export const QUESTIONS: Record<string, { question: string; criteria: string }> = {
  ADHD: {
    question: "Efficacy and safety of ADHD drugs (stimulants, atomoxetine) in children and adults",
    criteria: "Randomised controlled trials of drugs for attention deficit hyperactivity disorder",
  },
  Antihistamines: {
    question: "Comparative efficacy and safety of newer oral antihistamines",
    criteria: "Trials in allergic rhinitis or urticaria comparing second-generation antihistamines",
  },
  NSAIDS: {
    question: "Efficacy and safety of nonsteroidal anti-inflammatory drugs and COX-2 inhibitors",
    criteria: "Trials in arthritis or pain; gastrointestinal and cardiovascular adverse events",
  },
  Triptans: {
    question: "Comparative efficacy and tolerability of triptans for acute migraine",
    criteria: "Randomised trials of sumatriptan, rizatriptan, zolmitriptan and other triptans",
  },
  UrinaryIncontinence: {
    question: "Drugs for overactive bladder and urge urinary incontinence",
    criteria: "Trials of oxybutynin, tolterodine and other antimuscarinic drugs",
  },
};

export type Method = "ours" | "ours (no question)" | "baseline";

export interface TopicResult extends OrderMetrics {
  topic: string;
  method: Method;
  batch: number;
  seed: number;
}

export function makeRanker(
  method: Method,
  topic: ScreeningTopic,
  options?: ScreenerOptions,
): RankerLike {
  if (method === "baseline") return new NaiveBayesRanker(topic.docs);
  const q = method === "ours" ? QUESTIONS[topic.name] : undefined;
  const screener = new Screener(q?.question ?? "", q?.criteria ?? "", options);
  screener.add(topic.docs);
  return screener;
}

export function evaluate(
  run: SimulationRun,
  every: number,
): Omit<TopicResult, "topic" | "method" | "batch" | "seed"> {
  return orderMetrics(run.order, stopOutcome(run.order, stopDecision, every));
}

export function runAll(
  topics: readonly ScreeningTopic[],
  methods: readonly Method[],
  seeds: readonly number[],
  batches: readonly number[],
  options?: ScreenerOptions,
): TopicResult[] {
  const out: TopicResult[] = [];
  for (const topic of topics) {
    for (const method of methods) {
      for (const batch of batches) {
        for (const seed of seeds) {
          const run = simulate(topic, makeRanker(method, topic, options), { seed, batch });
          out.push({ topic: topic.name, method, batch, seed, ...evaluate(run, batch) });
        }
      }
    }
  }
  return out;
}

function table(results: readonly TopicResult[]): string {
  const head =
    "| topic | method | batch | WSS@95 | R@10% | R@20% | R@30% | stop screened | recall at stop | min recall at stop | stop ÷ ideal |";
  const lines = [head, "|" + " --- |".repeat(11)];
  const groups = new Map<string, TopicResult[]>();
  for (const r of results) {
    const key = `${r.topic}\t${r.method}\t${r.batch}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const row = (label: string[], rs: readonly TopicResult[]): string => {
    const m = (f: (r: TopicResult) => number, d = 1): string => mean(rs.map(f)).toFixed(d);
    const minRecall = Math.min(...rs.map((r) => r.stopRecall)).toFixed(0);
    return `| ${label.join(" | ")} | ${m((r) => r.wss95, 3)} | ${m((r) => r.recall10)} | ${m((r) => r.recall20)} | ${m((r) => r.recall30)} | ${m((r) => r.stopScreened, 0)} | ${m((r) => r.stopRecall)} | ${minRecall} | ${m((r) => r.stopRatio, 2)} |`;
  };
  for (const [key, rs] of groups) lines.push(row(key.split("\t"), rs));
  const byMethod = new Map<string, TopicResult[]>();
  for (const r of results) {
    const key = `${r.method}\t${r.batch}`;
    byMethod.set(key, [...(byMethod.get(key) ?? []), r]);
  }
  for (const [key, rs] of byMethod) lines.push(row(["**mean**", ...key.split("\t")], rs));
  return lines.join("\n");
}

/** λ candidates for --tune, a decade apart around the default (no finer search: no overfitting). */
const LAMBDAS = [0.0003, 0.001, 0.003, 0.01, 0.03];

/** Leave-one-topic-out: for each topic, the λ best on the other four, then its WSS on the one left out. */
function tune(topics: readonly ScreeningTopic[], seeds: readonly number[]): void {
  const wss = new Map<number, Map<string, number>>();
  for (const lambda of LAMBDAS) {
    const rs = runAll(topics, ["ours"], seeds, [10], { lambda });
    wss.set(
      lambda,
      new Map(
        topics.map((t) => [t.name, mean(rs.filter((r) => r.topic === t.name).map((r) => r.wss95))]),
      ),
    );
    console.error(
      `λ ${lambda}: ${[...(wss.get(lambda) as Map<string, number>)].map(([t, w]) => `${t} ${w.toFixed(3)}`).join(", ")}`,
    );
  }
  const heldOut: number[] = [];
  for (const t of topics) {
    const others = (lambda: number): number =>
      mean(topics.filter((o) => o !== t).map((o) => wss.get(lambda)?.get(o.name) ?? NaN));
    const best = LAMBDAS.reduce((a, b) => (others(b) > others(a) ? b : a));
    const w = wss.get(best)?.get(t.name) ?? NaN;
    heldOut.push(w);
    console.log(`held out ${t.name}: λ ${best} chosen on the others, WSS@95 ${w.toFixed(3)}`);
  }
  console.log(`leave-one-topic-out mean WSS@95: ${mean(heldOut).toFixed(3)}`);
}

/** ω candidates for --stop, most cautious first (1: Callaghan & Müller-Hansen's own test). */
const ODDS_RATIOS = [1, 2, 4, 8, 16, 32];

/**
 * The stopping rule's ω, leave-one-topic-out: the boldest value safe on the other four topics,
 * one step back (src/review/stop.ts says why); the held-out figures, then every ω in-sample.
 */
function stopStudy(topics: readonly ScreeningTopic[], seeds: readonly number[], batches: number[]) {
  const trials: (StopTrial & { batch: number })[] = [];
  for (const topic of topics) {
    for (const batch of batches) {
      for (const seed of seeds) {
        const { order } = simulate(topic, makeRanker("ours", topic), { seed, batch });
        trials.push({ topic: topic.name, order, every: batch, batch });
      }
    }
  }
  const ruleFor = (oddsRatio: number) => (included: readonly boolean[], total: number) =>
    stopDecision(included, total, { ...STOP_RULE, oddsRatio });
  const heldOut = leaveOneTopicOut(trials, ODDS_RATIOS, ruleFor, 1);
  console.log(
    "| held-out topic | ω | batch | stop screened | recall at stop | min recall | stop ÷ ideal |",
  );
  console.log("|" + " --- |".repeat(7));
  const ratios: number[] = [];
  for (const h of heldOut) {
    const mine = trials.filter((t) => t.topic === h.topic);
    for (const batch of batches) {
      const os = h.outcomes.filter((_, i) => mine[i]?.batch === batch);
      ratios.push(...os.map((o) => o.ratioToIdeal));
      const m = (f: (o: (typeof os)[number]) => number, d = 1) => mean(os.map(f)).toFixed(d);
      const min = Math.min(...os.map((o) => o.recall)).toFixed(1);
      console.log(
        `| ${h.topic} | ${h.value} | ${batch} | ${m((o) => o.screened, 0)} | ${m((o) => o.recall)} | ${min} | ${m((o) => o.ratioToIdeal, 2)} |`,
      );
    }
  }
  console.log(`\nleave-one-topic-out mean stop ÷ ideal: ${mean(ratios).toFixed(2)}`);
  for (const omega of ODDS_RATIOS) {
    const os = trials.map((t) => stopOutcome(t.order, ruleFor(omega), t.every));
    const early = os.filter((o) => o.recall < 95 - 1e-9).length;
    const ratio = mean(os.map((o) => o.ratioToIdeal)).toFixed(2);
    console.log(
      `in-sample ω ${omega}: stop ÷ ideal ${ratio}, ${early} of ${os.length} runs stopped before 95 % recall`,
    );
  }
}

/** `rank` latency on `size` records (the topics repeated) with `decisions` decisions made. */
export function latency(
  topics: readonly ScreeningTopic[],
  size = 5000,
  decisions = 500,
  calls = 200,
): { p50: number; p99: number; cold: number } {
  const all = topics.flatMap((t) => t.docs.map((d, i) => ({ d, y: t.included[i] === true })));
  const docs = Array.from({ length: size }, (_, i) => {
    const { d, y } = all[i % all.length] as (typeof all)[number];
    return { doc: { ...d, id: `${d.id}#${Math.floor(i / all.length)}` }, y };
  });
  const truth = new Map(docs.map(({ doc, y }) => [doc.id, y]));
  const screener = new Screener("drug efficacy and safety", "randomised controlled trials");
  screener.add(docs.map((x) => x.doc));
  const labels = new Map<string, boolean>([
    [docs.find((x) => x.y)?.doc.id as string, true],
    [docs.find((x) => !x.y)?.doc.id as string, false],
  ]);
  const times: number[] = [];
  while (labels.size < decisions + calls) {
    const t0 = performance.now();
    const { ranked } = screener.rank(labels, 10);
    const ms = performance.now() - t0;
    if (labels.size >= decisions) times.push(ms);
    const next = labels.size < decisions ? ranked.slice(0, 10) : ranked.slice(0, 1);
    for (const { id } of next) labels.set(id, truth.get(id) === true);
  }
  const fresh = new Screener("drug efficacy and safety", "randomised controlled trials");
  fresh.add(docs.map((x) => x.doc));
  const t0 = performance.now();
  fresh.rank(labels, 10);
  return { p50: percentile(times, 50), p99: percentile(times, 99), cold: performance.now() - t0 };
}

function main(argv: string[]): void {
  const flag = (name: string, fallback: string): string => {
    const i = argv.indexOf(name);
    return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
  };
  const folder =
    argv.find((a, i) => !a.startsWith("--") && !argv[i - 1]?.startsWith("--")) ??
    DEFAULT_SCREENING_DIR;
  const topics = readTopics(folder);
  const seeds = Array.from({ length: Number(flag("--seeds", "5")) }, (_, i) => 1 + i);
  const batches = flag("--batches", "1,10").split(",").map(Number);
  if (argv.includes("--tune")) return tune(topics, seeds);
  if (argv.includes("--stop")) return stopStudy(topics, seeds, batches);
  if (!argv.includes("--latency")) {
    const methods = flag("--methods", "ours,ours (no question),baseline").split(",") as Method[];
    console.log(table(runAll(topics, methods, seeds, batches)));
  }
  const l = latency(topics);
  console.log(
    `\nrank latency, 5,000 records, 500–700 decisions, one new decision per call: p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms; a cold first rank with 700 decisions: ${l.cold.toFixed(1)} ms`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
