/**
 * ESummary XML → ESummaryResult, for both shapes NCBI serves:
 * version 2.0 (DocumentSummarySet/DocumentSummary, per-uid <error>) and the legacy v1
 * (DocSum/Item Name=…). `pmid` is the record's uid, which is the PMID for db=pubmed; other
 * databases still parse, with whatever Title/Source/PubDate they carry. Publication types
 * (v2 `<PubType><flag>`, v1 `PubTypeList`) and References (v2
 * `<References><Reference><RefSource/><RefType/><PMID/>`, v1 `References` items of the same names)
 * are kept for the records' integrity notices.
 */
import type { BriefSummary, CommentCorrection, ESummaryResult } from "../types.js";
import {
  attr,
  child,
  childText,
  children,
  entrezError,
  errorTexts,
  parseEutilsXml,
  text,
} from "./common.js";

const UTILITY = "ESummary";

type SummaryError = ESummaryResult["errors"][number];

export function parseESummary(xml: string): ESummaryResult {
  const root = parseEutilsXml(xml, UTILITY, "eSummaryResult");
  const sets = children(root, "DocumentSummarySet");
  const docSums = children(root, "DocSum");
  const topErrors = [...errorTexts(root), ...sets.flatMap(errorTexts)];
  const hasRecords =
    docSums.length > 0 || sets.some((s) => children(s, "DocumentSummary").length > 0);
  // A bare <ERROR> is about the request (bad db, no ids); next to records it names bad uids
  // ("Invalid uid 123 at position=0"), which belong with the per-uid errors.
  if (topErrors.length > 0 && !hasRecords) throw entrezError(UTILITY, topErrors);

  const summaries: BriefSummary[] = [];
  const errors: SummaryError[] = topErrors.map((message) => ({ uid: uidIn(message), message }));
  for (const set of sets) {
    for (const doc of children(set, "DocumentSummary")) {
      const uid = attr(doc, "uid") ?? "";
      const error = childText(doc, "error");
      if (error !== null) errors.push({ uid, message: error });
      else summaries.push(fromV2(uid, doc));
    }
  }
  for (const doc of docSums) summaries.push(fromV1(doc));
  return { summaries, errors };
}

function fromV2(uid: string, doc: unknown): BriefSummary {
  const articleIds = children(child(doc, "ArticleIds"), "ArticleId");
  const doiId = articleIds.find((a) => childText(a, "IdType")?.toLowerCase() === "doi");
  return {
    pmid: uid,
    title: plainTitle(childText(doc, "Title") ?? ""),
    authors: children(child(doc, "Authors"), "Author")
      .map((a) => childText(a, "Name"))
      .filter((n): n is string => n !== null),
    source: childText(doc, "Source") ?? "",
    pubDate: childText(doc, "PubDate") ?? "",
    doi:
      (doiId ? childText(doiId, "Value") : null) ?? doiFromELocation(childText(doc, "ELocationID")),
    publicationTypes: children(child(doc, "PubType"), "flag")
      .map(text)
      .filter((t) => t !== ""),
    references: children(child(doc, "References"), "Reference").flatMap((r) =>
      reference(childText(r, "RefType"), childText(r, "PMID"), childText(r, "RefSource")),
    ),
  };
}

/** A References entry as a link; entries without a type say nothing. */
function reference(
  refType: string | null,
  pmid: string | null,
  refSource: string | null,
): CommentCorrection[] {
  if (!refType) return [];
  const id = pmid && /^\d+$/.test(pmid) && pmid !== "0" ? pmid : null;
  return [{ refType, pmid: id, ...(refSource ? { refSource } : {}) }];
}

function fromV1(doc: unknown): BriefSummary {
  const items = children(doc, "Item");
  const item = (name: string): unknown => items.find((i) => attr(i, "Name") === name);
  const itemText = (name: string): string | null => text(item(name)) || null;
  const articleIds = children(item("ArticleIds"), "Item");
  const doiId = articleIds.find((i) => attr(i, "Name")?.toLowerCase() === "doi");
  return {
    pmid: childText(doc, "Id") ?? "",
    title: plainTitle(itemText("Title") ?? ""),
    authors: children(item("AuthorList"), "Item")
      .filter((i) => attr(i, "Name") === "Author")
      .map(text)
      .filter((n) => n !== ""),
    source: itemText("Source") ?? "",
    pubDate: itemText("PubDate") ?? "",
    doi: (text(doiId) || itemText("DOI")) ?? doiFromELocation(itemText("ELocationID")),
    publicationTypes: children(item("PubTypeList"), "Item")
      .map(text)
      .filter((t) => t !== ""),
    references: children(item("References"), "Item").flatMap((r) => {
      const part = (name: string) =>
        text(children(r, "Item").find((i) => attr(i, "Name") === name)) || null;
      return reference(part("RefType"), part("PMID"), part("RefSource"));
    }),
  };
}

/** "doi: 10.1000/xyz" or "pii: S0001. doi: 10.1000/xyz." → "10.1000/xyz". */
function doiFromELocation(elocation: string | null): string | null {
  const match = elocation?.match(/doi:\s*(10\.\S+)/i);
  return match?.[1]?.replace(/[.;,]$/, "") ?? null;
}

/** ESummary keeps inline markup as escaped text ("&lt;i&gt;"); brief summaries want plain words. */
function plainTitle(title: string): string {
  return title
    .replace(/<\/?(?:i|b|u|em|strong|sup|sub|inf)\b[^>]*>/gi, "")
    .replace(/\s+/g, " ")
    .trim();
}

function uidIn(message: string): string {
  return message.match(/\buid\s*=?\s*(\d+)/i)?.[1] ?? "";
}
