/**
 * The evidence-quality score (`quality` in docs/reference.md#rag_get), computed from the parsed record alone.
 * design 0–3 + recency 0–2 + journal 0–2 + human 0–2 = total 0–9; retracted papers score 0.
 */
import type { Article } from "../ncbi/types.js";
import type { Quality } from "../store/docs.js";

const DESIGN_3 = new Set(["Meta-Analysis", "Systematic Review", "Randomized Controlled Trial"]);
const DESIGN_2 = new Set([
  "Clinical Trial",
  "Clinical Trial, Phase I",
  "Clinical Trial, Phase II",
  "Clinical Trial, Phase III",
  "Clinical Trial, Phase IV",
  "Controlled Clinical Trial",
  "Pragmatic Clinical Trial",
  "Equivalence Trial",
  "Adaptive Clinical Trial",
]);
const DESIGN_1_TYPES = new Set([
  "Observational Study",
  "Comparative Study",
  "Multicenter Study",
  "Observational Study, Veterinary",
]);
/**
 * Cohort and case-control designs are indexed as MeSH descriptors, not publication types, and
 * indexers assign the most specific one: so the descriptors below them in the MeSH tree count too
 * (Cohort Studies explodes to Follow-Up, Longitudinal, Prospective and Retrospective Studies;
 * Case-Control Studies to Retrospective Studies).
 */
const DESIGN_1_MESH = new Set([
  "Cohort Studies",
  "Case-Control Studies",
  "Follow-Up Studies",
  "Longitudinal Studies",
  "Prospective Studies",
  "Retrospective Studies",
]);

export const ZERO_QUALITY: Quality = { design: 0, recency: 0, journal: 0, human: 0, total: 0 };

export function designPoints(article: Pick<Article, "publicationTypes" | "meshTerms">): number {
  const types = article.publicationTypes;
  if (types.some((t) => DESIGN_3.has(t))) return 3;
  if (types.some((t) => DESIGN_2.has(t))) return 2;
  if (types.some((t) => DESIGN_1_TYPES.has(t))) return 1;
  if (article.meshTerms.some((m) => DESIGN_1_MESH.has(m.descriptorName))) return 1;
  return 0;
}

/** The publication year: PubDate/Year, else the first year in a MedlineDate ("1998 Dec-1999 Jan"). */
export function publicationYear(article: Pick<Article, "journalInfo">): number | null {
  const d = article.journalInfo.publicationDate;
  const text = d.year ?? d.medlineDate ?? "";
  const match = /\b(1[89]\d\d|20\d\d)\b/.exec(text);
  return match ? Number(match[1]) : null;
}

export function recencyPoints(year: number | null, now: Date): number {
  if (year === null) return 0;
  const age = now.getUTCFullYear() - year;
  if (age <= 5) return 2;
  if (age <= 10) return 1;
  return 0;
}

export function journalPoints(citationSubsets: string[]): number {
  if (citationSubsets.includes("AIM")) return 2;
  if (citationSubsets.includes("IM")) return 1;
  return 0;
}

export function humanPoints(meshTerms: Article["meshTerms"]): number {
  const names = new Set(meshTerms.map((m) => m.descriptorName));
  if (names.has("Humans")) return 2;
  if (names.has("Animals")) return 1;
  return 0;
}

export function computeQuality(article: Article, now: Date = new Date()): Quality {
  if (article.isRetracted) return { ...ZERO_QUALITY };
  const parts = {
    design: designPoints(article),
    recency: recencyPoints(publicationYear(article), now),
    journal: journalPoints(article.citationSubsets),
    human: humanPoints(article.meshTerms),
  };
  return { ...parts, total: parts.design + parts.recency + parts.journal + parts.human };
}
