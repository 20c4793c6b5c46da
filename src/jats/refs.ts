/**
 * JATS <ref-list> → one-line references. <mixed-citation> already carries its punctuation and is
 * read as text (names as "Surname Given", identifiers moved to fields); <element-citation> and the
 * older <nlm-citation>/<citation> hold bare fields, formatted here in Vancouver order:
 * "Miki Y, Swensen J, Shattuck-Eidens D, et al. Title. Source. 1994;266(5182):66-71."
 */
import { TEXT_NODE, attr, normalizeSpace, type XmlNode } from "../ncbi/parse/xml.js";
import { normalizePmcid } from "../ncbi/ids.js";
import { compact } from "../net/reply.js";
import type { JatsReference } from "./types.js";
import { inlineText, localName } from "./text.js";

const CITATIONS = new Set(["mixed-citation", "element-citation", "nlm-citation", "citation"]);
/** Parts of a mixed citation that are not prose: identifiers become fields, not text. */
const MIXED_SKIPPED = new Set(["pub-id", "object-id", "comment", "annotation"]);
/** Shown at most, then "et al.", as in Vancouver style. */
const MAX_AUTHORS = 6;

/** Every <ref> under the <back> element's reference lists (nested lists included). */
export function referenceNodes(back: XmlNode | undefined): XmlNode[] {
  const refs: XmlNode[] = [];
  const walk = (node: XmlNode, inList: boolean): void => {
    for (const child of node.$$ ?? []) {
      const name = localName(child);
      if (name === "ref" && inList) refs.push(child);
      else if (name === "ref-list") walk(child, true);
      else if (name === "sec" || name === "app-group" || name === "app") walk(child, inList);
    }
  };
  if (back !== undefined) walk(back, false);
  return refs;
}

export function formatReference(ref: XmlNode): JatsReference | null {
  const label = inlineText(childNamed(ref, "label")) || undefined;
  const citation = (ref.$$ ?? []).find((c) => CITATIONS.has(localName(c)));
  if (citation === undefined) {
    const text = inlineText(ref, new Set(["label"]));
    return text === "" ? null : compact({ label, citation: text });
  }
  const ids = pubIds(citation);
  const text =
    localName(citation) === "mixed-citation" ? mixedText(citation) : elementText(citation);
  if (text === "") return null;
  return compact({ label, citation: text, ...ids });
}

/**
 * A mixed citation reads as its own text, except where the publisher left out the punctuation
 * between elements: a citation with no text of its own at all (BMC, Nature) is formatted from its
 * fields, and adjacent names elsewhere are separated by commas ("Braff DL, Freedman R").
 */
function mixedText(citation: XmlNode): string {
  const ownText = (citation.$$ ?? []).some(
    (c) => c["#name"] === TEXT_NODE && (c._ ?? "").trim() !== "",
  );
  if (!ownText) return elementText(citation);
  const out: string[] = [];
  appendMixed(citation, out);
  return normalizeSpace(out.join(""))
    .replace(/\s+([.,;:)])/g, "$1")
    .replace(/\(\s+/g, "(")
    .replace(/[\s.,;]*$/, ".");
}

const NAMES = new Set(["name", "string-name", "collab"]);

function appendMixed(node: XmlNode, out: string[]): void {
  let previous: string | null = null; // the element just written, when no text followed it
  for (const c of node.$$ ?? []) {
    if (c["#name"] === TEXT_NODE) {
      out.push(c._ ?? "");
      if ((c._ ?? "").trim() !== "") previous = null;
      continue;
    }
    const name = localName(c);
    if (MIXED_SKIPPED.has(name)) continue;
    if (previous !== null) out.push(NAMES.has(previous) && NAMES.has(name) ? ", " : " ");
    if (name === "person-group") appendMixed(c, out);
    else out.push(inlineText(c, MIXED_SKIPPED));
    if (name === "etal") out.push(" et al.");
    previous = name;
  }
}

function elementText(citation: XmlNode): string {
  const authors = names(citation);
  const title = firstText(citation, "article-title") ?? firstText(citation, "chapter-title");
  const source = firstText(citation, "source");
  const year = firstText(citation, "year");
  const volume = firstText(citation, "volume");
  const issue = firstText(citation, "issue");
  const fpage = firstText(citation, "fpage") ?? firstText(citation, "elocation-id");
  const lpage = firstText(citation, "lpage");
  const publisher = firstText(citation, "publisher-name");
  let where = year ?? "";
  if (volume !== null) where += `;${volume}`;
  if (issue !== null) where += `(${issue})`;
  if (fpage !== null) where += `:${fpage}${lpage !== null && lpage !== fpage ? `-${lpage}` : ""}`;
  const parts = [authors, title, source, publisher, where.replace(/^;/, "")];
  return parts
    .filter((p): p is string => p !== null && p !== "")
    .map((p) => p.replace(/[.\s]+$/, ""))
    .join(". ")
    .concat(".");
}

/** Author names of the first person-group (or of the citation itself), Vancouver-style. */
function names(citation: XmlNode): string | null {
  const group =
    (citation.$$ ?? []).find(
      (c) =>
        localName(c) === "person-group" && (attr(c, "person-group-type") ?? "author") === "author",
    ) ?? citation;
  const people: string[] = [];
  let etal = false;
  for (const child of group.$$ ?? []) {
    const name = localName(child);
    if (name === "name") {
      const surname = inlineText(childNamed(child, "surname"));
      const given = inlineText(childNamed(child, "given-names"));
      people.push(normalizeSpace(`${surname} ${given}`));
    } else if (name === "string-name" || name === "collab") people.push(inlineText(child));
    else if (name === "etal") etal = true;
  }
  if (people.length === 0) return null;
  const shown = people.slice(0, MAX_AUTHORS).join(", ");
  return etal || people.length > MAX_AUTHORS ? `${shown}, et al` : shown;
}

function pubIds(citation: XmlNode): Pick<JatsReference, "pmid" | "pmcid" | "doi"> {
  const out: Pick<JatsReference, "pmid" | "pmcid" | "doi"> = {};
  for (const child of citation.$$ ?? []) {
    if (localName(child) !== "pub-id") continue;
    const value = inlineText(child);
    const type = attr(child, "pub-id-type");
    if (type === "pmid" && /^\d+$/.test(value)) out.pmid ??= value;
    else if (type === "pmcid" || type === "pmc") {
      const pmcid = normalizePmcid(value);
      if (pmcid !== null) out.pmcid ??= pmcid;
    } else if (type === "doi" && value !== "") out.doi ??= value;
  }
  return out;
}

function childNamed(node: XmlNode, name: string): XmlNode | undefined {
  return (node.$$ ?? []).find((c) => c["#name"] !== TEXT_NODE && localName(c) === name);
}

function firstText(node: XmlNode, name: string): string | null {
  const text = inlineText(childNamed(node, name));
  return text === "" ? null : text;
}
