/**
 * The `pubmed_trend` chart (docs/reference.md#pubmed_trend): publications per year as a standalone SVG document,
 * drawn by Vega-Lite → Vega's headless SVG renderer (no canvas, no browser). The tool draws it in
 * the live thread (src/live/live-thread.ts), off the MCP loop.
 *
 * Vega and Vega-Lite are loaded on the first chart, not at import: together they are about 300
 * modules and a third of a second of start-up CPU, which the live thread (it imports this module)
 * would otherwise pay in sessions that never chart (issue 11). The MCP thread never loads them
 * (__tests__/startup/lazy-modules.test.ts).
 */
import type { TopLevelSpec } from "vega-lite";

export interface YearCount {
  year: number;
  count: number;
}

/**
 * Fixed layout: a 640×360 document. Vega sizes text by estimate when no canvas is installed
 * (about 0.8 em a character, wider than real glyphs), so letting it fit the view to the text
 * bounds would leave wide empty margins; fixed padding keeps the plot where it should be.
 */
const PADDING = { left: 80, right: 24, top: 56, bottom: 48 };
const PLOT_WIDTH = 640 - PADDING.left - PADDING.right;
const PLOT_HEIGHT = 360 - PADDING.top - PADDING.bottom;
/** Longer queries are cut so the title stays on one line at this width. */
const MAX_QUERY_CHARS = 56;
/** Past this many years the x axis labels every few years instead of every one. */
const MAX_YEAR_TICKS = 12;
/** Above this, y labels switch to SI form ("1.2M") so they stay inside the left padding. */
const SI_LABELS_FROM = 100_000;

function quotedQuery(query: string): string {
  const q = query.replace(/\s+/g, " ").trim();
  const shown = q.length > MAX_QUERY_CHARS ? `${q.slice(0, MAX_QUERY_CHARS - 1).trimEnd()}…` : q;
  return `“${shown}”`;
}

function spec(query: string, counts: YearCount[]): TopLevelSpec {
  const years = counts.map((c) => c.year);
  const first = Math.min(...years);
  const last = Math.max(...years);
  // Half a year either side keeps the end points off the axes and gives a single year a domain.
  const xDomain = [first - 0.5, last + 0.5];
  const maxCount = Math.max(0, ...counts.map((c) => c.count));
  const span = xDomain[1]! - xDomain[0]!;
  const yearRange = first === last ? `${first}` : `${first}–${last}`;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    width: PLOT_WIDTH,
    height: PLOT_HEIGHT,
    autosize: { type: "none" },
    padding: PADDING,
    background: "white",
    title: {
      text: quotedQuery(query),
      subtitle: `PubMed publications per year, ${yearRange}`,
      anchor: "start",
      frame: "group",
      fontSize: 14,
      subtitleFontSize: 11,
      subtitleColor: "#555",
      offset: 12,
    },
    data: { values: counts },
    mark: { type: "line", point: { filled: true, size: 45 }, strokeWidth: 2 },
    encoding: {
      x: {
        field: "year",
        type: "quantitative",
        title: "Year",
        scale: { domain: xDomain, nice: false, zero: false },
        // Integer years only: at most one tick per year, labels without thousands separators.
        axis: {
          format: "d",
          tickMinStep: 1,
          tickCount: Math.min(span, MAX_YEAR_TICKS),
          grid: false,
        },
      },
      y: {
        field: "count",
        type: "quantitative",
        title: "Publications",
        // All-zero counts would collapse the y domain to [0, 0].
        scale: maxCount === 0 ? { domain: [0, 1] } : { zero: true, nice: true },
        axis: { format: maxCount >= SI_LABELS_FROM ? "~s" : ",d", tickMinStep: 1 },
      },
    },
    config: {
      font: "Arial, Helvetica, DejaVu Sans, sans-serif",
      axis: { labelFontSize: 11, titleFontSize: 12, grid: true, gridColor: "#e6e6e6" },
      view: { stroke: null },
    },
  };
}

/**
 * Renders counts (one entry per year, any order) as an SVG document with an xmlns.
 * Deterministic: the same input gives byte-identical output (no clip paths, whose ids
 * Vega numbers from a process-wide counter).
 */
export async function renderTrendSvg(query: string, counts: readonly YearCount[]): Promise<string> {
  if (counts.length === 0) throw new RangeError("renderTrendSvg needs at least one year");
  // Copies: Vega tags the data objects it is given (Symbol(vega_id)), and these are the tool's
  // structuredContent (an in-memory client would see the tags).
  const sorted = counts
    .map((c) => ({ year: c.year, count: c.count }))
    .sort((a, b) => a.year - b.year);
  // One after the other: they share dependencies, and Jest's ESM loader fails to link modules
  // that two concurrent imports reach. Later calls find both in the module cache.
  const { View, parse } = await import("vega");
  const { compile } = await import("vega-lite");
  const vegaSpec = compile(spec(query, sorted)).spec;
  const view = new View(parse(vegaSpec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
