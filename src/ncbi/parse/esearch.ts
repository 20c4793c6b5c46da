/**
 * ESearch XML (eSearchResult, DTDs 2002–2006) → ESearchResult.
 * An <ERROR> means NCBI refused the request (EntrezError). <ErrorList> and <WarningList> describe
 * a search that ran, possibly with zero hits, so they become readable `warnings` instead.
 */
import { UpstreamError } from "../../errors.js";
import type { ESearchResult } from "../types.js";
import {
  child,
  childText,
  childTexts,
  isElement,
  parseEutilsXml,
  text,
  throwOnErrors,
  toInt,
} from "./common.js";

const UTILITY = "ESearch";

/** How each ErrorList/WarningList entry reads to a person; unknown kinds fall back to "Kind: text". */
const MESSAGES: Record<string, (term: string) => string> = {
  PhraseNotFound: (t) => `Phrase not found: "${t}"`,
  FieldNotFound: (t) => `Field not found: "${t}"`,
  PhraseIgnored: (t) => `Phrase ignored: "${t}"`,
  QuotedPhraseNotFound: (t) => `Quoted phrase not found: "${t}"`,
  OutputMessage: (t) => t,
};

export function parseESearch(xml: string): ESearchResult {
  const root = parseEutilsXml(xml, UTILITY, "eSearchResult");
  throwOnErrors(root, UTILITY);

  const count = toInt(childText(root, "Count"));
  if (count === null) {
    throw new UpstreamError(
      `NCBI returned a malformed ${UTILITY} reply (no <Count>); retry the call.`,
      { utility: UTILITY },
    );
  }
  const ids = childTexts(child(root, "IdList"), "Id").filter((id) => id !== "");
  return {
    count,
    retMax: toInt(childText(root, "RetMax")) ?? ids.length,
    retStart: toInt(childText(root, "RetStart")) ?? 0,
    ids,
    queryTranslation: childText(root, "QueryTranslation"),
    webEnv: childText(root, "WebEnv"),
    queryKey: childText(root, "QueryKey"),
    warnings: [
      ...listMessages(child(root, "ErrorList")),
      ...listMessages(child(root, "WarningList")),
    ],
  };
}

function listMessages(list: unknown): string[] {
  if (!isElement(list)) return [];
  const out: string[] = [];
  for (const [kind, values] of Object.entries(list)) {
    if (kind === "$" || kind === "_" || !Array.isArray(values)) continue;
    for (const value of values) {
      const term = text(value);
      if (term === "") continue;
      const format = MESSAGES[kind];
      out.push(format ? format(term) : `${kind}: ${term}`);
    }
  }
  return out;
}
