/**
 * Candidate records from parsed PubMed records (docs/reviews.md, "Adding records"; Europe PMC's
 * are read in ./gather.ts). Identifiers are normalised here once (src/store/review-keys.ts
 * compares them), so every source meets the store in the same shape.
 */
import type { Article, Author } from "../ncbi/types.js";
import { noticesFromArticle } from "../ncbi/notices.js";
import { normaliseDoi } from "../store/review-keys.js";
import type { Candidate, ReviewAuthor } from "../store/review-types.js";

const author = (a: Author): ReviewAuthor | null => {
  if (a.lastName) {
    const given = a.firstName ?? a.initials;
    return given ? { family: a.lastName, given } : { family: a.lastName };
  }
  return a.collectiveName ? { family: a.collectiveName } : null;
};

const yearOf = (text: string | null | undefined): number | undefined => {
  const y = Number(/\b(1[89]\d\d|20\d\d)\b/.exec(text ?? "")?.[1]);
  return Number.isInteger(y) && y > 0 ? y : undefined;
};

const defined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as T;

export function articleCandidate(a: Article): Candidate {
  const j = a.journalInfo;
  return defined({
    hitKey: `pmid:${a.pmid}`,
    pmid: a.pmid,
    doi: normaliseDoi(a.doi) ?? undefined,
    pmcid: a.pmcid?.toUpperCase() ?? undefined,
    title: a.title,
    abstract: a.abstractText,
    journal: j.title ?? j.isoAbbreviation ?? undefined,
    year: yearOf(j.publicationDate.year ?? j.publicationDate.medlineDate),
    volume: j.volume ?? undefined,
    issue: j.issue ?? undefined,
    pages: j.pages ?? undefined,
    authors: a.authors.map(author).filter((x): x is ReviewAuthor => x !== null),
    mesh: a.meshTerms.map((m) => m.descriptorName),
    pubTypes: a.publicationTypes,
    notices: noticesFromArticle(a),
  });
}
