/**
 * Identity check for full-text tiers: the article a service returns must carry the identifier
 * that was asked for (PMID; PMCID with or without "PMC"; DOI case-insensitively, with or without
 * a doi.org / "doi:" prefix). A service that answers with another paper — a known failure of
 * full-text tools — fails its tier instead of producing a wrong result.
 */
import type { JatsArticle } from "../jats/types.js";
import { normalizePmcid } from "../ncbi/ids.js";

export type IdentifierType = "pmid" | "pmcid" | "doi";

export interface RequestedId {
  type: IdentifierType;
  value: string;
}

/** DOI for comparison: prefixes stripped, lower-cased (DOIs are case-insensitive). */
export function normalizeDoi(value: string): string {
  return value
    .trim()
    .replace(/^(?:https?:\/\/)?(?:dx\.)?doi\.org\//i, "")
    .replace(/^doi:\s*/i, "")
    .toLowerCase();
}

function normalizePmid(value: string): string | null {
  const match = /^\s*0*(\d+)\s*$/.exec(value);
  return match?.[1] ?? null;
}

/** True when `article` carries `id`; an article without that kind of identifier does not. */
export function carriesIdentifier(
  article: Pick<JatsArticle, "pmid" | "pmcid" | "doi">,
  id: RequestedId,
): boolean {
  switch (id.type) {
    case "pmid": {
      const asked = normalizePmid(id.value);
      return asked !== null && article.pmid !== undefined && normalizePmid(article.pmid) === asked;
    }
    case "pmcid": {
      const asked = normalizePmcid(id.value);
      return (
        asked !== null && article.pmcid !== undefined && normalizePmcid(article.pmcid) === asked
      );
    }
    case "doi":
      return article.doi !== undefined && normalizeDoi(article.doi) === normalizeDoi(id.value);
  }
}

/** The article among `articles` that carries `id`, or undefined (a tier failure, not a result). */
export function findArticle<T extends Pick<JatsArticle, "pmid" | "pmcid" | "doi">>(
  articles: readonly T[],
  id: RequestedId,
): T | undefined {
  return articles.find((a) => carriesIdentifier(a, id));
}

/** Describes what the article carries, for the `tried[]` reason of a mismatch. */
export function describeIdentity(article: Pick<JatsArticle, "pmid" | "pmcid" | "doi">): string {
  const parts = [
    article.pmid !== undefined ? `PMID ${article.pmid}` : null,
    article.pmcid ?? null,
    article.doi !== undefined ? `DOI ${article.doi}` : null,
  ].filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(", ") : "no identifier";
}
