/**
 * EFetch's PubMed XML read with xml2js: the reference the product's reader (./efetch.ts
 * parseEFetch, through ./xml-reader.ts) is held to. Tests compare the two on every recorded reply
 * (__tests__/eutils/parse) and the bench times them side by side (bench/sections/parse.ts,
 * bench/sections/live.ts); the product never calls it.
 */
import type { Article } from "../types.js";
import { articlesOf } from "./efetch.js";
import { parseOrderedXml } from "./xml.js";

/**
 * Reference lists (every cited work: most of a recent record's bytes) are never read. The DTD puts
 * ReferenceList* last in PubmedData and in BookDocument, so each run of them is cut from the text
 * up to that closing tag before parsing, as the reader skips them. A body truncated inside a
 * reference list has no closing tag to stop at; the cut then leaves it for the parser to reject.
 */
const REFERENCE_LISTS = /<ReferenceList\b[\s\S]*?(?=<\/PubmedData>|<\/BookDocument>)/g;

export function parseEFetchXml2js(xml: string): Article[] {
  return articlesOf(parseOrderedXml(xml.replace(REFERENCE_LISTS, ""), "EFetch"));
}
