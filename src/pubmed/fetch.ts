/**
 * pubmed_fetch: EFetch by PMID list or by history (WebEnv + query_key), parsed or raw.
 */
import { setImmediate as macrotask } from "node:timers/promises";
import type { EFetchTarget } from "../ncbi/eutils.js";
import { linkNotices, mergeNotices, noticesFromArticle } from "../ncbi/notices.js";
import type { Article } from "../ncbi/types.js";
import { getEutils } from "../state.js";
import { withCrossrefNotices } from "../trust/notices.js";
import { articleOutput, type ArticleOutput } from "./article-output.js";

export type DetailLevel = "abstract_plus" | "full_xml" | "medline_text" | "citation_data";

export interface FetchInput {
  target: EFetchTarget;
  detailLevel: DetailLevel;
  includeMeshTerms: boolean;
  includeGrantInfo: boolean;
}

export interface EFetchDetails {
  urls: string[];
  requestMethod: "GET" | "POST";
}

export type FetchOutput =
  | {
      articles: ArticleOutput[];
      notFoundPmids?: string[];
      eFetchDetails: EFetchDetails;
      /** Only when Crossref was configured and failed (its notices are then missing). */
      warnings?: string[];
    }
  | { detailLevel: "full_xml" | "medline_text"; text: string; eFetchDetails: EFetchDetails };

/** Fetches and parses records; shared by pubmed_fetch, pubmed_cite and the corpus sync. */
export async function fetchArticles(
  target: EFetchTarget,
  signal: AbortSignal,
): Promise<{ articles: Article[]; details: EFetchDetails }> {
  const res = await getEutils().efetchArticles(target, { signal });
  return { articles: res.value, details: { urls: [res.url], requestMethod: res.method } };
}

export function notFound(
  requested: readonly string[],
  articles: Pick<Article, "pmid">[],
): string[] {
  const found = new Set(articles.map((a) => a.pmid));
  return requested.filter((p) => !found.has(p));
}

export async function fetchPubmed(input: FetchInput, signal: AbortSignal): Promise<FetchOutput> {
  const { target, detailLevel } = input;
  if (detailLevel === "full_xml" || detailLevel === "medline_text") {
    const format = detailLevel === "full_xml" ? "xml" : "medline";
    const res = await getEutils().efetchText(target, format, { signal });
    return {
      detailLevel,
      text: res.body,
      eFetchDetails: { urls: [res.url], requestMethod: res.method },
    };
  }
  const { articles, details } = await fetchArticles(target, signal);
  const parts = {
    citationOnly: detailLevel === "citation_data",
    meshTerms: input.includeMeshTerms,
    grants: input.includeGrantInfo,
  };
  const missing = "pmids" in target ? notFound(target.pmids, articles) : [];
  const notices = await articleNotices(articles, signal);
  return {
    articles: await inSlices(articles, (a, i) => articleOutput(a, parts, notices.notices[i])),
    ...(missing.length > 0 && { notFoundPmids: missing }),
    eFetchDetails: details,
    ...(notices.warning !== undefined && { warnings: [notices.warning] }),
  };
}

/**
 * Each article's notices: its own (CommentsCorrections, publication types), those of notices in
 * the same answer pointing back at it, and Crossref's for its DOI when Crossref is configured.
 */
async function articleNotices(articles: readonly Article[], signal: AbortSignal) {
  const linked = linkNotices(articles);
  const records = await inSlices(articles, (a) => ({
    doi: a.doi,
    notices: mergeNotices([...noticesFromArticle(a), ...(linked.get(a.pmid) ?? [])]),
  }));
  return withCrossrefNotices(records, signal, "PubMed");
}

/** Records per slice of an answer's mapping: 200 records' outputs and notices are ~20 ms of CPU. */
const SLICE = 50;

/** `items.map(fn)`, the MCP loop free for other sessions between slices of SLICE items. */
async function inSlices<T, U>(items: readonly T[], fn: (item: T, i: number) => U): Promise<U[]> {
  const out: U[] = [];
  for (const item of items) {
    if (out.length > 0 && out.length % SLICE === 0) await macrotask();
    out.push(fn(item, out.length));
  }
  return out;
}
