/**
 * pubmed_related: ELink neighbours (similar, cited by, references) with ESummary details. When
 * ELink has no cited-by or reference links (PubMed has them only for some journals), Europe PMC's
 * citations/references of the record stand in, and the answer says so (`source`, `note`).
 */
import { RateLimitError, UpstreamError } from "../errors.js";
import type { EuropePmcLinks } from "../europepmc/europepmc.js";
import { europePmcLinks } from "../literature/reading.js";
import { isoFromPubDate } from "../ncbi/dates.js";
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
  /** "europepmc" when ELink had no links and Europe PMC's were used instead. */
  source?: "europepmc";
  /** Why the answer is not ELink's: the fallback taken, or why it could not be. */
  note?: string;
}

export async function relatedArticles(
  pmid: string,
  relationship: Relationship,
  maxResults: number,
  signal: AbortSignal,
): Promise<RelatedOutput> {
  const eutils = getEutils();
  const linkName = LINK_NAME[relationship];
  const { value: parsed } = await eutils.elink(
    {
      ids: [pmid],
      linkname: linkName,
      // Only "similar" links carry relevance scores; neighbor_score asks for them.
      cmd: relationship === "similar" ? "neighbor_score" : "neighbor",
    },
    { signal },
  );
  const links = (parsed.linkSets.find((s) => s.linkName === linkName)?.links ?? []).filter(
    (l) => l.pmid !== pmid, // NCBI lists the article itself as its own best "similar" match
  );
  if (links.length === 0 && relationship !== "similar") {
    return fromEuropePmc(pmid, relationship, maxResults, signal);
  }
  const top = links.slice(0, maxResults);
  const related: RelatedArticle[] = [];
  if (top.length > 0) {
    const { value: sum } = await eutils.esummary(
      top.map((l) => l.pmid),
      { signal },
    );
    const byPmid = new Map(sum.summaries.map((s) => [s.pmid, s]));
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

/**
 * Europe PMC's citations (for cited_by) or references of MED/{pmid}. Entries without a PMID
 * (preprints, books, unmatched references) cannot be related PubMed articles and are counted in the
 * note. A Europe PMC failure leaves ELink's empty answer standing, with the reason in the note.
 */
async function fromEuropePmc(
  pmid: string,
  relationship: Exclude<Relationship, "similar">,
  maxResults: number,
  signal: AbortSignal,
): Promise<RelatedOutput> {
  const what = relationship === "cited_by" ? "cited-by" : "reference";
  const none = `PubMed (ELink) has no ${what} links for PMID ${pmid}`;
  const kind = relationship === "cited_by" ? "citations" : "references";
  let found: EuropePmcLinks;
  try {
    found = await europePmcLinks(pmid, kind, { signal, pageSize: maxResults });
  } catch (err) {
    if (signal.aborted || !(err instanceof RateLimitError || err instanceof UpstreamError)) {
      throw err;
    }
    const note = `${none}, and Europe PMC could not be asked: ${err.message}`;
    return { sourcePmid: pmid, relationship, totalFound: 0, related: [], note };
  }
  const related = found.items.flatMap((item): RelatedArticle[] =>
    item.pmid === undefined
      ? []
      : [
          {
            pmid: item.pmid,
            title: item.title ?? "",
            authors: (item.authors ?? "").split(/,\s*/).filter((a) => a !== "" && a !== "et al."),
            source: item.journal ?? "",
            pubDate: item.year ?? "",
            score: null,
          },
        ],
  );
  const withoutPmid = found.items.length - related.length;
  const note =
    found.hitCount === 0
      ? `${none}, and Europe PMC has none either.`
      : `${none}; these are Europe PMC's ${kind} of MED/${pmid} (${found.hitCount} in all` +
        (withoutPmid > 0 ? `; ${withoutPmid} without a PMID left out).` : ").");
  return {
    sourcePmid: pmid,
    relationship,
    totalFound: found.hitCount,
    related,
    source: "europepmc",
    note,
  };
}
