/**
 * How rag_search ranks chunks into papers (src/retrieval/rank.ts), and the lexical leg ranked where
 * its index lives (VectorStore.rankSparse: in the BM25 thread, or beside the index on this
 * thread): the same answers, to the last digit, as search.ts ranking the leg's hits itself. On
 * both Postgres backends, over a synthetic corpus whose papers have several chunks and many tied
 * scores.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { chunkArticle } from "../../src/corpus/chunk.js";
import { documentInputFromArticle } from "../../src/corpus/document.js";
import { indexDocuments } from "../../src/corpus/indexer.js";
import { bestPerPaper, rankLeg } from "../../src/retrieval/rank.js";
import { ragSearch, type SearchDeps } from "../../src/corpus/search.js";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { articleSetXml } from "../../src/devtools/synth-xml.js";
import { NoEmbedder } from "../../src/embeddings/index.js";
import { parseEFetch } from "../../src/ncbi/parse/efetch.js";
import { upsertDocuments } from "../../src/store/docs.js";
import { PgVectorStore } from "../../src/vectors/pgvector/adapter.js";
import { describeEachBackend, openTestStore, type TestStore } from "../helpers/db.js";

jest.setTimeout(120_000);

const paper = (pmid: string, relevance: number, quality = 0, tag = "") => ({
  pmid,
  relevance,
  quality,
  tag,
});

describe("bestPerPaper", () => {
  it("keeps each paper's best chunk (the first on a tie), best first, at most topK", () => {
    const ranked = bestPerPaper(
      [
        paper("1", 0.5, 0, "a"),
        paper("2", 0.9, 0, "b"),
        paper("1", 0.7, 0, "c"),
        paper("3", 0.7, 0, "d"),
        paper("2", 0.9, 0, "e"),
        paper("4", 0.1, 0, "f"),
      ],
      { topK: 3, qualityBias: false },
    );
    // Paper 1's best is c; 2 keeps b (e ties it, later); 1 and 3 tie at 0.7: 1 was seen first.
    expect(ranked.map((r) => [r.pmid, r.tag, r.score])).toEqual([
      ["2", "b", 0.9],
      ["1", "c", 0.7],
      ["3", "d", 0.7],
    ]);
  });

  it("multiplies relevance by 1 + quality/10 only when asked", () => {
    const candidates = [paper("1", 1, 0), paper("2", 0.95, 9)];
    expect(bestPerPaper(candidates, { topK: 5, qualityBias: false }).map((r) => r.pmid)).toEqual([
      "1",
      "2",
    ]);
    const biased = bestPerPaper(candidates, { topK: 5, qualityBias: true });
    expect(biased.map((r) => [r.pmid, r.score])).toEqual([
      ["2", 0.95 * 1.9],
      ["1", 1],
    ]);
  });
});

describe("rankLeg", () => {
  const hit = (id: string, pmid: string, score: number, quality = 0) => ({
    id,
    pmid,
    score,
    quality,
  });

  it("normalises min–max over every hit, keeps the hit's own score, ranks papers", () => {
    const ranked = rankLeg(
      [hit("a", "1", 8), hit("b", "2", 6), hit("c", "1", 5), hit("d", "3", 4)],
      { topK: 10, qualityBias: false },
    );
    expect(ranked.map((r) => [r.hit.id, r.hit.score, r.score])).toEqual([
      ["a", 8, 1],
      ["b", 6, 0.5],
      ["d", 4, 0],
    ]);
  });

  it("gives every hit relevance 1 when all scores are equal; nothing from nothing", () => {
    const ranked = rankLeg([hit("a", "1", 3, 5), hit("b", "2", 3)], {
      topK: 10,
      qualityBias: true,
    });
    expect(ranked.map((r) => [r.hit.id, r.score])).toEqual([
      ["a", 1.5],
      ["b", 1],
    ]);
    expect(rankLeg([], { topK: 10, qualityBias: true })).toEqual([]);
  });
});

describeEachBackend("rag_search ranking the lexical leg beside its index", (kind) => {
  let t: TestStore;
  const queries: string[] = [];
  const stores: PgVectorStore[] = [];

  beforeAll(async () => {
    t = await openTestStore(kind);
    const writer = new PgVectorStore(t.store.db, t.store.hasPgvector, t.store.localWrites);
    stores.push(writer);
    await writer.ensure(0);
    const corpus = createSynthCorpus({
      seed: 7,
      now: new Date("2025-01-01T00:00:00Z"),
      terms: [{ term: "rank", count: 0, edatFrom: "2020-01-01", edatTo: "2024-12-31" }],
    });
    const records = corpus.records(
      corpus.add({ term: "rank", count: 150, edatFrom: "2020-01-01", edatTo: "2024-12-31" }),
    );
    const articles = parseEFetch(articleSetXml(records));
    // Papers of several chunks: best-per-paper has choices to make.
    expect(articles.some((a) => chunkArticle(a).length > 1)).toBe(true);
    const docs = articles.map((a) => documentInputFromArticle(a, new Date("2025-01-01")));
    await upsertDocuments(t.store.db, docs);
    const deps = { store: t.store, vectors: writer, embedder: new NoEmbedder() };
    await indexDocuments(
      deps,
      docs.map((d) => d.pmid),
    );
    for (const a of articles.slice(0, 40)) {
      const words = a.title.split(/[^A-Za-z-]+/).filter((w) => w.length >= 4);
      queries.push(words.slice(0, 3).join(" "));
    }
    queries.push("sepsis", "cohort study");
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await t.cleanup();
  });

  for (const where of ["in the BM25 thread", "on this thread"] as const) {
    it(`answers as search.ts's own ranking does (${where})`, async () => {
      const open = () => {
        const s = new PgVectorStore(t.store.db, t.store.hasPgvector, t.store.localWrites, {
          lexicalThread: where === "in the BM25 thread",
          read: t.store.read,
        });
        stores.push(s);
        return s;
      };
      const ranking = open();
      const rankSparse = jest.spyOn(ranking, "rankSparse");
      // The same adapter without rankSparse: search.ts ranks the leg's hits itself.
      const itself = open();
      Object.defineProperty(itself, "rankSparse", { value: undefined });
      const deps = (vectors: PgVectorStore): SearchDeps => ({
        store: t.store,
        vectors,
        embedder: new NoEmbedder(),
      });
      let ties = 0;
      for (const query of queries) {
        for (const input of [
          { query, topK: 10, qualityBias: true },
          { query, topK: 3, qualityBias: false },
        ]) {
          const want = await ragSearch(deps(itself), input);
          const got = await ragSearch(deps(ranking), input);
          expect(got).toEqual(want);
          ties += want.filter((r, i) => i > 0 && r.score === want[i - 1]!.score).length;
        }
      }
      expect(rankSparse).toHaveBeenCalledTimes(queries.length * 2);
      // Ties decide order by first sight: the corpus must have them for the check to mean much.
      expect(ties).toBeGreaterThan(0);
    });
  }
});
