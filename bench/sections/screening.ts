/**
 * `--screening <folder>`: screening prioritisation and stopping through the review tools, on the
 * labelled topics of a folder of CSVs (/work/shared/screening: README there gives the protocol).
 *
 * Per topic, a stand-in NCBI (src/devtools/review-ncbi.ts) serves the topic's records, the term
 * being the topic's name; the server runs in this process (bench/lib/screening-review.ts). Per
 * seed: review_create (the offline simulation's question, bench/screening-sim.ts), review_add,
 * the seed's one included and one excluded record decided, then review_screen (10) →
 * review_decide with label2 until every record is decided. From the order of decisions: WSS@95,
 * recall after 10/20/30 % screened, the first progress.stop_suggested (records screened, recall,
 * ÷ the records screened at 95 % recall); beside them the same for the baseline of
 * bench/lib/screening-metrics.ts (TF-IDF + naive Bayes, batches of 10, the same priors, the
 * server's stopping rule applied to its order). Latency of every review_screen and review_add.
 *
 * Then the load scenarios, each a function of its own: review_screen on 5,000 records after 500
 * decisions (goals p50 ≤ 50 ms, p99 ≤ 250 ms); review_add of 10,000 records from one search at
 * NCBI_MAX_RPS=10 against its rate floor; review_export of those records (goal ≤ 5 s).
 */
import { join } from "node:path";
import { startRecordNcbi } from "../../src/devtools/review-ncbi.js";
import { ADD_BATCH, HISTORY_REACH } from "../../src/review/add.js";
import { stopDecision } from "../../src/review/stop.js";
import type { BenchOptions } from "../lib/options.js";
import { readTopics, type ScreeningTopic } from "../lib/screening-data.js";
import {
  NaiveBayesRanker,
  mean,
  orderMetrics,
  simulate,
  stopOutcome,
  stoppedAt,
  type OrderMetrics,
} from "../lib/screening-metrics.js";
import { FAST_RPS, NCBI_RPS, addAndExport, screenLatency } from "../lib/screening-load.js";
import { screenTopic, standInRecords, startReviewServer } from "../lib/screening-review.js";
import { emptySection, figure, quantile, ratio, type SectionResult } from "../lib/stats.js";
import { QUESTIONS } from "../screening-sim.js";

export interface ScreeningOptions {
  folder: string;
  /** Seeds 1..n per topic (default 3; 1 with --quick). */
  seeds?: number;
}

const METRICS: [keyof OrderMetrics, string, string][] = [
  ["wss95", "WSS@95", ""],
  ["recall10", "recall after 10 % screened", "%"],
  ["recall20", "recall after 20 % screened", "%"],
  ["recall30", "recall after 30 % screened", "%"],
  ["stopScreened", "records screened at the first stop suggested", "records"],
  ["stopRecall", "recall at the first stop suggested", "%"],
  ["stopRatio", "stop ÷ ideal stop (records screened at 95 % recall)", "×"],
];

const GOALS = { screenP50Ms: 50, screenP99Ms: 250, exportMs: 5_000 };

const metricsOf = (order: readonly boolean[], stopAt: number | undefined): OrderMetrics =>
  orderMetrics(order, stoppedAt(order, stopAt));

/** The baseline on the same topic and priors: records decided in batches of 10. */
function baseline(topic: ScreeningTopic, seed: number): OrderMetrics {
  const run = simulate(topic, new NaiveBayesRanker(topic.docs), { seed, batch: 10 });
  return orderMetrics(run.order, stopOutcome(run.order, stopDecision, 10));
}

const p = (xs: readonly number[], q: number) => quantile(xs, q);

interface TopicOutcome {
  topic: string;
  ours: OrderMetrics[];
  base: OrderMetrics[];
  screenMs: number[];
  addMs: number[];
  unsorted: number;
}

async function runTopic(
  topic: ScreeningTopic,
  file: string,
  seeds: readonly number[],
): Promise<TopicOutcome> {
  const records = standInRecords(topic, file);
  const ncbi = await startRecordNcbi(records, {
    sets: { [topic.name]: records.map((r) => r.pmid) },
  });
  const server = await startReviewServer({
    NCBI_EUTILS_BASE_URL: ncbi.baseUrl,
    NCBI_MAX_RPS: String(FAST_RPS),
  });
  const out: TopicOutcome = {
    topic: topic.name,
    ours: [],
    base: [],
    screenMs: [],
    addMs: [],
    unsorted: 0,
  };
  const review = QUESTIONS[topic.name] ?? { question: topic.name, criteria: "" };
  try {
    for (const seed of seeds) {
      const run = await screenTopic(server.client, topic, seed, review);
      out.ours.push(metricsOf(run.order, run.stopAt));
      out.base.push(baseline(topic, seed));
      out.screenMs.push(...run.screenMs);
      out.addMs.push(run.addMs);
      out.unsorted += run.unsorted;
      process.stderr.write(
        `screening: ${topic.name} seed ${seed}: WSS@95 ${out.ours.at(-1)?.wss95.toFixed(3)} (baseline ${out.base.at(-1)?.wss95.toFixed(3)}), stop at ${run.stopAt ?? "never"}\n`,
      );
    }
  } finally {
    await server.close();
    await ncbi.close();
  }
  return out;
}

function comparisonTable(outcomes: readonly TopicOutcome[]): string {
  const head =
    "| topic | method | WSS@95 | R@10% | R@20% | R@30% | stop screened | recall at stop | stop ÷ ideal |";
  const lines = [head, `|${" --- |".repeat(9)}`];
  const row = (label: string, method: string, ms: readonly OrderMetrics[]) => {
    const m = (k: keyof OrderMetrics, d: number) => mean(ms.map((x) => x[k])).toFixed(d);
    lines.push(
      `| ${label} | ${method} | ${m("wss95", 3)} | ${m("recall10", 1)} | ${m("recall20", 1)} | ${m("recall30", 1)} | ${m("stopScreened", 0)} | ${m("stopRecall", 1)} | ${m("stopRatio", 2)} |`,
    );
  };
  for (const o of outcomes) {
    row(o.topic, "review tools", o.ours);
    row(o.topic, "baseline", o.base);
  }
  row(
    "**mean**",
    "review tools",
    outcomes.flatMap((o) => o.ours),
  );
  row(
    "**mean**",
    "baseline",
    outcomes.flatMap((o) => o.base),
  );
  return lines.join("\n");
}

export async function screeningSection(
  opts: BenchOptions,
  so: ScreeningOptions,
): Promise<{ section: SectionResult; table: string }> {
  const section = emptySection("Screening");
  const quick = opts.mode !== "full";
  const all = readTopics(so.folder);
  const topics = quick ? all.slice(0, 2) : all;
  const seeds = Array.from({ length: so.seeds ?? (quick ? 1 : 3) }, (_, i) => i + 1);
  const outcomes: TopicOutcome[] = [];
  for (const topic of topics)
    outcomes.push(await runTopic(topic, join(so.folder, `${topic.name}.csv`), seeds));

  for (const o of outcomes) {
    const k = `screening.${o.topic}`;
    for (const [key, label, unit] of METRICS) {
      section.figures.push(
        figure(
          `${k}.${key}`,
          `${o.topic}: ${label}`,
          unit,
          o.ours.map((m) => m[key]),
        ),
        figure(
          `${k}.baseline.${key}`,
          `${o.topic}: baseline ${label}`,
          unit,
          o.base.map((m) => m[key]),
        ),
      );
    }
    section.figures.push(
      figure(`${k}.screen_p50_ms`, `${o.topic}: review_screen p50`, "ms", [p(o.screenMs, 0.5)]),
      figure(`${k}.screen_p99_ms`, `${o.topic}: review_screen p99`, "ms", [p(o.screenMs, 0.99)]),
      figure(`${k}.add_ms`, `${o.topic}: review_add of the topic`, "ms", o.addMs),
    );
  }
  const means = (pick: (o: TopicOutcome) => OrderMetrics[]) =>
    seeds.map((_, s) => mean(outcomes.map((o) => pick(o)[s]?.wss95 ?? NaN)));
  section.figures.push(
    figure(
      "screening.mean.wss95",
      "mean over topics: WSS@95 (per seed)",
      "",
      means((o) => o.ours),
    ),
    figure(
      "screening.mean.baseline.wss95",
      "mean over topics: baseline WSS@95 (per seed)",
      "",
      means((o) => o.base),
    ),
  );
  section.notes.push(
    `${topics.length} topics × ${seeds.length} seed(s) from ${so.folder}; review_screen limit 10, reviewer answers label2; the baseline is bench/lib/screening-metrics.ts's TF-IDF + naive Bayes in batches of 10 from the same priors, stopped by the server's rule (src/review/stop.ts) applied to its order.`,
    `review_screen answers not in descending score order: ${outcomes.reduce((s, o) => s + o.unsorted, 0)}.`,
  );

  await loadScenarios(opts, topics, section);
  return { section, table: comparisonTable(outcomes) };
}

async function loadScenarios(
  opts: BenchOptions,
  topics: readonly ScreeningTopic[],
  section: SectionResult,
) {
  const calls = opts.mode === "full" ? 100 : 30;
  const say = (text: string) => process.stderr.write(`screening: ${text}\n`);
  say("load: review_screen on 5,000 records…");
  const lat = await screenLatency(topics, 5_000, 500, calls);
  section.figures.push(
    figure(
      "screening.load.screen_p50_ms",
      `review_screen p50, ${lat.added} records after 500 decisions (goal ≤ ${GOALS.screenP50Ms} ms)`,
      "ms",
      [p(lat.ms, 0.5)],
    ),
    figure(
      "screening.load.screen_p99_ms",
      `review_screen p99, ${lat.added} records after 500 decisions (goal ≤ ${GOALS.screenP99Ms} ms)`,
      "ms",
      [p(lat.ms, 0.99)],
    ),
    figure(
      "screening.load.screen_repeat_p50_ms",
      "review_screen p50, the same call again with no decision between",
      "ms",
      [p(lat.repeatMs, 0.5)],
    ),
  );
  say(`load: review_add and review_export of ${HISTORY_REACH} records…`);
  // The most one search hands out (NCBI's history server stops at 9,999).
  const bulk = await addAndExport(topics, HISTORY_REACH);
  const floor = NCBI_RPS * ADD_BATCH;
  const perS = (bulk.added / bulk.addMs) * 1000;
  const e = bulk.exported;
  section.figures.push(
    figure(
      "screening.load.add_records_per_s",
      `review_add of ${bulk.added} records (${HISTORY_REACH} asked) from one search at NCBI_MAX_RPS=${NCBI_RPS}`,
      "records/s",
      [perS],
    ),
    figure(
      "screening.load.add_floor_records_per_s",
      `its rate floor: ${NCBI_RPS} requests/s × ${ADD_BATCH} records per EFetch`,
      "records/s",
      [floor],
    ),
    figure(
      "screening.load.export_ms",
      `review_export (RIS, all) of ${e.records} records, ${e.readError ? "the call only (its link unreadable)" : "call + reading its link"} (goal ≤ ${GOALS.exportMs} ms)`,
      "ms",
      [e.readError ? e.callMs : e.callMs + e.readMs],
    ),
  );
  section.ratios.push(
    ratio(
      "screening.load.add_vs_floor",
      "review_add throughput vs its rate floor",
      "records/s ÷ (NCBI_MAX_RPS × records per EFetch)",
      [perS],
      [floor],
    ),
  );
  section.notes.push(
    `load: review_screen timed over ${lat.ms.length} rounds of screen(10) → decide the first, from 500 decisions on ${lat.added} records (the topics' records repeated under new PMIDs).`,
    `load: review_add asked for 10,000 records: ${bulk.added} added in ${(bulk.addMs / 1000).toFixed(1)} s with ${bulk.requests} requests to the stand-in (refusing past ${NCBI_RPS}/s, ${bulk.refused} refused).`,
    `load: review_export ${e.bytes.toLocaleString("en-US")} bytes: the call ${e.callMs.toFixed(0)} ms${e.linked ? `, then resources/read of its link ${e.readError ? `failed: ${e.readError.slice(0, 200)}` : `${e.readMs.toFixed(0)} ms`}` : " (inline)"}.`,
  );
}
