/**
 * xml2js in document order, for replies whose text carries inline markup (EFetch PubMed records:
 * `Growth of <i>Escherichia coli</i> in media`). ./common.ts reads xml2js's keyed output, which
 * concatenates an element's text runs and loses where the <i>…</i> stood; here every element is
 * read through its ordered `$$` children instead, so mixed content flattens in reading order.
 *
 * Failure mapping matches ./common.ts: HTML, truncated or otherwise malformed bodies →
 * UpstreamError (retryable), NCBI's JSON rate-limit body → RateLimitError, NCBI's own <ERROR>
 * text → EntrezError.
 */
import type { ParserOptions } from "xml2js";
import { UpstreamError } from "../../errors.js";
import { jsonReplyError, normalizeSpace, ownCopy } from "./common.js";
import { xml2js } from "./xml2js.js";

export { normalizeSpace };

/** `#name` of the text nodes xml2js interleaves with elements (`charsAsChildren`). */
export const TEXT_NODE = "__text__";

/** One element (or, with `#name` TEXT_NODE, one text run) of an ordered parse. */
export interface XmlNode {
  "#name": string;
  /** Attributes, when the element has any. */
  $?: Record<string, string>;
  /** Text: the run itself for a text node; all direct runs concatenated for an element. */
  _?: string;
  /** Child elements and text runs in document order. */
  $$?: XmlNode[];
}

export const ORDERED_PARSER_OPTIONS: ParserOptions = {
  async: false, // parseString then calls back before it returns, so parsing stays synchronous
  strict: true,
  explicitRoot: true, // keeps the root's name even when the root is empty
  explicitArray: true,
  explicitChildren: true,
  preserveChildrenOrder: true,
  charsAsChildren: true,
  // The space in "<i>a</i> <i>b</i>" is content; dropping whitespace-only runs would glue words.
  includeWhiteChars: true,
  trim: false,
  normalize: false,
};

/**
 * Parses an E-utilities XML body in document order and returns its root element, whatever its
 * name (callers decide what a wrong root means). `utility` names the reply in error messages.
 */
export function parseOrderedXml(body: string, utility: string): XmlNode {
  const trimmed = xmlBody(body, utility);
  let result: unknown = null;
  let failure: unknown = null;
  try {
    // A fresh parser per call: one that has failed cannot be reused.
    new (xml2js().Parser)(ORDERED_PARSER_OPTIONS).parseString(trimmed, (err, value: unknown) => {
      failure ??= err;
      result ??= value;
    });
  } catch (err) {
    // xml2js can rethrow from inside sax after it has already reported an error.
    failure ??= err;
  }
  const root = failure === null && isObject(result) ? Object.values(result)[0] : undefined;
  if (!isNode(root)) throw malformedXml(utility, failure);
  return root;
}

/**
 * The body without BOM and surrounding whitespace, once it is neither JSON (NCBI's rate-limit or
 * error body) nor an HTML page: both parsers start here.
 */
export function xmlBody(body: string, utility: string): string {
  const trimmed = body.replace(/^\uFEFF/, "").trim();
  if (trimmed.startsWith("{")) throw jsonReplyError(trimmed, utility);
  if (/^(?:<!doctype\s+html|<html[\s>])/i.test(trimmed)) {
    throw new UpstreamError(
      `NCBI returned an HTML page instead of an ${utility} XML reply; retry the call.`,
      { utility },
    );
  }
  return trimmed;
}

/** A body that is not well-formed XML (cut off, garbage): retryable. */
export function malformedXml(utility: string, failure: unknown): UpstreamError {
  const reason =
    failure instanceof Error ? (failure.message.split("\n")[0] ?? "parse error") : "empty body";
  return new UpstreamError(
    `NCBI returned a truncated or malformed ${utility} reply (${reason}); retry the call.`,
    { utility, reason },
    { cause: failure ?? undefined },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isNode(value: unknown): value is XmlNode {
  return isObject(value) && typeof value["#name"] === "string";
}

/** Child elements named `name`, in order; [] when `node` is absent. */
export function elements(node: XmlNode | undefined, name: string): XmlNode[] {
  return node?.$$?.filter((c) => c["#name"] === name) ?? [];
}

/** First child element named `name`. */
export function element(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.$$?.find((c) => c["#name"] === name);
}

/** First element along a path of child names: `descend(citation, "Article", "Journal")`. */
export function descend(node: XmlNode | undefined, ...names: string[]): XmlNode | undefined {
  let current = node;
  for (const name of names) current = element(current, name);
  return current;
}

/** Attribute value, or null when the element or attribute is absent. */
export function attr(node: XmlNode | undefined, name: string): string | null {
  const value = node?.$?.[name];
  return value === undefined ? null : ownCopy(value);
}

/**
 * Readable text of an element: all descendant text in document order with inline markup
 * (<i>, <b>, <sup>, <sub>, <u>, …) dropped and whitespace normalised; null when absent or empty.
 * "10<sup>-3</sup>" reads "10-3". MathML is read as its token text (see appendText).
 */
export function text(node: XmlNode | undefined): string | null {
  if (node === undefined) return null;
  // Most elements hold one run of text: no parts to gather and join.
  const only = node.$$?.length === 1 ? node.$$[0] : undefined;
  if (only?.["#name"] === TEXT_NODE) {
    const flat = normalizeSpace(only._ ?? "");
    return flat === "" ? null : flat;
  }
  const parts: string[] = [];
  appendText(node, parts, "text");
  const flat = normalizeSpace(parts.join(""));
  return flat === "" ? null : flat;
}

/** Readable texts of the children named `name`, empty ones left out. */
export function texts(node: XmlNode | undefined, name: string): string[] {
  return elements(node, name)
    .map(text)
    .filter((t): t is string => t !== null);
}

/** MathML elements whose text is content; whitespace elsewhere in <math> is only indentation. */
const MATH_TOKENS = new Set(["mi", "mn", "mo", "ms", "mtext"]);
/** Alternative encodings (TeX source, content MathML) that would repeat the formula. */
const MATH_SKIPPED = new Set(["annotation", "annotation-xml"]);

type TextMode = "text" | "math" | "token";

/**
 * Appends `node`'s descendant text to `out`. Inside <mml:math>, tokens are concatenated without
 * separators (V̇O₂max: <mi>V</mi><mo>.</mo><mi>O</mi><mn>2</mn>… → "V.O2max"), <mspace> gives
 * one space, and the pretty-printing whitespace between MathML elements is dropped.
 */
function appendText(node: XmlNode, out: string[], mode: TextMode): void {
  for (const child of node.$$ ?? []) {
    const name = child["#name"];
    if (name === TEXT_NODE) {
      if (mode !== "math") out.push(child._ ?? "");
      continue;
    }
    const local = name.slice(name.indexOf(":") + 1); // "mml:mi" → "mi"
    if (mode === "text" && local !== "math") appendText(child, out, "text");
    else if (MATH_TOKENS.has(local)) appendText(child, out, "token");
    else if (local === "mspace") out.push(" ");
    else if (!MATH_SKIPPED.has(local)) appendText(child, out, "math");
  }
}
