/**
 * pico_search: a PICO question → a ready PubMed query. Each element's synonyms are ORed across
 * MeSH and title/abstract, the elements are ANDed, and an optional study-design filter narrows it.
 */
import { arg, definePrompt, liveNote } from "./prompt.js";
import { STUDY_TYPES, combine, conceptBlock, parseStudyType, studyFilter } from "./query.js";

const SYNONYMS_HINT = 'Synonyms separated by "|", e.g. "type 2 diabetes | T2DM".';

export const picoSearch = definePrompt({
  name: "pico_search",
  description:
    "Build a PubMed search from a PICO question (Population, Intervention, Comparison, Outcome) " +
    "and an optional study type. Returns a ready PubMed query string and how to run and refine it.",
  arguments: [
    { name: "population", description: `Patients or problem. ${SYNONYMS_HINT}`, required: true },
    {
      name: "intervention",
      description: `Intervention or exposure. ${SYNONYMS_HINT}`,
      required: true,
    },
    { name: "comparison", description: `Comparator (optional). ${SYNONYMS_HINT}` },
    { name: "outcome", description: `Outcome (optional). ${SYNONYMS_HINT}` },
    {
      name: "studyType",
      description: `Study design filter: ${STUDY_TYPES.join(", ")} (default any).`,
      enum: [...STUDY_TYPES],
    },
  ],
  build: (args, ctx) => {
    const elements: [string, string | undefined][] = [
      ["Population", arg(args, "population", true)],
      ["Intervention", arg(args, "intervention", true)],
      ["Comparison", arg(args, "comparison")],
      ["Outcome", arg(args, "outcome")],
    ];
    const type = parseStudyType(args.studyType);
    const given = elements.flatMap(([label, text]) => (text ? [[label, text] as const] : []));
    const query = combine([...given.map(([, text]) => conceptBlock(text)), studyFilter(type)]);
    return [
      "Search PubMed for this PICO question.",
      "",
      ...given.map(([label, text]) => `- ${label}: ${text}`),
      `- Study type: ${type}`,
      "",
      "Ready PubMed query:",
      "```",
      query,
      "```",
      "",
      "Next steps:",
      `1. Run pubmed_search with {"query": <the query above>, "maxResults": 50, "fetchBriefSummaries": 10}.`,
      "2. Read queryTranslation: it shows how PubMed mapped each term to MeSH; add missed synonyms.",
      "3. Too few hits? Drop the Outcome, then the Comparison block. Too many? Add a study type.",
      "4. pubmed_fetch the relevant PMIDs for abstracts; pubmed_cite the ones you use.",
      ...liveNote(ctx),
    ].join("\n");
  },
});
