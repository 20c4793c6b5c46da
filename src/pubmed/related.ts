/**
 * pubmed_related: ELink neighbours (similar, cited by, references) with ESummary details.
 */
import { isoFromPubDate } from "../eutils/dates.js";
import { parseELink } from "../eutils/parse/elink.js";
import { parseESummary } from "../eutils/parse/esummary.js";
import { getEutils } from "../state.js";

export type Relationship = "similar" | "cited_by" | "references";

const LINK_NAME: Record<Relationship, string> = {
  similar: "pubmed_pubmed",
  cited_by: "pubmed_pubmed_citedin",
  references: "pubmed_pubmed_refs",
};

export interface RelatedArticle {
  pmid: string;
  title: string;
  authors: string[];
  source: string;
  pubDate: string;
  score: number | null;
}

export interface RelatedOutput {
  sourcePmid: string;
  relationship: Relationship;
  totalFound: number;
  related: RelatedArticle[];
}

export async function relatedArticles(
  pmid: string,
  relationship: Relationship,
  maxResults: number,
  signal: AbortSignal,
): Promise<RelatedOutput> {
  const eutils = getEutils();
  const linkName = LINK_NAME[relationship];
  const res = await eutils.request(
    "elink",
    {
      dbfrom: "pubmed",
      db: "pubmed",
      id: pmid,
      linkname: linkName,
      // Only "similar" links carry relevance scores; neighbor_score asks for them.
      cmd: relationship === "similar" ? "neighbor_score" : "neighbor",
    },
    { signal },
  );
  const parsed = parseELink(res.body);
  const links = (parsed.linkSets.find((s) => s.linkName === linkName)?.links ?? []).filter(
    (l) => l.pmid !== pmid, // NCBI lists the article itself as its own best "similar" match
  );
  const top = links.slice(0, maxResults);
  const related: RelatedArticle[] = [];
  if (top.length > 0) {
    const sum = await eutils.request(
      "esummary",
      { db: "pubmed", id: top.map((l) => l.pmid), version: "2.0" },
      { signal },
    );
    const byPmid = new Map(parseESummary(sum.body).summaries.map((s) => [s.pmid, s]));
    for (const link of top) {
      const s = byPmid.get(link.pmid);
      related.push({
        pmid: link.pmid,
        title: s?.title ?? "",
        authors: s?.authors ?? [],
        source: s?.source ?? "",
        pubDate: isoFromPubDate(s?.pubDate ?? ""),
        score: link.score,
      });
    }
  }
  return { sourcePmid: pmid, relationship, totalFound: links.length, related };
}
