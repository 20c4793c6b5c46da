import { describe, expect, it } from "@jest/globals";
import { Resvg } from "@resvg/resvg-js";
import { parseStringPromise } from "xml2js";
import { renderTrendSvg, type YearCount } from "../../src/live/chart.js";

interface XmlNode {
  $?: Record<string, string>;
  _?: string;
  [child: string]: unknown;
}

/** Every element named `tag` anywhere under `node` (xml2js: children are arrays keyed by name). */
function findAll(node: unknown, tag: string, found: XmlNode[] = []): XmlNode[] {
  if (typeof node !== "object" || node === null) return found;
  for (const [key, value] of Object.entries(node)) {
    if (key === "$" || key === "_") continue;
    for (const child of Array.isArray(value) ? value : [value]) {
      if (key === tag && typeof child === "object") found.push(child as XmlNode);
      findAll(child, tag, found);
    }
  }
  return found;
}

async function parseSvg(svg: string) {
  const doc = (await parseStringPromise(svg)) as { svg: XmlNode };
  const texts = findAll(doc, "text").map((t) => t._ ?? "");
  const symbolGroup = findAll(doc, "g").find((g) => g.$?.class?.includes("mark-symbol"));
  const points = findAll(symbolGroup, "path").map((p) => p.$?.["aria-label"]);
  return { root: doc.svg, texts, points };
}

/**
 * Rasterises the SVG and counts the pixels in the marks' colour (Vega's default blue, #4c78a8),
 * which nothing else in the chart uses: axes, grid and text are grey or black.
 */
function markPixels(svg: string): { width: number; height: number; ink: number } {
  const { width, height, pixels } = new Resvg(svg, { background: "white" }).render();
  let ink = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i + 2]! - pixels[i]! > 50) ink++;
  }
  return { width, height, ink };
}

const GROWTH: YearCount[] = Array.from({ length: 25 }, (_, i) => ({
  year: 2000 + i,
  count: Math.round(100 * Math.exp(i / 6)),
}));

describe("renderTrendSvg", () => {
  it("draws a well-formed SVG with titled axes, the query and one point per year", async () => {
    const svg = await renderTrendSvg("CRISPR[tiab] AND gene editing", GROWTH);
    const { root, texts, points } = await parseSvg(svg);
    expect(root.$).toMatchObject({ xmlns: "http://www.w3.org/2000/svg", width: "640" });
    expect(root.$?.height).toEqual("360");
    expect(texts).toEqual(expect.arrayContaining(["Year", "Publications"]));
    expect(texts).toContain("“CRISPR[tiab] AND gene editing”");
    expect(texts).toContain("PubMed publications per year, 2000–2024");
    expect(points).toEqual(
      GROWTH.map((c) => `Year: ${c.year}; Publications: ${c.count.toLocaleString("en-US")}`),
    );
    // Year ticks are whole years printed without a thousands separator.
    const yearLabels = texts.filter((t) => /^\d{4}$/.test(t));
    expect(yearLabels.length).toBeGreaterThanOrEqual(5);
    expect(texts.some((t) => /^\d,\d{3}$/.test(t))).toBe(true);
  });

  it("renders to a 640×360 PNG with the line and points drawn", async () => {
    const { width, height, ink } = markPixels(await renderTrendSvg("asthma", GROWTH));
    expect([width, height]).toEqual([640, 360]);
    expect(ink).toBeGreaterThan(800);
  });

  it("escapes and shortens the query in the title", async () => {
    const query = `"heart failure"[mh] & <sglt2> ${"AND inhibitor ".repeat(10)}`;
    const { texts } = await parseSvg(await renderTrendSvg(query, GROWTH));
    const title = texts.find((t) => t.startsWith("“"));
    expect(title).toEqual('“"heart failure"[mh] & <sglt2> AND inhibitor AND inhibit…”');
  });

  it("handles a single year and all-zero counts", async () => {
    const single = await parseSvg(await renderTrendSvg("rare", [{ year: 2020, count: 7 }]));
    expect(single.points).toEqual(["Year: 2020; Publications: 7"]);
    expect(single.texts).toContain("2020");
    expect(single.texts).toContain("PubMed publications per year, 2020");

    const zeros: YearCount[] = [2018, 2019, 2020].map((year) => ({ year, count: 0 }));
    const svg = await renderTrendSvg("nothing", zeros);
    const parsed = await parseSvg(svg);
    expect(parsed.points).toHaveLength(3);
    expect(parsed.texts).toEqual(expect.arrayContaining(["0", "1", "2018", "2019", "2020"]));
    expect(markPixels(svg).ink).toBeGreaterThan(300);
  });

  it("sorts years and gives identical output for identical input", async () => {
    const shuffled = [...GROWTH].reverse();
    const a = await renderTrendSvg("q", GROWTH);
    expect(await renderTrendSvg("q", shuffled)).toEqual(a);
    expect((await parseSvg(a)).points[0]).toEqual("Year: 2000; Publications: 100");
  });

  it("labels large counts in SI form so they fit", async () => {
    const big = [
      { year: 2023, count: 1_500_000 },
      { year: 2024, count: 1_600_000 },
    ];
    const { texts } = await parseSvg(await renderTrendSvg("all[sb]", big));
    expect(texts).toContain("1.6M");
  });

  it("refuses an empty series", async () => {
    await expect(renderTrendSvg("q", [])).rejects.toThrow(RangeError);
  });
});
