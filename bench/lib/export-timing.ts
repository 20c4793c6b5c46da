/**
 * Time to export review records (src/review/export.ts) in each format, and citation-js's own RIS
 * and BibTeX output of the same records for comparison (the reason the writers are our own is
 * their correctness, not speed; this shows the cost either way). The bar: 10,000 records in
 * at most 5 s per format on the 2-core machine.
 *
 *   npx tsx bench/lib/export-timing.ts [records] [batch]
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { exportWriter, recordToCsl } from "../../src/review/export.js";
import { EXPORT_FORMATS, type ReviewRecord } from "../../src/store/review-types.js";

const WORDS = "randomised trial of early mobilisation after hip fracture surgery in older".split(
  " ",
);
const word = (i: number): string => WORDS[i % WORDS.length] ?? "x";
const words = (n: number, seed: number): string =>
  Array.from({ length: n }, (_, i) => word(seed * 7 + i * 3)).join(" ");

/** A PubMed-sized record: 6 authors, a 1,500-character abstract, 12 MeSH terms, some notices. */
export function syntheticRecord(i: number): ReviewRecord {
  return {
    id: `pmid:${30_000_000 + i}`,
    seq: i,
    pmid: String(30_000_000 + i),
    doi: `10.1016/s0140-6736(19)${String(i).padStart(5, "0")}-1`,
    pmcid: i % 3 === 0 ? `PMC${6_000_000 + i}` : undefined,
    title: `${words(12, i)}: a "pragmatic" {multicentre} trial, 50% & naïve HIV`,
    abstract: `BACKGROUND: ${words(220, i)}.`,
    journal: "Lancet (London, England)",
    year: 2000 + (i % 25),
    volume: String(300 + (i % 90)),
    issue: String(i % 12),
    pages: `${1000 + (i % 500)}-${10 + (i % 80)}`,
    authors: Array.from({ length: 6 }, (_, a) => ({ family: `Müller${a}`, given: "Anna B" })),
    mesh: Array.from({ length: 12 }, (_, m) => (m === 0 ? "Aged, 80 and over" : words(2, i + m))),
    pubTypes: ["Journal Article"],
    notices: i % 50 === 0 ? [{ type: "retraction", notice_pmid: "31000001" }] : [],
    sources: ["pubmed"],
    titleAbstract: { decision: "exclude", reason: "wrong population", at: "2024-01-01" },
  };
}

export interface ExportTiming {
  format: string;
  ms: number;
  bytes: number;
}

/** Each format streamed in batches; citation-js formats the CSL items in one Cite per batch. */
export function exportTimings(count = 10_000, batch = 500): ExportTiming[] {
  const records = Array.from({ length: count }, (_, i) => syntheticRecord(i));
  const batches: ReviewRecord[][] = [];
  for (let i = 0; i < count; i += batch) batches.push(records.slice(i, i + batch));
  const time = (format: string, run: () => string): ExportTiming => {
    const start = performance.now();
    const text = run();
    return { format, ms: performance.now() - start, bytes: Buffer.byteLength(text) };
  };
  const timings = EXPORT_FORMATS.map((format) =>
    time(format, () => {
      const writer = exportWriter(format);
      return writer.header() + batches.map((b) => writer.write(b)).join("") + writer.footer();
    }),
  );
  const nodeRequire = createRequire(import.meta.url);
  const { Cite } = nodeRequire("@citation-js/core") as typeof import("@citation-js/core");
  nodeRequire("@citation-js/plugin-ris");
  nodeRequire("@citation-js/plugin-bibtex");
  for (const style of ["ris", "bibtex"]) {
    timings.push(
      time(`citation-js ${style}`, () =>
        batches
          .map((b) => String(new Cite(b.map(recordToCsl)).format(style, { format: "text" })))
          .join(""),
      ),
    );
  }
  return timings;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [count, batch] = [Number(process.argv[2] ?? 10_000), Number(process.argv[3] ?? 500)];
  for (const t of exportTimings(count, batch)) {
    console.log(`${t.format.padEnd(16)} ${t.ms.toFixed(0).padStart(6)} ms ${t.bytes} bytes`);
  }
}
