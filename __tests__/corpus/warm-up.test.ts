/**
 * The made-up records the prepare thread warms up on (src/corpus/warm-up.ts): a well-formed EFetch
 * reply that goes through every step a real batch does — parse, document, hash, chunks, BM25
 * terms — so the warm-up compiles the code the sync then runs.
 */
import { describe, expect, it } from "@jest/globals";
import { prepareBatch } from "../../src/corpus/prepare.js";
import { warmUpReply } from "../../src/corpus/warm-up.js";
import type { Article } from "../../src/ncbi/types.js";

const NOW = new Date("2026-11-28T00:00:00Z");

describe("the prepare thread's warm-up records", () => {
  it("parse into whole articles with chunks and terms", () => {
    const batch = prepareBatch(warmUpReply(20, 101), NOW);
    expect(batch.docs.map((d) => d.pmid)).toEqual(
      Array.from({ length: 20 }, (_, i) => String(101 + i)),
    );
    for (const doc of batch.docs) {
      const record = JSON.parse(doc.recordJson) as Article;
      expect(doc.title).toMatch(/ study\.$/);
      for (const label of ["BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"]) {
        expect(doc.abstract).toContain(`${label}: `);
      }
      expect(record.authors.length).toBeGreaterThanOrEqual(2);
      expect(record.authors[0]?.affiliations[0]).toMatch(/^Department of /);
      expect(doc.mesh).toContain("Humans");
      expect(doc.pubTypes).toContain("Randomized Controlled Trial");
      expect(doc.doi).toBe(`10.1000/warm.${doc.pmid}`);
      expect(doc.edat).not.toBeNull();
      const chunks = batch.chunks.get(doc.pmid) ?? [];
      expect(chunks.length).toBeGreaterThan(1);
      for (const chunk of chunks) expect(chunk.sparse.indices.length).toBeGreaterThan(5);
    }
  });

  it("varies the words from record to record and gives the same reply every time", () => {
    const batch = prepareBatch(warmUpReply(5), NOW);
    expect(new Set(batch.docs.map((d) => d.title)).size).toBe(5);
    expect(warmUpReply(5)).toEqual(warmUpReply(5));
  });
});
