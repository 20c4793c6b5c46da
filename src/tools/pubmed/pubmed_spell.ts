import { z } from "zod";
import { spellCheck } from "../../pubmed/spell.js";
import { MAX_QUERY_CHARS, READ_ONLY_LIVE, requiredText } from "../params.js";
import { defineTool } from "../tool.js";

export const pubmedSpell = defineTool({
  name: "pubmed_spell",
  description:
    "Check the spelling of a PubMed query (NCBI ESpell) and get PubMed's suggested correction. " +
    "Use it when a search finds nothing or looks misspelled. Example: " +
    '{"query": "asthmaa childrn"} → {"corrected": "asthma children", "hasSuggestion": true}.',
  toolset: "live",
  annotations: { title: "Spell-check a PubMed query", ...READ_ONLY_LIVE },
  parameters: z.object({
    query: requiredText(MAX_QUERY_CHARS).describe("Query to check."),
  }),
  /** 10,000 characters echoed twice, each at most a 6-byte escape. */
  maxAnswerBytes: 128 * 1024,
  narrower: "Send a shorter query.",
  output: z.object({ original: z.string(), corrected: z.string(), hasSuggestion: z.boolean() }),
  execute: (args, { signal }) => spellCheck(args.query, signal),
});
