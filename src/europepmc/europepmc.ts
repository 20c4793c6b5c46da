/**
 * Europe PMC REST replies (https://europepmc.org/RestfulWebService), JSON format:
 * - search (GET {EUROPEPMC_BASE_URL}/search?query=…&format=json&resultType=lite|core&pageSize=…
 *   &cursorMark=…): hits of every source — MED (PubMed), PMC, PPR (preprints), AGR, CBA, CTX, ETH,
 *   HIR, PAT — paged by cursorMark (`*` first, then the reply's nextCursorMark);
 * - /{source}/{id}/citations and /{source}/{id}/references (format=json), the fallback of
 *   pubmed_related when ELink has no cited-by or reference links;
 * - error bodies (`errorBean`) and what a fullTextXML reply that is not an article means.
 */
import { z } from "zod";
import { UpstreamError } from "../errors.js";
import type { CommentCorrection } from "../ncbi/types.js";
import { noticeSchema, noticesFromArticle } from "../ncbi/notices.js";
import {
  compact,
  count,
  isRecord,
  list,
  parseJsonReply,
  snippet,
  str,
  type Json,
} from "../net/reply.js";

const SERVICE = "Europe PMC";
export const DEFAULT_ABSTRACT_CHARS = 600;
const MAX_AUTHORS = 3;

export const europePmcHitSchema = z.object({
  source: z.string(),
  id: z.string(),
  pmid: z.string().optional(),
  pmcid: z.string().optional(),
  doi: z.string().optional(),
  title: z.string().optional(),
  /** "Lee MS, Green R, Marsillac SM, et al." */
  authors: z.string().optional(),
  journal: z.string().optional(),
  /** ISO-8601 date of first publication, or the year alone. */
  pubDate: z.string().optional(),
  citedByCount: z.int().optional(),
  isOpenAccess: z.literal(true).optional(),
  /** Full text readable on Europe PMC. */
  hasFullText: z.literal(true).optional(),
  preprint: z.literal(true).optional(),
  retracted: z.literal(true).optional(),
  retractionNotice: z.literal(true).optional(),
  /** Integrity notices (src/ncbi/notices.ts); absent when none is known. */
  notices: z.array(noticeSchema).optional(),
  license: z.string().optional(),
  /** resultType=core only: plain text, cut at a word to the requested length. */
  abstract: z.string().optional(),
});
export type EuropePmcHit = z.output<typeof europePmcHitSchema>;

export const europePmcSearchSchema = z.object({
  hitCount: z.int(),
  /** Pass back as cursorMark for the next page; absent on the last page. */
  nextCursorMark: z.string().optional(),
  results: z.array(europePmcHitSchema),
  /** Only when Crossref was asked for notices and failed. */
  warnings: z.array(z.string()).optional(),
});
export type EuropePmcSearch = z.output<typeof europePmcSearchSchema>;

export function parseEuropePmcSearch(
  body: string,
  options: { abstractChars?: number } = {},
): EuropePmcSearch {
  const reply = readReply(body, "search");
  const hitCount = count(reply.hitCount);
  const resultList = reply.resultList;
  if (hitCount === undefined || (hitCount > 0 && !isRecord(resultList))) {
    throw new UpstreamError(
      `${SERVICE} returned an unexpected search reply (no hitCount or resultList); retry the call.`,
      { service: "europepmc" },
    );
  }
  const abstractChars = options.abstractChars ?? DEFAULT_ABSTRACT_CHARS;
  const results = list(isRecord(resultList) ? resultList.result : undefined)
    .filter(isRecord)
    .map((r) => toHit(r, abstractChars))
    .filter((h): h is EuropePmcHit => h !== null);
  // On the last page Europe PMC hands back the cursor it was given.
  const asked = isRecord(reply.request) ? decode(str(reply.request.cursorMark)) : undefined;
  const next = str(reply.nextCursorMark);
  const hasNext = next !== undefined && next !== asked && results.length > 0;
  return hasNext ? { hitCount, nextCursorMark: next, results } : { hitCount, results };
}

function toHit(r: Json, abstractChars: number): EuropePmcHit | null {
  const source = str(r.source);
  const id = str(r.id);
  if (source === undefined || id === undefined) return null;
  const pubTypes = publicationTypes(r);
  const corrections = list(
    isRecord(r.commentCorrectionList) ? r.commentCorrectionList.commentCorrection : undefined,
  );
  const retractedBy = corrections.some(
    (c) => isRecord(c) && /^retraction in$/i.test(str(c.type) ?? ""),
  );
  const notices = noticesFromArticle({
    publicationTypes: pubTypes,
    commentsCorrections: corrections.filter(isRecord).flatMap(commentCorrection),
  });
  const journalInfo = isRecord(r.journalInfo) ? r.journalInfo : {};
  const journal = isRecord(journalInfo.journal) ? journalInfo.journal : {};
  const abstract = str(r.abstractText);
  return compact({
    source,
    id,
    pmid: str(r.pmid),
    pmcid: str(r.pmcid),
    doi: str(r.doi),
    title: optionalText(str(r.title)),
    authors: shortAuthors(str(r.authorString)),
    journal:
      str(r.journalTitle) ??
      str(journal.isoabbreviation) ??
      str(journal.medlineAbbreviation) ??
      str(journal.title) ??
      str(isRecord(r.bookOrReportDetails) ? r.bookOrReportDetails.publisher : undefined),
    pubDate: str(r.firstPublicationDate) ?? str(r.pubYear),
    citedByCount: count(r.citedByCount),
    isOpenAccess: flag(r.isOpenAccess),
    hasFullText: flag(r.inEPMC),
    preprint: source === "PPR" || pubTypes.includes("preprint") ? (true as const) : undefined,
    retracted:
      retractedBy || pubTypes.includes("retracted publication") ? (true as const) : undefined,
    retractionNotice: pubTypes.includes("retraction of publication") ? (true as const) : undefined,
    notices,
    license: str(r.license),
    abstract: abstract === undefined ? undefined : snippet(plainText(abstract), abstractChars),
  });
}

/**
 * A core result's commentCorrection ({type: "Retraction in", id, source: "MED", reference: the
 * linked record's citation}) as PubMed's link, for the notices read from it.
 */
function commentCorrection(c: Json): CommentCorrection[] {
  const refType = str(c.type);
  if (refType === undefined) return [];
  const id = str(c.id);
  const pmid = str(c.source) === "MED" && id !== undefined && /^\d+$/.test(id) ? id : null;
  const refSource = str(c.reference);
  return [{ refType, pmid, ...(refSource === undefined ? {} : { refSource }) }];
}

/** Lower-cased publication types: core's pubTypeList, lite's "a; b; c" pubType string. */
function publicationTypes(r: Json): string[] {
  const fromList = list(isRecord(r.pubTypeList) ? r.pubTypeList.pubType : undefined);
  const raw = fromList.length > 0 ? fromList.map(str) : (str(r.pubType)?.split(";") ?? []);
  return raw.filter((t): t is string => t !== undefined).map((t) => t.trim().toLowerCase());
}

function flag(value: unknown): true | undefined {
  return value === "Y" || value === true ? true : undefined;
}

/** "A, B, C, D." → "A, B, C, et al." */
function shortAuthors(authorString: string | undefined): string | undefined {
  if (authorString === undefined) return undefined;
  const names = authorString
    .replace(/\.$/, "")
    .split(/,\s*/)
    .filter((n) => n !== "");
  return names.length > MAX_AUTHORS + 1
    ? `${names.slice(0, MAX_AUTHORS).join(", ")}, et al.`
    : names.join(", ");
}

function optionalText(html: string | undefined): string | undefined {
  const text = html === undefined ? "" : plainText(html);
  return text === "" ? undefined : text;
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/**
 * Europe PMC's titles and abstracts carry HTML (<h4>Background</h4>, <i>, <sub>) next to bare
 * "<" and "&" of the text itself: tags are dropped, headings end with ": ", entities decoded.
 */
export function plainText(html: string): string {
  return (
    html
      .replace(/<\/h\d\s*>/gi, ": ") // "<h4>Objective</h4>This study" → "Objective: This study"
      .replace(/<\/?(?:h\d|p|div|br|li|ul|ol)\b[^<>]*>/gi, " ")
      // Only real tags: abstracts also hold bare "<" ("P < .05", "<1 year").
      .replace(/<\/?[a-z][a-z0-9:-]*(?:\s[^<>]*)?\/?>/gi, "")
      .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
        if (name.startsWith("#")) {
          const code =
            name[1] === "x" || name[1] === "X"
              ? parseInt(name.slice(2), 16)
              : Number(name.slice(1));
          return Number.isInteger(code) && code > 0 && code <= 0x10ffff
            ? String.fromCodePoint(code)
            : whole;
        }
        return ENTITIES[name.toLowerCase()] ?? whole;
      })
      .replace(/\s+/g, " ")
      .trim()
  );
}

export const europePmcLinkSchema = z.object({
  source: z.string().optional(),
  id: z.string().optional(),
  /** The id when the source is MED (PubMed). */
  pmid: z.string().optional(),
  title: z.string().optional(),
  authors: z.string().optional(),
  journal: z.string().optional(),
  year: z.string().optional(),
});
export const europePmcLinksSchema = z.object({
  hitCount: z.int(),
  items: z.array(europePmcLinkSchema),
});
export type EuropePmcLinks = z.output<typeof europePmcLinksSchema>;

/**
 * Reads /{source}/{id}/citations (`citationList.citation[]`) or /references
 * (`referenceList.reference[]`). References Europe PMC could not match to a record have no id
 * and are kept with what they carry; entries with neither id nor title are dropped.
 */
export function parseEuropePmcLinks(
  body: string,
  kind: "citations" | "references",
): EuropePmcLinks {
  const reply = readReply(body, kind);
  const hitCount = count(reply.hitCount);
  if (hitCount === undefined) {
    throw new UpstreamError(
      `${SERVICE} returned an unexpected ${kind} reply (no hitCount); retry the call.`,
      {
        service: "europepmc",
      },
    );
  }
  const [listKey, itemKey] =
    kind === "citations" ? ["citationList", "citation"] : ["referenceList", "reference"];
  const container = reply[listKey];
  const items = list(isRecord(container) ? container[itemKey] : undefined)
    .filter(isRecord)
    .map((c) => {
      const source = str(c.source);
      const id = str(c.id);
      return compact({
        source,
        id,
        pmid: source === "MED" && id !== undefined && /^\d+$/.test(id) ? id : undefined,
        title: optionalText(str(c.title)),
        authors: shortAuthors(str(c.authorString)),
        journal: str(c.journalAbbreviation) ?? str(c.publicationTitle),
        year: str(c.pubYear),
      });
    })
    .filter((c) => c.id !== undefined || c.title !== undefined);
  return { hitCount, items };
}

/**
 * Europe PMC's own error text in a JSON or XML body (`errorBean`: `<errMsg>Article with id
 * PMC3040717 is not open access one</errMsg>`), or null when the body is not one.
 */
export function europePmcError(body: string): string | null {
  const trimmed = body.replace(/^\uFEFF/, "").trim();
  const xml = /<errorBean>[\s\S]*?<errMsg>([\s\S]*?)<\/errMsg>/.exec(trimmed);
  if (xml?.[1] !== undefined) return plainText(xml[1]) || "no message";
  if (!trimmed.startsWith("{")) return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    const bean = isRecord(parsed) && isRecord(parsed.errorBean) ? parsed.errorBean : parsed;
    return isRecord(bean) ? (str(bean.errMsg) ?? null) : null;
  } catch {
    return null;
  }
}

/**
 * Why a fullTextXML reply (GET /{PMCID}/fullTextXML) is not an article, or null when it is one:
 * Europe PMC answers articles it has no full text for with HTTP 404 and an empty or error body.
 */
export function fullTextXmlProblem(body: string, status: number): string | null {
  const error = europePmcError(body);
  if (error !== null) return `Europe PMC: ${error}`;
  if (status === 404) return "Europe PMC has no full text XML for this article";
  if (status >= 400) return `Europe PMC answered HTTP ${status}`;
  const start = body
    .replace(/^\uFEFF/, "")
    .replace(/^\s*(?:<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*|<!--[\s\S]*?-->\s*)*/i, "");
  return /^<article[\s>]/.test(start) ? null : "Europe PMC's reply is not a JATS article";
}

function readReply(body: string, what: string): Json {
  const error = europePmcError(body);
  if (error !== null) {
    throw new UpstreamError(`${SERVICE} reported an error: ${error}`, { service: "europepmc" });
  }
  return parseJsonReply(body, SERVICE, what);
}

function decode(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
