/**
 * JATS <body> → sections in document order, and figure / table / supplementary-material captions.
 * A <sec> is one section whose `level` is its depth (1 = a child of <body>); its paragraphs are
 * its own blocks, not its subsections'. Blocks standing outside any <sec> go to an untitled
 * section at their place (usually leading). Lists give one paragraph per item, definition lists
 * "term: definition", display formulas their linear text; floats are left to the caption lists.
 */
import { TEXT_NODE, attr, type XmlNode } from "../ncbi/parse/xml.js";
import type { JatsCaption, JatsSection, JatsTable } from "./types.js";
import { inlineText, localName } from "./text.js";

/** Blocks with no body text of their own (floats are captioned separately). */
const NON_TEXT = new Set([
  "title",
  "label",
  "sec-meta",
  "fig",
  "fig-group",
  "table-wrap",
  "table-wrap-group",
  "supplementary-material",
  "graphic",
  "media",
  "fn-group",
  "fn",
  "ref-list",
  "object-id",
  "alternatives",
]);
/** Containers whose blocks are read as the enclosing section's paragraphs. */
const WRAPPERS = new Set(["disp-quote", "boxed-text", "statement", "speech", "verse-group"]);

export function bodySections(body: XmlNode): JatsSection[] {
  const sections: JatsSection[] = [];
  collect(body, 0, undefined, sections);
  return withoutEmpty(sections);
}

/**
 * Drops sections with no text of their own or below them, such as a "Supplementary Material"
 * <sec> holding only file links (those are listed under `supplementary`).
 */
function withoutEmpty(sections: JatsSection[]): JatsSection[] {
  return sections.filter((section, i) => {
    if (section.paragraphs.length > 0) return true;
    for (const later of sections.slice(i + 1)) {
      if (later.level <= section.level) return false; // past the last descendant
      if (later.paragraphs.length > 0) return true;
    }
    return false;
  });
}

function collect(
  container: XmlNode,
  level: number,
  own: JatsSection | undefined,
  out: JatsSection[],
): void {
  let current = own;
  for (const child of container.$$ ?? []) {
    if (child["#name"] === TEXT_NODE) continue;
    const name = localName(child);
    if (name === "sec") {
      const section: JatsSection = { level: level + 1, paragraphs: [] };
      const title = sectionTitle(child);
      if (title !== "") section.title = title;
      out.push(section);
      collect(child, level + 1, section, out);
      // Blocks after a subsection belong to no titled section; give them an untitled one.
      current = undefined;
      continue;
    }
    const paragraphs = blockParagraphs(child);
    if (paragraphs.length === 0) continue;
    if (current === undefined) {
      current = { level: Math.max(level, 1), paragraphs: [] };
      out.push(current);
    }
    current.paragraphs.push(...paragraphs);
  }
}

/** "2.1 Participants" when the section has a <label>. */
function sectionTitle(sec: XmlNode): string {
  const title = inlineText(child(sec, "title"));
  const label = inlineText(child(sec, "label"));
  return label !== "" && title !== "" ? `${label} ${title}` : title || label;
}

function blockParagraphs(block: XmlNode): string[] {
  const name = localName(block);
  if (NON_TEXT.has(name)) return [];
  if (name === "list") {
    return (block.$$ ?? [])
      .filter((c) => localName(c) === "list-item")
      .map((item) => {
        const label = inlineText(child(item, "label"));
        const text = inlineText({ "#name": "list-item", $$: withoutLabel(item) });
        return text === "" ? "" : `${label || "•"} ${text}`;
      })
      .filter((t) => t !== "");
  }
  if (name === "def-list") {
    return (block.$$ ?? [])
      .filter((c) => localName(c) === "def-item")
      .map((item) => {
        const term = inlineText(child(item, "term"));
        const def = inlineText(child(item, "def"));
        return term !== "" && def !== "" ? `${term}: ${def}` : term || def;
      })
      .filter((t) => t !== "");
  }
  if (WRAPPERS.has(name)) {
    const title = inlineText(child(block, "title"));
    const inner = (block.$$ ?? []).flatMap((c) =>
      c["#name"] === TEXT_NODE ? [] : blockParagraphs(c),
    );
    return title === "" ? inner : [title, ...inner];
  }
  const text = inlineText(block);
  return text === "" ? [] : [text];
}

function withoutLabel(node: XmlNode): XmlNode[] {
  return (node.$$ ?? []).filter((c) => c["#name"] === TEXT_NODE || localName(c) !== "label");
}

function child(node: XmlNode, name: string): XmlNode | undefined {
  return (node.$$ ?? []).find((c) => c["#name"] !== TEXT_NODE && localName(c) === name);
}

export interface Floats {
  figures: JatsCaption[];
  tables: JatsTable[];
  supplementary: JatsCaption[];
}

/** Captions of every figure, table and supplementary item under `roots`, each once (by id). */
export function floats(roots: (XmlNode | undefined)[]): Floats {
  const out: Floats = { figures: [], tables: [], supplementary: [] };
  const seen = new Set<string>();
  const walk = (node: XmlNode): void => {
    for (const c of node.$$ ?? []) {
      if (c["#name"] === TEXT_NODE) continue;
      const name = localName(c);
      const kind =
        name === "fig"
          ? "figures"
          : name === "table-wrap"
            ? "tables"
            : name === "supplementary-material"
              ? "supplementary"
              : null;
      if (kind === null) {
        if (name !== "ref-list") walk(c);
        continue;
      }
      const id = attr(c, "id");
      if (id !== null && seen.has(id)) continue;
      if (id !== null) seen.add(id);
      const item = caption(c, id);
      if (kind === "tables") out.tables.push({ ...item, rows: tableRows(c) });
      else if (item.label !== undefined || item.caption !== undefined) out[kind].push(item);
    }
  };
  for (const root of roots) if (root !== undefined) walk(root);
  return out;
}

function caption(node: XmlNode, id: string | null): JatsCaption {
  const item: JatsCaption = {};
  if (id !== null) item.id = id;
  const label = inlineText(child(node, "label")).replace(/[\s.:]+$/, "");
  const text = inlineText(child(node, "caption"));
  if (label !== "") item.label = label;
  if (text !== "") item.caption = text;
  if (item.label === undefined && item.caption === undefined) {
    // Supplementary files often have neither: the file name is their only label.
    const href = mediaHref(node);
    if (href !== null) item.label = href.slice(href.lastIndexOf("/") + 1);
  }
  return item;
}

function mediaHref(node: XmlNode): string | null {
  for (const c of node.$$ ?? []) {
    const href = attr(c, "xlink:href");
    if (
      href !== null &&
      (localName(c) === "media" || localName(c) === "inline-supplementary-material")
    ) {
      return href;
    }
  }
  return attr(node, "xlink:href");
}

/** Rows of a table-wrap's table(s) as "cell | cell" lines (header rows first, as in the source). */
function tableRows(wrap: XmlNode): string[] {
  const rows: string[] = [];
  const walk = (node: XmlNode): void => {
    for (const c of node.$$ ?? []) {
      if (c["#name"] === TEXT_NODE) continue;
      const name = localName(c);
      if (name === "tr") {
        const cells = (c.$$ ?? [])
          .filter((cell) => localName(cell) === "td" || localName(cell) === "th")
          .map((cell) => inlineText(cell));
        if (cells.some((cell) => cell !== "")) rows.push(cells.join(" | ").trim());
      } else if (name !== "caption" && name !== "table-wrap-foot") walk(c);
    }
  };
  walk(wrap);
  return rows;
}
