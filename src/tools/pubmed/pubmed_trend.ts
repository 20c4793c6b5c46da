import { z } from "zod";
import { publicationTrend, trendChart } from "../../pubmed/trend.js";
import { count } from "../outputs.js";
import { MAX_QUERY_CHARS, READ_ONLY_LIVE, numeric, requiredText } from "../params.js";
import { defineTool } from "../tool.js";

const MAX_SPAN = 50;
const year = numeric(z.int().min(1800).max(2100));

export const pubmedTrend = defineTool({
  name: "pubmed_trend",
  description:
    "Count PubMed publications per year for a query and chart them. Returns a JSON text block " +
    "{query, counts[{year, count}]} and an SVG line chart (image/svg+xml). Use it to show how a " +
    "topic grew. One request per year (at most 50 years), so long spans take a few seconds. " +
    'Example: {"query": "long covid", "startYear": 2019, "endYear": 2025}.',
  toolset: "live",
  annotations: { title: "Publication trend", ...READ_ONLY_LIVE },
  parameters: z
    .object({
      query: requiredText(MAX_QUERY_CHARS).describe("PubMed query."),
      startYear: year.describe("First year, e.g. 2000."),
      endYear: year.describe("Last year, e.g. 2024."),
    })
    .refine((a) => a.startYear <= a.endYear, { error: "startYear must not be after endYear" })
    .refine((a) => a.endYear - a.startYear < MAX_SPAN, {
      error: `the span must be at most ${MAX_SPAN} years`,
    }),
  narrower: "Ask for a shorter range of years.",
  output: z.object({
    query: z.string(),
    counts: z.array(z.object({ year: z.int(), count })),
  }),
  execute: (args, { signal }) => publicationTrend(args.query, args.startYear, args.endYear, signal),
  // docs/reference.md#pubmed_trend: the JSON text block first, then the chart.
  moreContent: async (trend, { signal }) => [
    { type: "image", mimeType: "image/svg+xml", data: await trendChart(trend, signal) },
  ],
});
