/**
 * pubmed_cite: fetch records once, then render each requested style from one CSL-JSON item, in
 * the live thread (src/live/live-thread.ts): citation-js's work never runs on the MCP loop.
 */
import type { CitationStyle } from "../live/citations.js";
import { liveThread } from "../live/live-thread.js";
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
  const found = pmids.flatMap((pmid) => byPmid.get(pmid) ?? []);
  const formats = await liveThread().formatCitations(found, styles, signal);
  return {
    citations: found.map((article, i) => ({ pmid: article.pmid, formats: formats[i] ?? {} })),
    notFoundPmids: notFound(pmids, articles),
  };
}
