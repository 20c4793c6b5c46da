/**
 * Readable text from JATS mixed content. Inline markup (<italic>, <bold>, <sc>, <xref>,
 * <ext-link>, <named-content>, …) is flattened in document order with its spacing kept; MathML is
 * read as linear text ("x^2", "a/b", "x_i"); a <tex-math> is used only where no MathML exists;
 * floats (figures, tables, supplementary material) inside a paragraph are left to the caption
 * lists; block elements nested in a paragraph (lists, quotes, display formulas) are set off by
 * spaces so words never glue together. xml2js has already decoded entities and CDATA.
 */
import { TEXT_NODE, normalizeSpace, type XmlNode } from "../ncbi/parse/xml.js";

/** Element name without its namespace prefix: "mml:mi" → "mi". */
export function localName(node: XmlNode): string {
  const name = node["#name"];
  return name.slice(name.indexOf(":") + 1);
}

/** Floats and non-text objects: captions are collected separately, graphics carry no text. */
const SKIPPED = new Set([
  "fig",
  "fig-group",
  "table-wrap",
  "table-wrap-group",
  "supplementary-material",
  "graphic",
  "inline-graphic",
  "media",
  "object-id",
  "fn",
  "sec-meta",
  "alt-text",
  "long-desc",
]);

/** Blocks that may sit inside a paragraph; they are separated from the text around them. */
const SPACED = new Set([
  "p",
  "title",
  "list",
  "list-item",
  "def-list",
  "def-item",
  "term",
  "def",
  "disp-quote",
  "disp-formula",
  "boxed-text",
  "statement",
  "preformat",
  "code",
  "break",
  "label",
  "td",
  "th",
  "given-names",
  "suffix",
]);

/** Readable text of `node`'s content, whitespace collapsed; "" when absent or empty. */
export function inlineText(node: XmlNode | undefined, skip: ReadonlySet<string> = SKIPPED): string {
  if (node === undefined) return "";
  const out: string[] = [];
  appendInline(node, out, skip);
  return normalizeSpace(out.join("").replace(FORMULA_EDGE, formulaEdge));
}

/**
 * Marks where a formula starts or ends: a space is put there only between two word characters,
 * so "of<math>x</math>," reads "of x," rather than "ofx," or "of x ,".
 */
const EDGE = "\uE000";
const FORMULA_EDGE = /([^\uE000]?)\uE000+([^\uE000]?)/gu;
function formulaEdge(_match: string, before: string, after: string): string {
  const word = /[\p{L}\p{N}]/u;
  return word.test(before) && word.test(after) ? `${before} ${after}` : before + after;
}

function appendInline(node: XmlNode, out: string[], skip: ReadonlySet<string>): void {
  for (const child of node.$$ ?? []) {
    if (child["#name"] === TEXT_NODE) {
      out.push(child._ ?? "");
      continue;
    }
    const name = localName(child);
    if (skip.has(name)) continue;
    if (name === "math") out.push(EDGE, mathText(child), EDGE);
    else if (name === "tex-math") out.push(EDGE, texText(child), EDGE);
    else if (name === "alternatives") appendAlternatives(child, out, skip);
    else if (name === "sup") appendSup(child, out, skip);
    else if (SPACED.has(name)) {
      out.push(" ");
      appendInline(child, out, skip);
      out.push(" ");
    } else appendInline(child, out, skip);
  }
}

/** <alternatives> holds one formula or object several times: read only the best one. */
function appendAlternatives(node: XmlNode, out: string[], skip: ReadonlySet<string>): void {
  const kids = (node.$$ ?? []).filter((c) => c["#name"] !== TEXT_NODE);
  const pick =
    kids.find((c) => localName(c) === "math") ??
    kids.find((c) => localName(c) === "tex-math") ??
    kids.find((c) => localName(c) === "textual-form") ??
    kids.find((c) => !skip.has(localName(c)));
  if (pick !== undefined) appendInline({ "#name": "alternatives", $$: [pick] }, out, skip);
}

/**
 * A superscript number right after a word or number reads as a power ("10^-3", "cm^2"); other
 * superscripts (citation marks, daggers, "2nd", "Ca2+") read as plain text.
 */
function appendSup(node: XmlNode, out: string[], skip: ReadonlySet<string>): void {
  const inner: string[] = [];
  appendInline(node, inner, skip);
  const value = normalizeSpace(inner.join(""));
  const before = lastChar(out);
  const isPower =
    /^[-−–+]?\d+(?:\.\d+)?$/.test(value) && /[\p{L}\p{N})]/u.test(before) && !hasXref(node);
  out.push(isPower ? `^${value}` : value);
}

function lastChar(out: readonly string[]): string {
  for (let i = out.length - 1; i >= 0; i--) {
    const run = out[i] ?? "";
    if (run !== "") return run.slice(-1);
  }
  return "";
}

function hasXref(node: XmlNode): boolean {
  return (node.$$ ?? []).some((c) => localName(c) === "xref" || hasXref(c));
}

/** TeX source without the LaTeX document wrapper PMC puts around it, and without `$` delimiters. */
function texText(node: XmlNode): string {
  const raw = collectRaw(node);
  const doc = /\\begin\{document\}([\s\S]*?)\\end\{document\}/.exec(raw);
  const body = doc?.[1] ?? raw;
  return normalizeSpace(body.replace(/\$+/g, " "));
}

function collectRaw(node: XmlNode): string {
  return (node.$$ ?? [])
    .map((c) => (c["#name"] === TEXT_NODE ? (c._ ?? "") : collectRaw(c)))
    .join("");
}

/** Wraps compound operands in parentheses so "(a+b)^2" keeps its meaning. */
function operand(text: string): string {
  return /^[\p{L}\p{N}.]*$/u.test(text) || /^\(.*\)$/.test(text) ? text : `(${text})`;
}

const MATH_SKIPPED = new Set(["annotation", "annotation-xml", "mphantom", "none", "mprescripts"]);

/** Linear text of a MathML element; pretty-printing whitespace between elements is ignored. */
export function mathText(node: XmlNode): string {
  const name = localName(node);
  const kids = (node.$$ ?? []).filter((c) => c["#name"] !== TEXT_NODE);
  const parts = (): string[] => kids.filter((c) => !MATH_SKIPPED.has(localName(c))).map(mathText);
  switch (name) {
    case "mi":
    case "mn":
    case "mo":
    case "mtext":
    case "ms":
      return normalizeSpace(collectRaw(node));
    case "mspace":
      return " ";
    case "msup": {
      const [base = "", sup = ""] = parts();
      return `${base}^${operand(sup)}`;
    }
    case "msub": {
      const [base = "", sub = ""] = parts();
      return `${base}_${operand(sub)}`;
    }
    case "msubsup": {
      const [base = "", sub = "", sup = ""] = parts();
      return `${base}_${operand(sub)}^${operand(sup)}`;
    }
    case "mfrac": {
      const [num = "", den = ""] = parts();
      return `${operand(num)}/${operand(den)}`;
    }
    case "msqrt":
      return `√${operand(parts().join(""))}`;
    case "mroot": {
      const [base = "", index = ""] = parts();
      return `${index}√${operand(base)}`;
    }
    case "mfenced": {
      const open = node.$?.open ?? "(";
      const close = node.$?.close ?? ")";
      const separator = node.$?.separators?.trim().charAt(0) ?? ",";
      return `${open}${parts().join(separator)}${close}`;
    }
    case "mtable":
      return parts().join("; ");
    case "mtr":
    case "mlabeledtr":
      return parts().join(", ");
    case "semantics":
      return kids[0] === undefined ? "" : mathText(kids[0]);
    default:
      return parts().join("");
  }
}
