/**
 * Deterministic PubMed query building for the prompts: each concept becomes a block of
 * `"term"[MeSH Terms] OR "term"[tiab]` over its synonyms, blocks are ANDed, and a study-design
 * filter may follow. Inputs are cleaned so the result is always syntactically balanced.
 */
import { ValidationError } from "../errors.js";
import { quoted } from "../excerpt.js";

export const STUDY_TYPES = [
  "any",
  "rct",
  "systematic_review",
  "meta_analysis",
  "cohort",
  "case_control",
  "guideline",
] as const;
export type StudyType = (typeof STUDY_TYPES)[number];

/** Publication-type and MeSH filters as PubMed documents them (PubMed User Guide, "Filters"). */
const STUDY_FILTERS: Record<StudyType, string | null> = {
  any: null,
  rct: "randomized controlled trial[pt]",
  systematic_review: "(systematic review[pt] OR meta-analysis[pt])",
  meta_analysis: "meta-analysis[pt]",
  cohort: '("cohort studies"[MeSH Terms] OR cohort[tiab])',
  case_control: '("case-control studies"[MeSH Terms] OR case-control[tiab])',
  guideline: "(guideline[pt] OR practice guideline[pt])",
};

/** Excludes records indexed as animal studies unless they are also about humans. */
export const HUMANS_FILTER = "NOT (animals[mh] NOT humans[mh])";

/** Quotes, brackets and parentheses would unbalance the query; field tags are ours to add. */
function cleanTerm(term: string): string {
  return term
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/["()[\]{}*]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Synonyms of one concept, separated by "|", ";" or " OR ". Commas stay inside a term because
 * MeSH headings contain them ("Diabetes Mellitus, Type 2").
 */
export function synonyms(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of text.split(/\||;|\s+OR\s+/)) {
    const term = cleanTerm(raw);
    if (term && !seen.has(term.toLowerCase())) {
      seen.add(term.toLowerCase());
      out.push(term);
    }
  }
  return out;
}

export function conceptBlock(text: string): string {
  const terms = synonyms(text);
  if (terms.length === 0) throw new ValidationError(`${quoted(text)} has no searchable words`);
  return `(${terms.map((t) => `"${t}"[MeSH Terms] OR "${t}"[tiab]`).join(" OR ")})`;
}

export function studyFilter(type: StudyType): string | null {
  return STUDY_FILTERS[type];
}

export function parseStudyType(value: string | undefined): StudyType {
  const v = (value ?? "").trim().toLowerCase() || "any";
  if ((STUDY_TYPES as readonly string[]).includes(v)) return v as StudyType;
  throw new ValidationError(
    `studyType must be one of ${STUDY_TYPES.join(", ")}; got ${quoted(value ?? "")}`,
  );
}

/** ANDs concept blocks and filters; a trailing NOT clause joins without AND. */
export function combine(parts: (string | null | undefined)[]): string {
  return parts
    .filter((p): p is string => Boolean(p))
    .reduce((q, p) => (q === "" ? p : p.startsWith("NOT ") ? `${q} ${p}` : `${q} AND ${p}`), "");
}

/** True when parentheses and brackets nest properly and double quotes pair up. */
export function isBalanced(query: string): boolean {
  const stack: string[] = [];
  let inQuote = false;
  for (const ch of query) {
    if (ch === '"') inQuote = !inQuote;
    if (inQuote) continue;
    if (ch === "(" || ch === "[") stack.push(ch);
    if (ch === ")" && stack.pop() !== "(") return false;
    if (ch === "]" && stack.pop() !== "[") return false;
  }
  return !inQuote && stack.length === 0;
}

/** Words that carry no concept: dropped without splitting a phrase. */
const STOPWORDS = new Set(
  "a an the is are was were be been does do did what which who how whether there any its their this that these those can could should would may might".split(
    " ",
  ),
);

/** Words that join or relate concepts: they end the current concept. */
const SPLITTERS = new Set(
  "in on for with without versus vs compared comparing to among and or of by from after before during than between reduce reduces reduced improve improves improved increase increases increased decrease decreases decreased prevent prevents affect affects cause causes effect effects impact association associated risk role use efficacy effectiveness safety benefit benefits treatment treat treating outcomes".split(
    " ",
  ),
);

/** Concepts from a free-text review question, e.g. "Does metformin reduce mortality in type 2 diabetes?". */
export function conceptsFromQuestion(question: string, max = 5): string[] {
  const words = question
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, " ")
    .split(/\s+/)
    .filter(Boolean);
  const concepts: string[] = [];
  let current: string[] = [];
  const flush = () => {
    const phrase = current.join(" ");
    if (phrase && !concepts.includes(phrase)) concepts.push(phrase);
    current = [];
  };
  for (const w of words) {
    if (SPLITTERS.has(w)) flush();
    else if (!STOPWORDS.has(w)) current.push(w);
  }
  flush();
  return concepts.slice(0, max);
}
