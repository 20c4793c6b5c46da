/**
 * The sources a review reads on the MCP thread, where their clients live (Europe PMC, the ID
 * converter, ELink; the review_add tool passes them in): each returns PMIDs or candidates for the
 * corpus worker to fetch, deduplicate and store (./add.ts). Only replies of a few hundred
 * kilobytes are read here; the bulk of a review (EFetch of thousands of records) is fetched and
 * parsed in the worker.
 */
import { AppError, ValidationError } from "../errors.js";
import { noticesFromArticle } from "../ncbi/notices.js";
import { plainText } from "../europepmc/europepmc.js";
import { fetchEuropePmcLinks, searchEuropePmcRecords } from "../europepmc/requests.js";
import type { Eutils } from "../ncbi/eutils.js";
import { classifyIds, MAX_IDS_PER_CALL } from "../ncbi/idconv.js";
import type { PoliteClient } from "../net/polite-client.js";
import { isRecord, list, str, type Json } from "../net/reply.js";
import { normaliseDoi } from "../store/review-keys.js";
import type { Candidate } from "../store/review-types.js";

/** Europe PMC results per page (its maximum is 1,000; core replies run to ~5 kB a record). */
const EPMC_PAGE = 500;
/** PMIDs per ELink request. */
const ELINK_BATCH = 100;
/** Included records asked of Europe PMC one by one when ELink has no links for them, at most. */
const EPMC_FALLBACK = 50;

const yearOf = (v: unknown) => {
  const y = Number(str(v)?.slice(0, 4));
  return Number.isInteger(y) && y > 1800 ? y : undefined;
};

/** A version link of a core result (preprint ↔ published), as a review record id. */
function versionLinks(r: Json): string[] {
  const corrections = list(
    isRecord(r.commentCorrectionList) ? r.commentCorrectionList.commentCorrection : undefined,
  ).filter(isRecord);
  return corrections.flatMap((c) => {
    if (!/preprint|published|version/i.test(str(c.type) ?? "")) return [];
    const id = str(c.id);
    if (!id) return [];
    if (str(c.source) === "MED" && /^\d+$/.test(id)) return [`pmid:${id}`];
    if (str(c.source) === "PPR") return [`ppr:${id.toUpperCase()}`];
    return [];
  });
}

function authorsOf(r: Json): Candidate["authors"] {
  const authors = list(isRecord(r.authorList) ? r.authorList.author : undefined).filter(isRecord);
  return authors.flatMap((a) => {
    const family = str(a.lastName) ?? str(a.collectiveName);
    if (!family) return [];
    const given = str(a.firstName) ?? str(a.initials);
    return [given ? { family, given } : { family }];
  });
}

/** One Europe PMC core result → a candidate; null without a title or any identifier. */
export function europePmcRecord(r: Json): Candidate | null {
  const source = str(r.source);
  const id = str(r.id);
  const pmid = str(r.pmid);
  const doi = normaliseDoi(str(r.doi)) ?? undefined;
  const pprid = source === "PPR" && id ? id.toUpperCase() : undefined;
  const title = plainText(str(r.title) ?? "");
  if (!title || (!pmid && !doi && !pprid)) return null;
  const journalInfo = isRecord(r.journalInfo) ? r.journalInfo : {};
  const journal = isRecord(journalInfo.journal) ? journalInfo.journal : {};
  const pubTypes = list(isRecord(r.pubTypeList) ? r.pubTypeList.pubType : undefined)
    .map(str)
    .filter((t): t is string => t !== undefined);
  const mesh = list(isRecord(r.meshHeadingList) ? r.meshHeadingList.meshHeading : undefined)
    .filter(isRecord)
    .flatMap((m) => str(m.descriptorName) ?? []);
  const corrections = list(
    isRecord(r.commentCorrectionList) ? r.commentCorrectionList.commentCorrection : undefined,
  ).filter(isRecord);
  const notices = noticesFromArticle({
    publicationTypes: pubTypes,
    commentsCorrections: corrections.flatMap((c) => {
      const refType = str(c.type);
      const cid = str(c.id);
      return refType
        ? [{ refType, pmid: str(c.source) === "MED" && cid && /^\d+$/.test(cid) ? cid : null }]
        : [];
    }),
  });
  const versions = versionLinks(r);
  const candidate: Candidate = {
    hitKey: pmid ? `pmid:${pmid}` : pprid ? `ppr:${pprid}` : `doi:${doi}`,
    title,
    abstract: plainText(str(r.abstractText) ?? ""),
    authors: authorsOf(r),
    mesh,
    pubTypes:
      pprid && !pubTypes.some((t) => /preprint/i.test(t)) ? [...pubTypes, "Preprint"] : pubTypes,
    notices,
  };
  const pmcid = str(r.pmcid)?.toUpperCase();
  const journalTitle = str(journal.title) ?? str(journal.isoabbreviation);
  const year = yearOf(r.pubYear) ?? yearOf(journalInfo.yearOfPublication);
  for (const [key, value] of Object.entries({
    pmid,
    doi,
    pmcid,
    pprid,
    journal: journalTitle,
    year,
    volume: str(journalInfo.volume),
    issue: str(journalInfo.issue),
    pages: str(r.pageInfo),
    versionOf: versions.length > 0 ? versions : undefined,
  })) {
    if (value !== undefined) (candidate as unknown as Json)[key] = value;
  }
  return candidate;
}

/**
 * Every result of a Europe PMC query (preprints included) up to `max`, page by page with the
 * cursor. `onPage` reports progress.
 */
export async function europePmcCandidates(
  europePmc: PoliteClient,
  query: string,
  max: number,
  signal: AbortSignal,
  onPage?: (done: number, total: number) => Promise<void> | void,
): Promise<{ candidates: Candidate[]; hitCount: number }> {
  const candidates: Candidate[] = [];
  let cursor = "*";
  let hitCount = 0;
  while (candidates.length < max) {
    const page = await searchEuropePmcRecords(
      europePmc,
      {
        query,
        resultType: "core",
        pageSize: Math.min(EPMC_PAGE, max - candidates.length),
        cursorMark: cursor,
      },
      signal,
    );
    hitCount = page.hitCount;
    const results = page.records;
    for (const r of results) {
      const c = isRecord(r) ? europePmcRecord(r) : null;
      if (c && candidates.length < max) candidates.push(c);
    }
    await onPage?.(candidates.length, Math.min(hitCount, max));
    const next = page.nextCursorMark;
    if (!next || next === cursor || results.length === 0) break;
    cursor = next;
  }
  return { candidates, hitCount };
}

/** DOIs per ESearch of DOIs the converter did not map ("a"[doi] OR "b"[doi] …). */
const DOI_SEARCH_BATCH = 20;

/**
 * PMIDs of PMIDs/PMCIDs/DOIs: PMCIDs and DOIs through the ID converter, and the DOIs it does not
 * map (it knows PMC articles only) by an ESearch of PubMed's [doi] field. `searched` lists those
 * DOIs: whether each was found shows only once the records are fetched (./add.ts addPmids).
 */
export async function pmidsOfIds(
  eutils: Eutils,
  ids: readonly string[],
  signal: AbortSignal,
): Promise<{ pmids: string[]; unmatched: string[]; searched: string[] }> {
  const pmids: string[] = [];
  const unmatched: string[] = [];
  const dois: string[] = [];
  for (let i = 0; i < ids.length; i += MAX_IDS_PER_CALL) {
    const classified = classifyIds(ids.slice(i, i + MAX_IDS_PER_CALL), "ids");
    const toConvert = classified.filter((c) => c.type !== "pmid");
    for (const c of classified) if (c.type === "pmid") pmids.push(c.id);
    if (toConvert.length === 0) continue;
    const converted = await eutils.convertClassified(toConvert, signal);
    converted.forEach((r, k) => {
      const asked = toConvert[k];
      if (r.pmid) pmids.push(r.pmid);
      else if (asked?.type === "doi") dois.push(asked.id);
      else unmatched.push(r.input);
    });
  }
  for (let i = 0; i < dois.length; i += DOI_SEARCH_BATCH) {
    const batch = dois.slice(i, i + DOI_SEARCH_BATCH);
    const { value: found } = await eutils.esearch(
      {
        db: "pubmed",
        term: batch.map((d) => `"${d.replace(/"/g, "")}"[doi]`).join(" OR "),
        retmax: batch.length * 2,
      },
      { signal },
    );
    pmids.push(...found.ids);
  }
  return { pmids: [...new Set(pmids)], unmatched, searched: dois };
}

/**
 * The references (backward) or citing records (forward) of the included records, by ELink, with
 * Europe PMC standing in for the records ELink has no links for (as pubmed_related does).
 */
export async function citationPmids(
  eutils: Eutils,
  europePmc: PoliteClient,
  included: readonly string[],
  direction: "backward" | "forward",
  signal: AbortSignal,
): Promise<string[]> {
  if (included.length === 0) {
    throw new ValidationError(
      "The review has no included records yet: citation searching follows the references " +
        "(backward) or citing papers (forward) of included records. Decide some first with review_decide.",
    );
  }
  const linkName = direction === "backward" ? "pubmed_pubmed_refs" : "pubmed_pubmed_citedin";
  const found = new Set<string>();
  // ELink merges the link sets of the records asked together: a batch with no links at all is
  // asked of Europe PMC record by record (PubMed has reference and cited-by links for some
  // journals only).
  const unlinked: string[] = [];
  for (let i = 0; i < included.length; i += ELINK_BATCH) {
    const ids = included.slice(i, i + ELINK_BATCH);
    const { value: linked } = await eutils.elink(
      { ids, linkname: linkName, cmd: "neighbor" },
      { signal },
    );
    const links = linked.linkSets.find((s) => s.linkName === linkName)?.links;
    if (!links?.length) unlinked.push(...ids);
    for (const l of links ?? []) found.add(l.pmid);
  }
  const kind = direction === "backward" ? "references" : "citations";
  for (const pmid of unlinked.slice(0, EPMC_FALLBACK)) {
    // Europe PMC failing costs that record's links only; a cancelled call still stops here.
    const links = await fetchEuropePmcLinks(europePmc, pmid, kind, {
      signal,
      pageSize: 1000,
    }).catch((err: unknown) => {
      if (signal.aborted || !(err instanceof AppError)) throw err;
      return null;
    });
    for (const item of links?.items ?? []) if (item.pmid) found.add(item.pmid);
  }
  for (const p of included) found.delete(p);
  return [...found];
}
