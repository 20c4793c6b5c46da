/**
 * Integrity notices (docs/trust.md): retraction, correction (erratum), expression of concern and
 * withdrawal, on every record a tool returns. This file reads them from PubMed's own data, which
 * every PubMed source carries:
 * - the record's CommentsCorrections "…In" side (RetractionIn, ErratumIn, ExpressionOfConcernIn,
 *   …), naming the notice's PMID and, in RefSource, its citation (whose date we read);
 * - the record's publication types ("Retracted Publication" without a RetractionIn link);
 * - the notice's "…Of"/"…For" side pointing back (RetractionOf, ErratumFor, …), when the notice
 *   and the record it is about are in one answer (`linkNotices`).
 * Europe PMC and Crossref notices are read where their replies are parsed, into the same shape,
 * and merged with `mergeNotices`. A record's `notices` field is left out when none is known:
 * absent means none known, not "none exists".
 */
import { z } from "zod";
import { monthNumber } from "./dates.js";
import type { Article, CommentCorrection } from "./types.js";

export const NOTICE_TYPES = [
  "retraction",
  "correction",
  "expression_of_concern",
  "withdrawal",
] as const;
export type NoticeType = (typeof NOTICE_TYPES)[number];

/** A notice on a record; absent fields are unknown (never null). */
export interface Notice {
  type: NoticeType;
  notice_pmid?: string;
  notice_doi?: string;
  /** ISO-8601, as precise as the source: "2020", "2020-06" or "2020-06-05". */
  date?: string;
}

/** A notice as the tools' output schemas declare it (`notices[]` on a record). */
export const noticeSchema = z.object({
  type: z.enum(NOTICE_TYPES),
  notice_pmid: z.string().optional(),
  notice_doi: z.string().optional(),
  date: z.string().optional(),
});

/**
 * CommentsCorrections on the record a notice is about, and the notice it names. Keys are
 * `linkKey`s: EFetch spells the types "RetractionIn", ESummary and Europe PMC "Retraction in".
 */
const ON_RECORD: Readonly<Record<string, NoticeType>> = {
  retractionin: "retraction",
  retractedandrepublishedin: "retraction",
  erratumin: "correction",
  correctedandrepublishedin: "correction",
  expressionofconcernin: "expression_of_concern",
};

/** CommentsCorrections on a notice, naming the record it is about (keys as in ON_RECORD). */
const ON_NOTICE: Readonly<Record<string, NoticeType>> = {
  retractionof: "retraction",
  retractedandrepublishedfrom: "retraction",
  erratumfor: "correction",
  correctedandrepublishedfrom: "correction",
  expressionofconcernfor: "expression_of_concern",
};

/** "RetractionIn", "Retraction in" and "retraction_in" → "retractionin". */
const linkKey = (refType: string): string => refType.replace(/[\s_-]+/g, "").toLowerCase();

/** The notice a record-side link names: its type, or undefined for other links (Cites, CommentIn…). */
function noticeTypeOfLink(refType: string): NoticeType | undefined {
  return ON_RECORD[linkKey(refType)];
}

/** Publication types that say a record was retracted or withdrawn when no link names the notice. */
const FLAGGED_TYPES: Readonly<Record<string, NoticeType>> = {
  "retracted publication": "retraction",
  "withdrawn publication": "withdrawal",
};

/**
 * "Lancet. 2010 Feb 6;375(9713):445" → "2010-02-06"; "BMJ. 2019;364:l123" → "2019". The date
 * follows the journal's name and its full stop, before the volume's ";".
 */
export function refSourceDate(refSource: string | null | undefined): string | undefined {
  const m = /\.\s+(\d{4})(?:\s+([A-Za-z]{3,9})(?:\s+(\d{1,2}))?)?\s*(?:[;:]|$)/.exec(
    refSource ?? "",
  );
  if (!m) return undefined;
  const month = monthNumber(m[2]);
  if (!month) return m[1];
  return m[3] ? `${m[1]}-${month}-${m[3].padStart(2, "0")}` : `${m[1]}-${month}`;
}

/**
 * The DOI a citation ends with: "Nature. 2020 Jun;582(7811):E1. doi: 10.1038/s41586-020-2289-6."
 * → "10.1038/s41586-020-2289-6" (PubMed's RefSource and Europe PMC's reference carry one lately).
 */
function refSourceDoi(refSource: string | null | undefined): string | undefined {
  const m = /\bdoi:\s*(10\.\d{4,9}\/\S+)/i.exec(refSource ?? "");
  return m?.[1]?.replace(/[.,;]+$/, "");
}

function fromLink(c: CommentCorrection, type: NoticeType): Notice {
  const date = refSourceDate(c.refSource);
  const doi = refSourceDoi(c.refSource);
  return {
    type,
    ...(c.pmid ? { notice_pmid: c.pmid } : {}),
    ...(doi ? { notice_doi: doi } : {}),
    ...(date ? { date } : {}),
  };
}

/**
 * The notices a record carries about itself: PubMed's (EFetch CommentsCorrections, ESummary
 * References) or Europe PMC's (commentCorrectionList), whose link types `noticeTypeOfLink` reads.
 */
export function noticesFromArticle(a: Pick<Article, "publicationTypes" | "commentsCorrections">) {
  const notices: Notice[] = [];
  for (const c of a.commentsCorrections) {
    const type = noticeTypeOfLink(c.refType);
    if (type) notices.push(fromLink(c, type));
  }
  for (const t of a.publicationTypes) {
    const type = FLAGGED_TYPES[t.toLowerCase()];
    if (type) notices.push({ type });
  }
  return mergeNotices(notices);
}

/**
 * The notices among `records` pointing back at other records of the same answer (a retraction
 * notice's RetractionOf), by the PMID they are about. PubMed links both ways, but the two records
 * are revised at different times, so one side may be missing for a while.
 */
export function linkNotices(
  records: readonly (Pick<Article, "pmid" | "commentsCorrections"> & {
    journalInfo: { publicationDate: { year: string | null; month: string | null } };
    /** The notice's own DOI, when known. */
    doi?: string | null;
  })[],
): Map<string, Notice[]> {
  const about = new Map<string, Notice[]>();
  for (const r of records) {
    for (const c of r.commentsCorrections) {
      const type = ON_NOTICE[linkKey(c.refType)];
      if (!type || !c.pmid) continue;
      const d = r.journalInfo.publicationDate;
      const month = monthNumber(d.month);
      const date = d.year ? (month ? `${d.year}-${month}` : d.year) : undefined;
      const notice: Notice = {
        type,
        notice_pmid: r.pmid,
        ...(r.doi ? { notice_doi: r.doi } : {}),
        ...(date ? { date } : {}),
      };
      about.set(c.pmid, [...(about.get(c.pmid) ?? []), notice]);
    }
  }
  return about;
}

/**
 * One notice per event: notices of one type naming the same PMID or DOI (or, for a bare flag,
 * any notice of that type) are one, keeping every field any of them knows. So are one known by
 * PMID only (PubMed's) and one known by DOI only (Crossref's) when they can be the same event
 * (`sameEvent`). Retractions first.
 */
export function mergeNotices(notices: readonly Notice[]): Notice[] {
  const out: Notice[] = [];
  for (const n of notices) {
    const same = out.find(
      (o) =>
        o.type === n.type &&
        ((n.notice_pmid !== undefined && o.notice_pmid === n.notice_pmid) ||
          (n.notice_doi !== undefined &&
            o.notice_doi?.toLowerCase() === n.notice_doi.toLowerCase()) ||
          (n.notice_pmid === undefined && n.notice_doi === undefined) ||
          (o.notice_pmid === undefined && o.notice_doi === undefined) ||
          sameEvent(o, n)),
    );
    if (!same) {
      out.push({ ...n });
      continue;
    }
    same.notice_pmid ??= n.notice_pmid;
    same.notice_doi ??= n.notice_doi;
    if (n.date && (!same.date || n.date.length > same.date.length)) same.date = n.date;
  }
  const rank = (t: NoticeType) => NOTICE_TYPES.indexOf(t);
  return out.sort((a, b) => rank(a.type) - rank(b.type));
}

const byPmidOnly = (n: Notice) => n.notice_pmid !== undefined && n.notice_doi === undefined;
const byDoiOnly = (n: Notice) => n.notice_doi !== undefined && n.notice_pmid === undefined;

/**
 * Whether a notice known by PMID only and one known by DOI only (of one type) are one event. A
 * record is retracted or withdrawn once, so two such are one; corrections and expressions of
 * concern recur, so theirs must agree on the month (a journal issue's date and Crossref's online
 * date differ by days, rarely by a month).
 */
function sameEvent(a: Notice, b: Notice): boolean {
  if (!((byPmidOnly(a) && byDoiOnly(b)) || (byDoiOnly(a) && byPmidOnly(b)))) return false;
  if (a.type === "retraction" || a.type === "withdrawal") return true;
  const month = (d: string | undefined) => (d !== undefined && d.length >= 7 ? d.slice(0, 7) : "");
  return month(a.date) !== "" && month(a.date) === month(b.date);
}
