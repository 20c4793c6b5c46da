import { z } from "zod";
import { relatedArticles } from "../../pubmed/related.js";
import { count } from "../outputs.js";
import { READ_ONLY_LIVE, numeric, pmidSchema } from "../params.js";
import { defineTool } from "../tool.js";

const RELATIONSHIPS = ["similar", "cited_by", "references"] as const;

export const pubmedRelated = defineTool({
  name: "pubmed_related",
  description:
    "Find articles linked to one PubMed article (NCBI ELink): 'similar' (PubMed's related-articles " +
    "ranking, with scores), 'cited_by' (PubMed articles citing it) or 'references' (articles it " +
    "cites, where PubMed has them). Returns PMIDs with title, authors, journal and date. When " +
    "PubMed has no cited-by or reference links, Europe PMC's are returned instead, marked " +
    'source "europepmc" with a note. Example: ' +
    '{"pmid": "31452104", "relationship": "similar", "maxResults": 5}.',
  toolset: "live",
  annotations: { title: "Related PubMed articles", ...READ_ONLY_LIVE },
  parameters: z.object({
    pmid: pmidSchema,
    relationship: z.enum(RELATIONSHIPS).default("similar").describe("Which links to follow."),
    maxResults: numeric(z.int().min(1).max(100).default(10)).describe(
      "Articles to return (1–100).",
    ),
  }),
  narrower: "Ask for a smaller maxResults.",
  output: z.object({
    sourcePmid: z.string(),
    relationship: z.enum(RELATIONSHIPS),
    totalFound: count,
    related: z.array(
      z.object({
        pmid: z.string(),
        title: z.string(),
        authors: z.array(z.string()),
        source: z.string(),
        pubDate: z.string(),
        score: z.number().nullable(),
      }),
    ),
    source: z.literal("europepmc").optional(),
    note: z.string().optional(),
  }),
  execute: (args, { signal }) =>
    relatedArticles(args.pmid, args.relationship, args.maxResults, signal),
});
