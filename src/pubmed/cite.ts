/**
 * pubmed_cite: fetch records once, then render each requested style from one CSL-JSON item.
 */
import { formatCitations, type CitationStyle } from "../eutils/cite.js";
import { fetchArticles, notFound } from "./fetch.js";

export interface CiteOutput {
  citations: { pmid: string; formats: Partial<Record<CitationStyle, string>> }[];
  notFoundPmids: string[];
}

export async function citePubmed(
  pmids: string[],
  styles: CitationStyle[],
  signal: AbortSignal,
): Promise<CiteOutput> {
  const { articles } = await fetchArticles({ pmids }, signal);
  const byPmid = new Map(articles.map((a) => [a.pmid, a]));
  const citations = pmids.flatMap((pmid) => {
    const article = byPmid.get(pmid);
    return article ? [{ pmid, formats: formatCitations(article, styles) }] : [];
  });
  return { citations, notFoundPmids: notFound(pmids, articles) };
}
