/**
 * pubmed_trend: publications per year (one ESearch count per year, through the shared queue), and
 * their chart, drawn in the live thread (src/live/live-thread.ts): Vega takes 20–30 ms of the
 * CPU of the loop it runs on for every chart, whatever its years, and a third of a second for the
 * first (loading it).
 */
import { liveThread } from "../live/live-thread.js";
import { getEutils } from "../state.js";

export interface TrendOutput {
  query: string;
  counts: { year: number; count: number }[];
}

export async function publicationTrend(
  query: string,
  startYear: number,
  endYear: number,
  signal: AbortSignal,
): Promise<TrendOutput> {
  const eutils = getEutils();
  const years = Array.from({ length: endYear - startYear + 1 }, (_, i) => startYear + i);
  // All years are queued at once; the client's limiter keeps them inside NCBI's rate.
  const counts = await Promise.all(
    years.map(async (year) => {
      const { value: found } = await eutils.esearch(
        {
          db: "pubmed",
          term: query,
          rettype: "count",
          datetype: "pdat",
          mindate: String(year),
          maxdate: String(year),
        },
        { signal },
      );
      return { year, count: found.count };
    }),
  );
  return { query, counts };
}

/** The chart as base64 SVG (./chart.ts renderTrendSvg); `signal` gives it up. */
export async function trendChart(trend: TrendOutput, signal?: AbortSignal): Promise<string> {
  const svg = await liveThread().renderTrendSvg(trend.query, trend.counts, signal);
  return Buffer.from(svg, "utf8").toString("base64");
}
