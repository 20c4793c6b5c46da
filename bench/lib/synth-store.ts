/**
 * A store grown with synthetic records through the sync's own path (parseEFetch → upsert →
 * chunk → index), size after size, and short keyword queries drawn from what it holds: the
 * corpus of the search and lexical sections.
 */
import { chunkArticle } from "../../src/corpus/chunk.js";
import { documentInputFromArticle } from "../../src/corpus/document.js";
import { indexDocuments } from "../../src/corpus/indexer.js";
import type { SearchDeps } from "../../src/corpus/search.js";
import { createSynthCorpus, type SynthCorpus } from "../../src/devtools/synth.js";
import { articleSetXml } from "../../src/devtools/synth-xml.js";
import { parseEFetch } from "../../src/ncbi/parse/efetch.js";
import { upsertDocuments } from "../../src/store/docs.js";

const SPAN = { edatFrom: "2015-01-01", edatTo: "2024-12-31" };
const NOW = new Date("2025-01-01T00:00:00Z");

export interface Grown {
  corpus: SynthCorpus;
  term: string;
  /** Titles of the stored records, to draw queries from. */
  titles: string[];
  chunks: number;
}

/** An empty growth: a seeded synthetic corpus for `term`, nothing stored yet. */
export function synthGrowth(seed: number, term: string): Grown {
  const corpus = createSynthCorpus({ seed, now: NOW, terms: [{ term, count: 0, ...SPAN }] });
  return { corpus, term, titles: [], chunks: 0 };
}

/** Stores synthetic records until the store holds `target` chunks (give or take one record's). */
export async function grow(deps: SearchDeps, g: Grown, target: number): Promise<void> {
  while (g.chunks < target) {
    const records = g.corpus.records(g.corpus.add({ term: g.term, count: 500, ...SPAN }));
    const kept = [];
    for (const a of parseEFetch(articleSetXml(records))) {
      if (g.chunks >= target) break;
      kept.push(a);
      g.titles.push(a.title);
      g.chunks += chunkArticle(a).length;
    }
    const docs = kept.map((a) => documentInputFromArticle(a, NOW));
    await upsertDocuments(deps.store.db, docs);
    await indexDocuments(
      deps,
      docs.map((d) => d.pmid),
    );
  }
}

/** Short keyword queries: three title words of random stored records (deterministic per seed). */
export function titleQueries(titles: string[], n: number, seed: number): string[] {
  const out: string[] = [];
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  while (out.length < n) {
    const words = (titles[Math.floor(next() * titles.length)] ?? "")
      .split(/[^A-Za-z-]+/)
      .filter((w) => w.length >= 4);
    const start = Math.floor(next() * Math.max(1, words.length - 2));
    const q = words.slice(start, start + 3).join(" ");
    if (q) out.push(q);
  }
  return out;
}
