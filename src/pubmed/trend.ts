/**
 * pubmed_trend: publications per year (one ESearch count per year, through the shared queue).
 */
import { parseESearch } from "../eutils/parse/esearch.js";
import { getEutils } from "../state.js";
import { renderTrendSvg } from "./chart.js";

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
      const res = await eutils.request(
        "esearch",
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
      return { year, count: parseESearch(res.body).count };
    }),
  );
  return { query, counts };
}

export async function trendChart(trend: TrendOutput): Promise<string> {
  const svg = await renderTrendSvg(trend.query, trend.counts);
  return Buffer.from(svg, "utf8").toString("base64");
}
