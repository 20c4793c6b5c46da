/**
 * A small strict XML reader for the bulk EFetch path (the corpus sync reads 500-record sets of
 * several megabytes). It builds the tree `parseOrderedXml` builds — element names, attributes,
 * child elements and text runs in document order — for the readers in ./xml.ts, about ten times
 * faster than xml2js over sax: one pass of indexOf and character scans, no per-character events.
 * It reads a body as text or as the UTF-8 bytes that came (decoding only the text it keeps).
 *
 * As strict as xml2js over sax: a mismatched or missing end tag, text before the root, a malformed
 * tag or attribute, or an undefined entity (sax knows XML's five and HTML's named ones) is an
 * error (UpstreamError, as on the xml2js path); what follows the root is not read. Comments,
 * processing instructions and the DOCTYPE (with any internal subset) are skipped; CDATA is text.
 * Elements' own `_` (their direct text joined) is not filled in: the readers use the text nodes.
 */
import { createRequire } from "node:module";
import { TEXT_NODE, malformedXml, xmlBody, type XmlNode } from "./xml.js";

const ENTITY = /&(?:#x([0-9a-fA-F]+)|#([0-9]+)|([A-Za-z][\w.-]*));|&/g;
const XML_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};
const require = createRequire(import.meta.url);
let htmlEntities: Readonly<Record<string, string>> | undefined;

/** sax (under xml2js) decodes HTML's named entities too; the same table, loaded when first met. */
function namedEntity(name: string): string | undefined {
  const xml = XML_ENTITIES[name];
  if (xml !== undefined) return xml;
  htmlEntities ??= (require("sax") as { ENTITIES: Record<string, string> }).ENTITIES;
  const value = Object.hasOwn(htmlEntities, name) ? htmlEntities[name] : undefined;
  return typeof value === "string" ? value : undefined;
}

class XmlSyntaxError extends Error {}

/**
 * Called with each child element of the root as soon as it is read whole; returning true takes it
 * out of the tree, so a caller that converts records one by one keeps one record's tree alive at a
 * time instead of the whole reply's.
 */
export type ChildReader = (child: XmlNode, root: XmlNode) => boolean;

/**
 * Text the reader passes over unread: an element named `from` inside an element named in
 * `parents`, and everything after it up to that parent's end tag. Like a regex cut of the body
 * before reading, with no copy of the body. Where the parent's end tag never comes (a truncated
 * body), nothing is cut and the element is read, so the reader meets the truncation.
 */
export interface Cut {
  from: string;
  parents: readonly string[];
}

/**
 * Parses an E-utilities XML body and returns its root element (see parseOrderedXml), without the
 * children `eachChild` took and without the text `cut` passes over. A syntax error anywhere still
 * fails the whole body, after `eachChild` may have seen the children before it.
 */
export function readOrderedXml(
  body: string | Uint8Array,
  utility: string,
  eachChild?: ChildReader,
  cut?: Cut,
): XmlNode {
  const bytes = typeof body !== "string";
  const xml = xmlBody(bytes ? byteString(body) : body, utility);
  try {
    return new Reader(xml, bytes, eachChild, cut).read();
  } catch (err) {
    if (err instanceof XmlSyntaxError) throw malformedXml(utility, err);
    throw err;
  }
}

/**
 * UTF-8 bytes as a string of one character per byte (Latin-1), a leading byte order mark left
 * out: a copy, where decoding megabytes of UTF-8 whole took a sixth of a sync batch's
 * preparation. XML's markup is ASCII, and no byte of a multi-byte UTF-8 character is, so every
 * text run and attribute value the reader cuts out holds whole characters: it decodes those it
 * keeps that have any byte over 0x7F (`Reader.utf8`), as TextDecoder would have (malformed
 * bytes replaced). Element and attribute names stay as read: PubMed's are ASCII.
 */
function byteString(bytes: Uint8Array): string {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return Buffer.from(bytes.buffer, bytes.byteOffset + bom, bytes.byteLength - bom).toString(
    "latin1",
  );
}

const NOT_ASCII = /[\x80-\xff]/;

/** What `\s` matches in a regular expression: XML's own whitespace and Unicode's spaces. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** The end of a run of whitespace at `at` (`at` itself where there is none). */
function spaceEnd(xml: string, at: number): number {
  while (at < xml.length && isSpace(xml.charCodeAt(at))) at++;
  return at;
}

/**
 * The end of a name at `at`: characters up to whitespace or one of / > = < " ' (and, for an
 * element's name, ! and ?). `at` itself where there is none.
 */
function nameEnd(xml: string, at: number, attribute: boolean): number {
  for (; at < xml.length; at++) {
    const c = xml.charCodeAt(at);
    if (c > 63) {
      if (c >= 0xa0 && isSpace(c)) break;
      continue;
    }
    // 32 space, 33 !, 34 ", 39 ', 47 /, 60 <, 61 =, 62 >, 63 ?
    if (c === 34 || c === 39 || c === 47 || c === 60 || c === 61 || c === 62 || isSpace(c)) break;
    if (!attribute && (c === 33 || c === 63)) break;
  }
  return at;
}

/** Decodes entity and character references; an undefined or unterminated one is an error. */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(ENTITY, (whole, hex?: string, dec?: string, name?: string) => {
    if (hex !== undefined || dec !== undefined) {
      const code = hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? "", 10);
      if (code > 0x10ffff || code === 0)
        throw new XmlSyntaxError(`Invalid character entity ${whole}`);
      return String.fromCodePoint(code);
    }
    const value = name === undefined ? undefined : namedEntity(name);
    if (value === undefined) throw new XmlSyntaxError(`Invalid character entity ${whole}`);
    return value;
  });
}

class Reader {
  private pos = 0;
  private readonly stack: XmlNode[] = [];
  private root: XmlNode | undefined;

  constructor(
    private readonly xml: string,
    /** `xml` holds UTF-8 bytes, one a character (byteString): text is decoded as it is kept. */
    private readonly bytes: boolean,
    private readonly eachChild: ChildReader | undefined,
    private readonly cut: Cut | undefined,
  ) {}

  read(): XmlNode {
    const { xml } = this;
    // Like xml2js, whatever follows the root's end tag is not read.
    while (this.pos < xml.length && !(this.root && this.stack.length === 0)) {
      const lt = xml.indexOf("<", this.pos);
      const end = lt < 0 ? xml.length : lt;
      if (end > this.pos) this.text(decodeEntities(this.utf8(xml.slice(this.pos, end))));
      if (lt < 0) break;
      this.pos = lt;
      const next = xml.charCodeAt(lt + 1);
      if (next === 47) this.endTag();
      else if (next === 33) this.bang();
      else if (next === 63) this.skipPast("?>", "Unterminated processing instruction");
      else this.startTag();
    }
    const open = this.stack.at(-1);
    if (open) throw new XmlSyntaxError(`Unclosed tag <${open["#name"]}>`);
    if (!this.root) throw new XmlSyntaxError("No root element");
    return this.root;
  }

  /** A run of `xml` as text: itself, or for bytes (byteString) with one over 0x7F, decoded. */
  private utf8(run: string): string {
    return this.bytes && NOT_ASCII.test(run) ? Buffer.from(run, "latin1").toString("utf8") : run;
  }

  private text(run: string): void {
    const parent = this.stack.at(-1);
    if (parent) (parent.$$ ??= []).push({ "#name": TEXT_NODE, _: run });
    else if (run.trim() !== "") throw new XmlSyntaxError("Text data outside of root node");
  }

  private startTag(): void {
    const { xml } = this;
    const from = this.pos + 1;
    let at = nameEnd(xml, from, false);
    if (at === from) throw new XmlSyntaxError(`Malformed tag at ${this.pos}`);
    const name = xml.slice(from, at);
    if (name === this.cut?.from && this.cutRest(this.cut.parents)) return;
    const node: XmlNode = { "#name": name };
    // Attributes: whitespace, a name, "=", a quoted value; what does not fit ends the list there.
    for (;;) {
      const start = spaceEnd(xml, at);
      if (start === at) break;
      const end = nameEnd(xml, start, true);
      if (end === start) break;
      const equals = spaceEnd(xml, end);
      if (xml.charCodeAt(equals) !== 61) break; // =
      const open = spaceEnd(xml, equals + 1);
      const quote = xml.charCodeAt(open);
      if (quote !== 34 && quote !== 39) break; // " or '
      const close = xml.indexOf(quote === 34 ? '"' : "'", open + 1);
      if (close < 0) break;
      (node.$ ??= {})[xml.slice(start, end)] = decodeEntities(
        this.utf8(xml.slice(open + 1, close)),
      );
      at = close + 1;
    }
    at = spaceEnd(xml, at);
    const selfClosing = xml.charCodeAt(at) === 47; // /
    if (selfClosing) at++;
    if (xml.charCodeAt(at) !== 62) throw new XmlSyntaxError(`Malformed tag <${name}>`); // >
    this.pos = at + 1;
    const parent = this.stack.at(-1);
    if (parent) (parent.$$ ??= []).push(node);
    else if (this.root) throw new XmlSyntaxError(`A second root element <${name}>`);
    else this.root = node;
    if (!selfClosing) this.stack.push(node);
    else this.closed(node);
  }

  /** Moves to the end tag of the open element if `parents` names it; false (and stays) if not. */
  private cutRest(parents: readonly string[]): boolean {
    const parent = this.stack.at(-1)?.["#name"];
    if (parent === undefined || !parents.includes(parent)) return false;
    const end = this.xml.indexOf(`</${parent}>`, this.pos);
    if (end < 0) return false;
    this.pos = end;
    return true;
  }

  /** `node` is read whole: a child of the root goes to eachChild. */
  private closed(node: XmlNode): void {
    const root = this.stack.length === 1 ? this.stack[0] : undefined;
    if (root && this.eachChild?.(node, root)) root.$$?.pop();
  }

  private endTag(): void {
    const { xml } = this;
    const gt = xml.indexOf(">", this.pos);
    if (gt < 0) throw new XmlSyntaxError("Unterminated end tag");
    const open = this.stack.pop();
    const name = open?.["#name"] ?? "";
    // The open element's name, with only whitespace around it (sax allows it before the name
    // too): compared in place, with no slice.
    const from = spaceEnd(xml, this.pos + 2);
    if (!open || !xml.startsWith(name, from) || spaceEnd(xml, from + name.length) !== gt) {
      throw new XmlSyntaxError(`Unexpected close tag </${xml.slice(from, gt).trimEnd()}>`);
    }
    this.pos = gt + 1;
    this.closed(open);
  }

  /** <!-- comment -->, <![CDATA[ text ]]> or <!DOCTYPE … [internal subset]>. */
  private bang(): void {
    const { xml } = this;
    if (xml.startsWith("<!--", this.pos)) this.skipPast("-->", "Unterminated comment");
    else if (xml.startsWith("<![CDATA[", this.pos)) {
      const end = xml.indexOf("]]>", this.pos);
      if (end < 0) throw new XmlSyntaxError("Unterminated CDATA section");
      this.text(this.utf8(xml.slice(this.pos + 9, end)));
      this.pos = end + 3;
    } else if (xml.startsWith("<!DOCTYPE", this.pos) && !this.root) {
      const bracket = xml.indexOf("[", this.pos);
      const gt = xml.indexOf(">", this.pos);
      if (gt < 0) throw new XmlSyntaxError("Unterminated DOCTYPE");
      // An internal subset holds declarations ending in ">": the DOCTYPE ends after "]>".
      if (bracket >= 0 && bracket < gt) this.skipPast("]", "Unterminated DOCTYPE");
      this.skipPast(">", "Unterminated DOCTYPE");
    } else throw new XmlSyntaxError(`Malformed markup at ${this.pos}`);
  }

  private skipPast(marker: string, problem: string): void {
    const end = this.xml.indexOf(marker, this.pos);
    if (end < 0) throw new XmlSyntaxError(problem);
    this.pos = end + marker.length;
  }
}
