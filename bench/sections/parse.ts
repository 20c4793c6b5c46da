/**
 * §1 Parsing: EFetch XML → Article[] through parseEFetch, side by side with a bare xml2js parse
 * of the same bytes — with our ordered-children options (the tree parseEFetch walks, so the ratio
 * is the cost of our normalisation) and with xml2js's defaults (what a naive parser would use).
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Parser, type ParserOptions } from "xml2js";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { PUBMED_DOCTYPE, articleSetXml } from "../../src/devtools/synth-xml.js";
import { parseEFetchXml2js as parseEFetch } from "../../src/ncbi/parse/efetch-xml2js.js";
import { ORDERED_PARSER_OPTIONS } from "../../src/ncbi/parse/xml.js";
import type { BenchOptions } from "../lib/options.js";
import { emptySection, figure, ratio, repeat, timed, type SectionResult } from "../lib/stats.js";

const RECORD = /<(PubmedArticle|PubmedBookArticle)(?:\s[^>]*)?>[\s\S]*?<\/\1>/g;

function xmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return xmlFiles(path);
    return name.endsWith(".xml") ? [path] : [];
  });
}

function wrap(records: string[]): string {
  return `<?xml version="1.0" ?>\n${PUBMED_DOCTYPE}\n<PubmedArticleSet>\n${records.join("\n")}\n</PubmedArticleSet>\n`;
}

/** Every PubmedArticle/PubmedBookArticle of every PubmedArticleSet file, as one article set. */
function fixtureSet(dir: string): { xml: string; files: number } {
  const records: string[] = [];
  let files = 0;
  for (const path of xmlFiles(dir)) {
    const text = readFileSync(path, "utf8");
    if (!text.includes("<PubmedArticleSet")) continue;
    files++;
    records.push(...(text.match(RECORD) ?? []));
  }
  return { xml: wrap(records), files };
}

/** Synthetic records until the file reaches `mb` megabytes. */
function synthSet(mb: number): string {
  const target = mb * 1024 * 1024;
  const perBatch = 500;
  const corpus = createSynthCorpus({
    seed: 5,
    terms: [{ term: "parse bench", count: 0, edatFrom: "2015-01-01", edatTo: "2024-12-31" }],
  });
  const parts: string[] = [];
  let bytes = 0;
  while (bytes < target) {
    const pmids = corpus.add({
      term: "parse bench",
      count: perBatch,
      edatFrom: "2015-01-01",
      edatTo: "2024-12-31",
    });
    for (const r of corpus.records(pmids)) {
      const xml = articleSetXml([r]).match(RECORD)?.[0] ?? "";
      parts.push(xml);
      bytes += Buffer.byteLength(xml);
      if (bytes >= target) break;
    }
  }
  return wrap(parts);
}

function bare(xml: string, options: ParserOptions): void {
  let failure: unknown = null;
  new Parser(options).parseString(xml, (err) => (failure = err));
  if (failure) throw new Error(`xml2js failed: ${String(failure)}`);
}

async function measure(
  out: SectionResult,
  key: string,
  name: string,
  xml: string,
  reps: number,
): Promise<void> {
  const mb = Buffer.byteLength(xml) / (1024 * 1024);
  const articles = parseEFetch(xml).length;
  // One untimed pass of each parser first, so no timed run pays for JIT warm-up.
  bare(xml, ORDERED_PARSER_OPTIONS);
  bare(xml, {});
  // Alternating order spreads warm-up and GC pressure evenly over the three parsers.
  const runs = await repeat(reps, async (rep) => {
    const t = { ours: 0, ordered: 0, defaults: 0 };
    const steps: [keyof typeof t, () => unknown][] = [
      ["ours", () => parseEFetch(xml)],
      ["ordered", () => bare(xml, ORDERED_PARSER_OPTIONS)],
      ["defaults", () => bare(xml, {})],
    ];
    for (const [what, fn] of rep % 2 ? steps.reverse() : steps) {
      globalThis.gc?.();
      t[what] = (await timed(fn)).ms / 1000;
    }
    return t;
  });
  const label = `${name} (${mb.toFixed(1)} MB, ${articles.toLocaleString("en-US")} articles)`;
  for (const [what, title] of [
    ["ours", "parseEFetch"],
    ["ordered", "bare xml2js, our options"],
    ["defaults", "bare xml2js, default options"],
  ] as const) {
    const s = runs.map((r) => r[what]);
    out.figures.push(
      figure(
        `parse.${key}.${what}.mb_per_s`,
        `${label}: ${title}`,
        "MB/s",
        s.map((x) => mb / x),
      ),
      figure(
        `parse.${key}.${what}.articles_per_s`,
        `${label}: ${title}`,
        "articles/s",
        s.map((x) => articles / x),
      ),
    );
  }
  out.ratios.push(
    ratio(
      `parse.${key}.normalisation_cost`,
      `${name}: cost of our normalisation`,
      "parseEFetch time ÷ bare xml2js time, same options",
      runs.map((r) => r.ours),
      runs.map((r) => r.ordered),
    ),
    ratio(
      `parse.${key}.vs_default_xml2js`,
      `${name}: against a default xml2js parse`,
      "parseEFetch time ÷ default-options xml2js time",
      runs.map((r) => r.ours),
      runs.map((r) => r.defaults),
    ),
  );
}

export async function parseSection(opts: BenchOptions): Promise<SectionResult> {
  const out = emptySection("Parsing");
  const reps = opts.sizes.reps;
  const fixtures = opts.sharedDir ? join(opts.sharedDir, "fixtures", "eutils") : null;
  if (fixtures) {
    const { xml, files } = fixtureSet(fixtures);
    await measure(out, "fixtures", "recorded fixtures", xml, reps);
    out.notes.push(
      `recorded fixtures: the records of all ${files} PubmedArticleSet files in ../shared/fixtures/eutils, joined into one set.`,
    );
  } else {
    out.skipped = "../shared/fixtures/eutils is absent";
  }
  await measure(out, "synthetic", "synthetic", synthSet(opts.sizes.parseSynthMb), reps);
  out.notes.push(
    "parseEFetch first cuts <ReferenceList> runs from the text (it never reads them), then parses; the bare parses read every byte.",
  );
  return out;
}
