import { z } from "zod";
import { matchCitations } from "../../pubmed/match.js";
import { READ_ONLY_LIVE, maxChars, textOrNumber } from "../params.js";
import { defineTool } from "../tool.js";

const field = (what: string) =>
  textOrNumber(z.string().max(300, maxChars(300)).trim().default("")).describe(what);

export const pubmedMatchCitations = defineTool({
  name: "pubmed_match_citations",
  description:
    "Find the PMIDs of references given as bibliographic data (NCBI ECitMatch): journal, year, " +
    "volume, first page, first author. Use it to resolve a reference list to PubMed records. Each " +
    "result is matched (with pmid), not_found or ambiguous. Up to 25 citations. Example: " +
    '{"citations": [{"journal": "proc natl acad sci u s a", "year": "1991", "volume": "88", ' +
    '"firstPage": "3248", "authorName": "mann bj", "key": "ref1"}]}.',
  toolset: "live",
  annotations: { title: "Match citations to PMIDs", ...READ_ONLY_LIVE },
  parameters: z.object({
    citations: z
      .array(
        z
          .object({
            journal: field("Journal title or ISO abbreviation."),
            year: field("Publication year, e.g. 1991."),
            volume: field("Volume."),
            firstPage: field("First page."),
            authorName: field('First author as "surname initials", e.g. "mann bj".'),
            key: textOrNumber(z.string().max(100, maxChars(100)).trim().optional()).describe(
              "Your label, echoed back.",
            ),
          })
          .refine((c) => c.journal || c.authorName, {
            error: "needs at least a journal or an authorName",
          }),
      )
      .min(1)
      .max(25, { error: "must list at most 25 citations; split the list" })
      .describe("Citations to match."),
  }),
  narrower: "Send fewer citations.",
  output: z.object({
    results: z.array(
      z.object({
        key: z.string(),
        pmid: z.string().nullable(),
        status: z.enum(["matched", "not_found", "ambiguous"]),
      }),
    ),
  }),
  execute: (args, { signal }) =>
    matchCitations(
      args.citations.map((c, i) => ({ ...c, key: c.key ?? String(i + 1) })),
      signal,
    ),
});
