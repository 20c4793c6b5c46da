/**
 * Records with integrity notices for the trust tests. No recorded reply in ../shared carries a
 * retraction, so each is a recorded reply with notice links inserted here, saying what was added:
 * - EFetch: the one record of biopython/Entrez/pubmed4.xml (PMID 27797938, Gut 2017 Jun, DOI
 *   10.1136/gutjnl-2016-312510) under another PMID and DOI, with CommentsCorrections and
 *   publication types added;
 * - ESummary v2.0: Eutils-JSON/samples/esummary.pubmed.xml (uids 5683731 and 22144687) with
 *   `<PubType><flag>` entries and `<References><Reference>` items added in the shape its DTD
 *   (Eutils-JSON/samples/eSummary_pubmed.dtd: RefSource, RefType, PMID) gives them;
 * - Europe PMC: pyEuropePMC's search_cancer_core.json, its first result (MED 39709209) with a
 *   pubTypeList and a commentCorrectionList added in the shape its other results carry.
 */
import { eutilsFixture, literatureFixture } from "../helpers/shared.js";

export interface Link {
  refType: string;
  refSource: string;
  pmid?: string;
}

const EFETCH_PMID = "27797938";
const EFETCH_DOI = "10.1136/gutjnl-2016-312510";

/** pubmed4.xml's record as `pmid` / `doi`, with `links` and `types` added. */
export function efetchRecord(
  pmid: string,
  doi: string,
  opts: { links?: Link[]; types?: string[] } = {},
): string {
  const base = /<PubmedArticle>[\s\S]*<\/PubmedArticle>/.exec(
    eutilsFixture("biopython/Entrez/pubmed4.xml"),
  )?.[0];
  if (!base) throw new Error("pubmed4.xml has no PubmedArticle");
  const links = (opts.links ?? [])
    .map(
      (l) =>
        `<CommentsCorrections RefType="${l.refType}"><RefSource>${l.refSource}</RefSource>` +
        `${l.pmid ? `<PMID Version="1">${l.pmid}</PMID>` : ""}</CommentsCorrections>`,
    )
    .join("");
  const types = (opts.types ?? [])
    .map((t) => `<PublicationType UI="D016441">${t}</PublicationType>`)
    .join("");
  return base
    .split(EFETCH_PMID)
    .join(pmid)
    .split(EFETCH_DOI)
    .join(doi)
    .replace("<CommentsCorrectionsList>", `<CommentsCorrectionsList>${links}`)
    .replace("</PublicationTypeList>", `${types}</PublicationTypeList>`);
}

/** esummary.pubmed.xml with `flags` added to each uid's PubType and `refs` to its References. */
export function esummaryReply(add: Record<string, { flags?: string[]; refs?: Link[] }>): string {
  let xml = eutilsFixture("Eutils-JSON/samples/esummary.pubmed.xml");
  for (const [uid, { flags = [], refs = [] }] of Object.entries(add)) {
    const start = xml.indexOf(`<DocumentSummary uid="${uid}">`);
    const end = xml.indexOf("</DocumentSummary>", start);
    if (start < 0) throw new Error(`esummary.pubmed.xml has no uid ${uid}`);
    const doc = xml
      .slice(start, end)
      .replace("</PubType>", `${flags.map((f) => `<flag>${f}</flag>`).join("")}</PubType>`)
      .replace(
        /<References>\s*<\/References>/,
        `<References>${refs
          .map(
            (r) =>
              `<Reference><RefSource>${r.refSource}</RefSource><RefType>${r.refType}</RefType>` +
              `<PMID>${r.pmid ?? 0}</PMID><Note></Note></Reference>`,
          )
          .join("")}</References>`,
      );
    xml = xml.slice(0, start) + doc + xml.slice(end);
  }
  return xml;
}

/** esearch.pubmed.xml answering with `ids` only. */
export function esearchReply(ids: readonly string[]): string {
  return eutilsFixture("Eutils-JSON/samples/esearch.pubmed.xml")
    .replace(/<Count>\d+<\/Count>/, `<Count>${ids.length}</Count>`)
    .replace(
      /<IdList>[\s\S]*<\/IdList>/,
      `<IdList>${ids.map((i) => `<Id>${i}</Id>`).join("")}</IdList>`,
    );
}

export interface EuropePmcCorrection {
  type: string;
  id: string;
  source: string;
  reference: string;
}

/** search_cancer_core.json with its first result's pubTypeList and commentCorrectionList set. */
export function europePmcReply(pubTypes: string[], corrections: EuropePmcCorrection[]): string {
  const page = JSON.parse(
    literatureFixture("pyEuropePMC/tests/fixtures/search_cancer_core.json"),
  ) as { resultList: { result: Record<string, unknown>[] } };
  const first = page.resultList.result[0];
  if (!first) throw new Error("search_cancer_core.json has no results");
  first.pubTypeList = { pubType: pubTypes };
  first.commentCorrectionList = {
    commentCorrection: corrections.map((c, i) => ({ ...c, orderIn: i + 1 })),
  };
  return JSON.stringify(page);
}
