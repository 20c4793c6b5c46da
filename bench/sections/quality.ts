/**
 * §5 Retrieval quality on a BEIR-layout folder (corpus.jsonl, queries.jsonl, qrels/test.tsv),
 * through the real corpus path (bench/lib/beir.ts): nDCG@10 and Recall@100 per leg. Scores are
 * deterministic, so each is one run (n = 1); the evaluation time per leg is reported alongside.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { evaluate, indexBeir, loadBeir, type BeirSet, type Scores } from "../lib/beir.js";
import type { BenchOptions } from "../lib/options.js";
import { pgliteDir } from "../lib/stores.js";
import { emptySection, figure, ratio, timed, type SectionResult } from "../lib/stats.js";

export const LEGS = ["lexical", "dense", "hybrid"] as const;
export type Leg = (typeof LEGS)[number];

/** The shape `--quality` prints as its last line. */
export interface QualityLine {
  ndcg10: Record<Leg, number>;
  recall100: Record<Leg, number>;
}

function subset(set: BeirSet, maxDocs?: number, maxQueries?: number): BeirSet {
  return {
    docs: maxDocs === undefined ? set.docs : set.docs.slice(0, maxDocs),
    queries: maxQueries === undefined ? set.queries : set.queries.slice(0, maxQueries),
    qrels: set.qrels,
  };
}

/** "| BM25 k1=0.9 b=0.4 | 0.2739 | 0.2041 |" rows of ../shared/bench/README.md. */
function references(readme: string): { run: string; ndcg10: number; recall100: number }[] {
  if (!existsSync(readme)) return [];
  return [
    ...readFileSync(readme, "utf8").matchAll(
      /^\|\s*(BM25[^|]*?)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|/gm,
    ),
  ].map((m) => ({ run: m[1] ?? "", ndcg10: Number(m[2]), recall100: Number(m[3]) }));
}

export async function qualitySection(
  opts: BenchOptions,
  folder?: string,
): Promise<{ section: SectionResult; line: QualityLine | null }> {
  const out = emptySection("Retrieval quality");
  const dir = folder ?? (opts.sharedDir ? join(opts.sharedDir, "bench", "nfcorpus-dev") : null);
  if (!dir || !existsSync(join(dir, "corpus.jsonl"))) {
    out.skipped = `no BEIR folder (${dir ?? "../shared is absent"})`;
    return { section: out, line: null };
  }
  const name = basename(dir);
  const { maxDocs, maxQueries } = folder ? {} : opts.sizes.quality;
  const set = subset(loadBeir(dir), maxDocs, maxQueries);
  const scratch = await pgliteDir();
  const indexing = await timed(() => indexBeir(set, scratch.dataDir));
  const indexed = indexing.value;
  const scores = {} as Record<Leg, Scores>;
  try {
    for (const leg of LEGS) {
      const run = await timed(() => evaluate(set, indexed, leg));
      scores[leg] = run.value;
      out.figures.push(
        figure(`quality.${name}.${leg}.ndcg10`, `${name} ${leg}: nDCG@10`, "", [run.value.ndcg10]),
        figure(`quality.${name}.${leg}.recall100`, `${name} ${leg}: Recall@100`, "", [
          run.value.recall100,
        ]),
        figure(
          `quality.${name}.${leg}.ms_per_query`,
          `${name} ${leg}: evaluation time per query`,
          "ms",
          [run.ms / set.queries.length],
        ),
      );
    }
  } finally {
    await indexed.close();
    await scratch.cleanup();
  }
  for (const leg of ["dense", "hybrid"] as const) {
    out.ratios.push(
      ratio(
        `quality.${name}.${leg}_vs_lexical`,
        `${name}: ${leg} vs lexical nDCG@10`,
        `${leg} ÷ lexical, same index`,
        [scores[leg].ndcg10],
        [scores.lexical.ndcg10],
      ),
    );
  }
  if (!folder && opts.sharedDir) {
    for (const ref of references(join(opts.sharedDir, "bench", "README.md"))) {
      const key = ref.run.replace(/[^A-Za-z0-9.]+/g, "_");
      out.figures.push(
        figure(
          `quality.${name}.reference.${key}.ndcg10`,
          `${name} reference ${ref.run} (../shared/bench/README.md, not run here): nDCG@10`,
          "",
          [ref.ndcg10],
        ),
        figure(
          `quality.${name}.reference.${key}.recall100`,
          `${name} reference ${ref.run} (../shared/bench/README.md, not run here): Recall@100`,
          "",
          [ref.recall100],
        ),
      );
    }
  }
  out.notes.push(
    `${name}: ${set.docs.length.toLocaleString("en-US")} documents, ${set.queries.length} judged queries${maxDocs || maxQueries ? " (a subset in this mode: scores are not comparable to the reference)" : ""}; indexing took ${(indexing.ms / 1000).toFixed(1)} s.`,
  );
  const pick = (f: (s: Scores) => number) =>
    Object.fromEntries(LEGS.map((l) => [l, f(scores[l])])) as Record<Leg, number>;
  return {
    section: out,
    line: { ndcg10: pick((s) => s.ndcg10), recall100: pick((s) => s.recall100) },
  };
}
