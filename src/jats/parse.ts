/**
 * JATS full text → JatsArticle. Reads the three shapes the full-text chain receives: an EFetch
 * `db=pmc` reply (`<pmc-articleset><article>…`, possibly several articles and per-id `<error>`s),
 * a PMC Open Access `.nxml` file and a Europe PMC `fullTextXML` reply (both an `<article>` root).
 *
 * Not full text: PMC answers 200 for an article whose publisher withholds the XML, with the front
 * matter only and the comment "The publisher of this article does not allow downloading of the
 * full text in XML form." Comments do not survive xml2js, so that comment is turned into a marker
 * element before parsing. An article with no <body>, or one with no text in it, is not full text
 * either; `notFullText` says which, and the chain moves on to its next tier.
 */
import { UpstreamError } from "../errors.js";
import { monthNumber } from "../ncbi/dates.js";
import { TEXT_NODE, attr, parseOrderedXml, type XmlNode } from "../ncbi/parse/xml.js";
import { normalizePmcid } from "../ncbi/ids.js";
import { bodySections, floats } from "./body.js";
import { formatReference, referenceNodes } from "./refs.js";
import { inlineText, localName } from "./text.js";
import type { JatsArticle, JatsDocument, JatsLicense } from "./types.js";

const WITHHELD_MARKER = "pubmed-mcp-withheld";
const WITHHELD_COMMENT =
  /<!--((?:(?!-->)[\s\S])*?does not allow downloading(?:(?!-->)[\s\S])*?)-->/gi;

/**
 * Parses a JATS reply. `service` names the sender in error messages ("PMC", "Europe PMC").
 * Throws UpstreamError when the body is not XML or its root is neither <article> nor
 * <pmc-articleset>.
 */
export function parseJats(xml: string, service = "PMC"): JatsDocument {
  const marked = xml.replace(WITHHELD_COMMENT, (_m, text: string) => {
    const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    return `<${WITHHELD_MARKER}>${escaped}</${WITHHELD_MARKER}>`;
  });
  let root: XmlNode;
  try {
    root = parseOrderedXml(marked, `${service} full-text`);
  } catch (err) {
    if (service === "PMC") throw err;
    throw new UpstreamError(`${service} returned a reply that is not JATS XML; retry the call.`, {
      service,
    });
  }
  const rootName = localName(root);
  if (rootName === "article") return { articles: [readArticle(root, false)], errors: [] };
  if (rootName !== "pmc-articleset") {
    throw new UpstreamError(
      `${service} returned an unexpected full-text reply (root <${rootName}>, expected <article> or <pmc-articleset>).`,
      { service, root: rootName },
    );
  }
  const doc: JatsDocument = { articles: [], errors: [] };
  let withheldBefore = false; // a marker between articles belongs to the next one
  for (const node of root.$$ ?? []) {
    const name = node["#name"] === TEXT_NODE ? null : localName(node);
    if (name === WITHHELD_MARKER) withheldBefore = true;
    else if (name === "article") {
      doc.articles.push(readArticle(node, withheldBefore));
      withheldBefore = false;
    } else if (name === "error") {
      const id = attr(node, "id");
      const message = inlineText(node) || "not available";
      doc.errors.push(id === null ? { message } : { id, message });
    }
  }
  return doc;
}

function readArticle(article: XmlNode, withheldOutside: boolean): JatsArticle {
  const front = child(article, "front");
  const meta = child(front, "article-meta");
  const body = child(article, "body");
  const back = child(article, "back");
  const sections = body === undefined ? [] : bodySections(body);
  const { figures, tables, supplementary } = floats([body, back, child(article, "floats-group")]);
  const refNodes = referenceNodes(back);
  const result: JatsArticle = {
    ...identifiers(meta),
    title: articleTitle(meta),
    sections,
    figures,
    tables,
    supplementary,
    referenceCount: refNodes.length,
    references: refNodes.map(formatReference).filter((r) => r !== null),
    hasBody: false,
  };
  const articleType = attr(article, "article-type");
  if (articleType !== null && articleType !== "") result.articleType = articleType;
  const journal = journalTitle(child(front, "journal-meta"));
  if (journal !== "") result.journal = journal;
  const date = publicationDate(meta);
  if (date !== null) result.publicationDate = date;
  const license = readLicense(child(meta, "permissions"));
  if (license !== null) result.license = license;
  const abstract = abstractText(meta);
  if (abstract !== "") result.abstract = abstract;

  const hasText = sections.some((s) => s.paragraphs.length > 0);
  result.hasBody = body !== undefined && hasText;
  if (!hasText) {
    if (withheldOutside || contains(article, WITHHELD_MARKER)) {
      result.notFullText = {
        reason: "withheld",
        message: "the publisher does not allow downloading the full text in XML form",
      };
    } else if (body === undefined) {
      result.notFullText = { reason: "no_body", message: "the reply has front matter only" };
    } else {
      result.notFullText = { reason: "empty_body", message: "the reply's body holds no text" };
    }
  }
  return result;
}

function identifiers(meta: XmlNode | undefined): Pick<JatsArticle, "pmid" | "pmcid" | "doi"> {
  const out: Pick<JatsArticle, "pmid" | "pmcid" | "doi"> = {};
  for (const id of children(meta, "article-id")) {
    const value = inlineText(id);
    const type = attr(id, "pub-id-type");
    if (type === "pmid" && /^\d+$/.test(value)) out.pmid ??= value;
    else if (type === "pmc" || type === "pmcid") {
      const pmcid = normalizePmcid(value);
      if (pmcid !== null) out.pmcid ??= pmcid;
    } else if (type === "doi" && value !== "") out.doi ??= value;
  }
  return out;
}

function articleTitle(meta: XmlNode | undefined): string {
  const group = child(meta, "title-group");
  const title = inlineText(child(group, "article-title"));
  const subtitle = inlineText(child(group, "subtitle"));
  return subtitle === "" ? title : `${title.replace(/[\s:]+$/, "")}: ${subtitle}`;
}

function journalTitle(journalMeta: XmlNode | undefined): string {
  const title =
    inlineText(child(child(journalMeta, "journal-title-group"), "journal-title")) ||
    inlineText(child(journalMeta, "journal-title"));
  if (title !== "") return title;
  const nlmTa = children(journalMeta, "journal-id").find(
    (j) => attr(j, "journal-id-type") === "nlm-ta",
  );
  return inlineText(nlmTa);
}

/** Electronic first (the date the paper appeared), then print, then the issue, never PMC's release. */
function dateRank(pubDate: XmlNode): number {
  const type = attr(pubDate, "pub-type") ?? attr(pubDate, "date-type") ?? "";
  const format = attr(pubDate, "publication-format") ?? "";
  if (type === "pmc-release" || type === "nihms-submitted") return -1;
  if (type === "epub" || (type === "pub" && format === "electronic")) return 0;
  if (type === "ppub" || type === "pub" || format === "print") return 1;
  if (type === "collection" || type === "epub-ppub") return 2;
  return 3;
}

function publicationDate(meta: XmlNode | undefined): string | null {
  const candidates = children(meta, "pub-date")
    .map((node) => ({ node, rank: dateRank(node) }))
    .filter((c) => c.rank >= 0)
    .sort((a, b) => a.rank - b.rank);
  for (const { node } of candidates) {
    const iso = isoDate(node);
    if (iso !== null) return iso;
  }
  return null;
}

function isoDate(node: XmlNode): string | null {
  const attrDate = attr(node, "iso-8601-date");
  if (attrDate !== null && /^\d{4}(?:-\d{2}(?:-\d{2})?)?$/.test(attrDate)) return attrDate;
  const year = inlineText(child(node, "year"));
  if (!/^\d{4}$/.test(year)) return null;
  const mm = monthNumber(inlineText(child(node, "month")));
  if (mm === null) return year;
  const month = `${year}-${mm}`;
  const day = Number(inlineText(child(node, "day")));
  return Number.isInteger(day) && day >= 1 && day <= 31
    ? `${month}-${String(day).padStart(2, "0")}`
    : month;
}

function readLicense(permissions: XmlNode | undefined): JatsLicense | null {
  const license = child(permissions, "license");
  if (license === undefined) return null;
  const out: JatsLicense = {};
  const type = attr(license, "license-type");
  if (type !== null && type !== "") out.type = type;
  const ref = children(license, "license_ref");
  const url =
    inlineText(ref.find((r) => attr(r, "specific-use") === null) ?? ref[0]) ||
    attr(license, "xlink:href") ||
    linkIn(license, /creativecommons\.org/i);
  if (url !== null && url !== "") out.url = url;
  const text = children(license, "license-p")
    .map((p) => inlineText(p))
    .filter((t) => t !== "")
    .join(" ");
  if (text !== "") out.text = text;
  return Object.keys(out).length > 0 ? out : null;
}

function linkIn(node: XmlNode, pattern: RegExp): string | null {
  for (const c of node.$$ ?? []) {
    const href = attr(c, "xlink:href");
    if (href !== null && pattern.test(href)) return href;
    const inner = linkIn(c, pattern);
    if (inner !== null) return inner;
  }
  return null;
}

/** The main abstract (not an author summary or teaser); structured ones keep their labels. */
function abstractText(meta: XmlNode | undefined): string {
  const abstracts = children(meta, "abstract");
  const main = abstracts.find((a) => attr(a, "abstract-type") === null) ?? abstracts[0];
  if (main === undefined) return "";
  const blocks: string[] = [];
  for (const c of main.$$ ?? []) {
    if (c["#name"] === TEXT_NODE) continue;
    const name = localName(c);
    if (name === "sec") {
      const label = inlineText(child(c, "title"));
      const text = (c.$$ ?? [])
        .filter((p) => p["#name"] !== TEXT_NODE && localName(p) !== "title")
        .map((p) => inlineText(p))
        .filter((t) => t !== "")
        .join(" ");
      if (text !== "")
        blocks.push(label === "" ? text : `${label.replace(/[\s:.]+$/, "")}: ${text}`);
    } else if (name !== "title" && name !== "label") {
      const text = inlineText(c);
      if (text !== "") blocks.push(text);
    }
  }
  return blocks.join("\n\n");
}

function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.$$?.find((c) => c["#name"] !== TEXT_NODE && localName(c) === name);
}

function children(node: XmlNode | undefined, name: string): XmlNode[] {
  return node?.$$?.filter((c) => c["#name"] !== TEXT_NODE && localName(c) === name) ?? [];
}

function contains(node: XmlNode, name: string): boolean {
  return (node.$$ ?? []).some((c) => c["#name"] === name || contains(c, name));
}
