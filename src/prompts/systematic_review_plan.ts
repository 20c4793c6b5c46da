/**
 * systematic_review_plan: a review question → a search plan using this server's tools and a
 * ready, sensitive PubMed query (concept blocks ANDed, humans only, optional design and years).
 */
import { ValidationError } from "../errors.js";
import { quoted } from "../excerpt.js";
import { arg, definePrompt, liveNote } from "./prompt.js";
import {
  HUMANS_FILTER,
  STUDY_TYPES,
  combine,
  conceptBlock,
  conceptsFromQuestion,
  parseStudyType,
  studyFilter,
} from "./query.js";

function yearFilter(from: string | undefined): string | null {
  if (from === undefined) return null;
  if (!/^\d{4}$/.test(from))
    throw new ValidationError(`yearFrom must be a year like 2010; got ${quoted(from)}`);
  return `${from}:3000[dp]`;
}

/** Step 4: sync, or why not (read-only mode hides the sync; MCP_TOOLSETS may drop the corpus). */
function corpusStep(tools: ReadonlySet<string>, key: string): string {
  if (tools.has("pubmed_sync_delta"))
    return (
      `4. pubmed_sync_delta {"query_key": "${key}", "term": <the query>} to pull every record into the ` +
      "local corpus (repeat until it reports nothing new; rerun later for updates)."
    );
  if (tools.has("rag_search"))
    return (
      "4. This server is read-only, so it cannot sync: rag_search covers only what its operator " +
      "has synced (see resource://pubmed/corpus); page through pubmed_search and screen with " +
      "pubmed_fetch for anything beyond it."
    );
  return (
    "4. This server offers no local corpus (MCP_TOOLSETS leaves out corpus): page through " +
    "pubmed_search to collect every record."
  );
}

/** Steps 4–7 without the review tools: the corpus, or pages of pubmed_search. */
function searchSteps(tools: ReadonlySet<string>, key: string): string[] {
  return [
    corpusStep(tools, key),
    tools.has("rag_search")
      ? "5. Screen: rag_search with each inclusion criterion, rag_get or pubmed_fetch for the full abstract."
      : "5. Screen: pubmed_fetch the candidates' full abstracts against each inclusion criterion.",
    "6. Snowball: pubmed_related (cited_by and references) from each included paper.",
    "7. Export: pubmed_cite the included PMIDs as ris for your reference manager; report counts " +
      "(found, screened, included) as a PRISMA flow.",
  ];
}

/** Steps 4–7 with the review tools (docs/reviews.md), when this server offers them. */
function reviewSteps(name: string): string[] {
  return [
    `4. review_create {"name": "${name}", "question": <the question>, "criteria": <eligibility>}, then ` +
      'review_add {"review_id": …, "source": "pubmed", "term": <the query>} (and "europepmc" for ' +
      "preprints): every record, duplicates removed and counted.",
    "5. Screen: review_screen (10 at a time) and review_decide with a reason for each exclusion, " +
      "until progress.stop_suggested; then the same with stage full_text.",
    '6. Snowball: review_add {"source": "citations", "direction": "backward"} and "forward" from ' +
      "the included records, and screen what it adds.",
    "7. Report: review_status for the PRISMA 2020 counts and flow diagram; review_export as ris " +
      "(or bibtex, csv) for your reference manager.",
  ];
}

export const systematicReviewPlan = definePrompt({
  name: "systematic_review_plan",
  description:
    "Plan a systematic-review search for a question: the concepts, a ready PubMed query string, " +
    "and the steps (spell-check, search, trend, a review or the local corpus, screen, snowball, " +
    "PRISMA, export).",
  arguments: [
    { name: "question", description: "The review question or topic.", required: true },
    {
      name: "concepts",
      description:
        'Main concepts separated by ";", synonyms within a concept by "|", e.g. ' +
        '"metformin; cardiovascular death | cardiovascular mortality; type 2 diabetes". ' +
        "Derived from the question when omitted.",
    },
    {
      name: "studyType",
      description: `Study design filter: ${STUDY_TYPES.join(", ")} (default any).`,
      enum: [...STUDY_TYPES],
    },
    { name: "yearFrom", description: "Earliest publication year, e.g. 2010 (optional)." },
  ],
  build: (args, ctx) => {
    const { tools } = ctx;
    const question = arg(args, "question", true);
    const given = arg(args, "concepts");
    const concepts = given
      ? given
          .split(";")
          .map((c) => c.trim())
          .filter(Boolean)
      : conceptsFromQuestion(question);
    if (concepts.length === 0) {
      throw new ValidationError('No searchable concepts; pass "concepts", e.g. "aspirin; stroke"');
    }
    const type = parseStudyType(args.studyType);
    const years = yearFilter(arg(args, "yearFrom"));
    const query = combine([...concepts.map(conceptBlock), studyFilter(type), years, HUMANS_FILTER]);
    const key =
      concepts[0]
        ?.split("|")[0]
        ?.trim()
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-") ?? "review";
    return [
      `Systematic-review search plan for: ${question}`,
      "",
      `Concepts (${given ? "as given" : "derived from the question; pass concepts to control them"}):`,
      ...concepts.map((c, i) => `${i + 1}. ${c}`),
      "",
      "Ready PubMed query:",
      "```",
      query,
      "```",
      "",
      "Steps:",
      "1. pubmed_spell each concept; fix misspellings before searching.",
      `2. pubmed_search {"query": <the query>, "maxResults": 100, "fetchBriefSummaries": 20}; read ` +
        "totalFound and queryTranslation, add synonyms PubMed did not map, and record the final query and date.",
      "3. pubmed_trend with the query over the last 20 years to see how the evidence grew.",
      ...(tools.has("review_add") ? reviewSteps(key) : searchSteps(tools, key)),
      ...liveNote(ctx),
    ].join("\n");
  },
});
