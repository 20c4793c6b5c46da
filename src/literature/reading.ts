/**
 * What the reading tools ask of their upstreams, each call through its upstream's façade (src/ncbi,
 * src/jats, src/europepmc, src/unpaywall, src/pubtator: the requests and the reading of replies)
 * with this process's client of that upstream (src/state.ts: its limiter, retries, deadline and
 * cache):
 *
 *   convertIds(["10.1038/ng.590", "PMC3040717"], { signal })  → ConvertedId[] (input order, per-id errors)
 *   fetchPmcJats("PMC3040717", signal)                         → JatsDocument (EFetch db=pmc JATS)
 *   europePmcFullTextXml("PMC3040717", signal)      → JatsDocument | { unavailable }   (404 / error bean)
 *   europePmcLinks("20516115", "citations", { signal })        → EuropePmcLinks
 *   unpaywallLookup("10.1038/ng.590", signal)        → UnpaywallRecord | { skipped }   (no UNPAYWALL_EMAIL)
 *   pubtatorExport(["22663011"], false, { signal })  → { articles, notFound }
 *
 * They never know about MCP; errors are the typed ones of src/errors.ts: RateLimitError /
 * UpstreamError naming the service, NotFoundError (Unpaywall: DOI unknown), ValidationError for
 * malformed identifiers.
 */
import { fetchEuropePmcFullText, fetchEuropePmcLinks } from "../europepmc/requests.js";
import type { EuropePmcLinks } from "../europepmc/europepmc.js";
import { fetchPmcFullText } from "../jats/pmc.js";
import type { JatsDocument } from "../jats/types.js";
import type { ConvertOptions } from "../ncbi/eutils.js";
import type { ClassifiedId, ConvertedId } from "../ncbi/idconv.js";
import {
  fetchPubtatorExport,
  type AnnotatedArticle,
  type PubtatorOptions,
} from "../pubtator/pubtator.js";
import { getEuropePmc, getEutils, getPubtator, getUnpaywall } from "../state.js";
import { fetchUnpaywallRecord, type UnpaywallRecord } from "../unpaywall/unpaywall.js";

export type { ConvertOptions };

/** The PMC ID Converter for up to 200 identifiers of any mix (src/ncbi/eutils.ts convertIds). */
export async function convertIds(
  ids: readonly (string | number)[],
  opts: ConvertOptions = {},
): Promise<ConvertedId[]> {
  return getEutils().convertIds(ids, opts);
}

/** As convertIds, for ids already classified (src/ncbi/idconv.ts classifyIds). */
export async function convertClassified(
  ids: readonly ClassifiedId[],
  signal?: AbortSignal,
): Promise<ConvertedId[]> {
  return getEutils().convertClassified(ids, signal);
}

/** EFetch db=pmc for one or more PMCIDs, read as JATS (src/jats/pmc.ts). */
export async function fetchPmcJats(
  pmcids: string | readonly string[],
  signal?: AbortSignal,
): Promise<JatsDocument> {
  return fetchPmcFullText(getEutils(), pmcids, signal);
}

/** Europe PMC's JATS for a PMCID, or why it has none (src/europepmc/requests.ts). */
export async function europePmcFullTextXml(
  pmcid: string,
  signal?: AbortSignal,
): Promise<JatsDocument | { unavailable: string }> {
  return fetchEuropePmcFullText(getEuropePmc(), pmcid, signal);
}

/** Europe PMC's citations of a PubMed record, or its references (src/europepmc/requests.ts). */
export async function europePmcLinks(
  pmid: string,
  kind: "citations" | "references",
  opts: { signal?: AbortSignal; page?: number; pageSize?: number } = {},
): Promise<EuropePmcLinks> {
  return fetchEuropePmcLinks(getEuropePmc(), pmid, kind, opts);
}

/** Unpaywall's record for a DOI; `{ skipped }` without UNPAYWALL_EMAIL (src/unpaywall). */
export async function unpaywallLookup(
  doi: string,
  signal?: AbortSignal,
): Promise<UnpaywallRecord | { skipped: string }> {
  return fetchUnpaywallRecord(getUnpaywall(), doi, signal);
}

/** PubTator3's annotations of up to 100 PMIDs (src/pubtator). */
export async function pubtatorExport(
  pmids: readonly string[],
  fullText: boolean,
  opts: Omit<PubtatorOptions, "fullText"> & { signal?: AbortSignal } = {},
): Promise<{ articles: AnnotatedArticle[]; notFound: string[] }> {
  return fetchPubtatorExport(getPubtator(), pmids, fullText, opts);
}
