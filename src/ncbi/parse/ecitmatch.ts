/**
 * ECitMatch speaks pipe-delimited text whatever retmode says. A request line is
 * `journal|year|volume|first_page|author_name|your_key|`, lines joined by "\r"; each reply line
 * echoes it with the answer appended: a PMID, "NOT_FOUND" (sometimes ";INVALID_JOURNAL"), or
 * "AMBIGUOUS (n citations)" / "AMBIGUOUS id,id". Misses have been seen with the author column
 * dropped, so the reply is read from both ends: four leading fields, then key and answer last.
 */
import { UpstreamError } from "../../errors.js";
import type { ECitMatchLine } from "../types.js";
import { parseEutilsXml, throwOnErrors } from "./common.js";

const UTILITY = "ECitMatch";

export type ECitMatchCitation = Omit<ECitMatchLine, "answer">;

/** The `bdata` request value. "|" and line breaks would split a field or a line, so they become spaces. */
export function formatECitMatchBdata(citations: readonly ECitMatchCitation[]): string {
  return citations
    .map((c) =>
      [c.journal, c.year, c.volume, c.firstPage, c.authorName, c.key].map(clean).join("|"),
    )
    .map((line) => `${line}|`)
    .join("\r");
}

function clean(value: string | number): string {
  return String(value)
    .replace(/[|\r\n]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export function parseECitMatch(body: string): ECitMatchLine[] {
  const trimmed = body.replace(/^\uFEFF/, "").trim();
  if (trimmed.startsWith("<") || trimmed.startsWith("{")) throwForMarkup(trimmed);
  const lines: ECitMatchLine[] = [];
  for (const raw of trimmed.split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    if (line === "") continue;
    const fields = line.split("|").map((f) => f.trim());
    // An echoed trailing "|" after the answer leaves one empty field at the end.
    if (fields.length > 7 && fields[fields.length - 1] === "") fields.pop();
    if (fields.length < 6) {
      throw new UpstreamError(
        `NCBI returned a malformed ${UTILITY} reply (line "${line.slice(0, 80)}"); retry the call.`,
        { utility: UTILITY },
      );
    }
    const [journal = "", year = "", volume = "", firstPage = ""] = fields;
    lines.push({
      journal,
      year,
      volume,
      firstPage,
      authorName: fields.slice(4, -2).join("|"),
      key: fields[fields.length - 2] ?? "",
      answer: fields[fields.length - 1] ?? "",
    });
  }
  return lines;
}

/** Markup or JSON is an error page, not citation lines: surface NCBI's words when it has any. */
function throwForMarkup(body: string): never {
  // Accept whatever root the document has, so the shared parser only judges well-formedness,
  // HTML, JSON (rate limit) and a root <ERROR>.
  const rootName = /^(?:<\?xml[^>]*>\s*)?(?:<!DOCTYPE[^>]*>\s*)?<([A-Za-z][\w.-]*)/.exec(body)?.[1];
  const root = parseEutilsXml(body, UTILITY, rootName ?? "eCitMatchResult");
  throwOnErrors(root, UTILITY);
  throw new UpstreamError(
    `NCBI returned a malformed ${UTILITY} reply (markup instead of citation lines); retry the call.`,
    { utility: UTILITY },
  );
}
