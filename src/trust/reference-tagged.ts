/**
 * BibTeX and RIS entries → ParsedReference, and the splitting of a pasted block or list into
 * single references (docs/trust.md). Both formats are small enough to read here; the citation
 * library the project has (citation-js) takes seconds to load and would run on the MCP loop.
 */
import {
  COLLECTIVE,
  parseAuthors,
  parseFreeText,
  type ParsedReference,
} from "./reference-parse.js";
import { normalizeDoi } from "../ncbi/ids.js";
import { initialsOf, type RefAuthor } from "./reference-text.js";

/** LaTeX accents and escapes as BibTeX writes them: {\"o} → ö, \'{e} → é, \& → &. */
const ACCENTS: Record<string, string> = {
  '"': "\u0308",
  "'": "\u0301",
  "`": "\u0300",
  "^": "\u0302",
  "~": "\u0303",
  "=": "\u0304",
  ".": "\u0307",
  c: "\u0327",
  v: "\u030c",
  u: "\u0306",
  H: "\u030b",
};

/** LaTeX's special letters: \\o{} → ø, \\ss → ß. */
const LETTERS: Record<string, string> = {
  ss: "ß",
  ae: "æ",
  AE: "Æ",
  oe: "œ",
  OE: "Œ",
  aa: "å",
  AA: "Å",
  o: "ø",
  O: "Ø",
  l: "ł",
  L: "Ł",
};

export function unlatex(value: string): string {
  return value
    .replace(/\\([ij])(?![a-zA-Z])\s*/g, "$1") // dotless i and j, as under an accent: {\'\i}
    .replace(/\\([`'"^~=.]|[cvuH](?=[\s{]))\s*\{?\s*([A-Za-z])\}?/g, (_m, accent: string, letter) =>
      `${letter}${ACCENTS[accent] ?? ""}`.normalize("NFC"),
    )
    .replace(
      /\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L)(?![a-zA-Z])\s*/g,
      (_m, letter: string) => LETTERS[letter] ?? letter,
    )
    .replace(/\\([&%$#_{}])/g, "$1")
    .replace(/\\[a-zA-Z]+\s*/g, "")
    .replace(/[{}]/g, "")
    .replace(/--/g, "-")
    .replace(/\s+/g, " ")
    .trim();
}

/** The fields of one BibTeX entry, lower-cased names; values with braces or quotes or bare. */
function bibtexFields(entry: string): Map<string, string> {
  const fields = new Map<string, string>();
  const body = entry.slice(entry.indexOf("{") + 1);
  let i = body.indexOf(","); // past the citation key
  while (i >= 0 && i < body.length) {
    const name = /^\s*,?\s*([A-Za-z][\w-]*)\s*=\s*/.exec(body.slice(i));
    if (!name?.[1]) break;
    i += name[0].length;
    let value = "";
    const open = body[i];
    if (open === "{" || open === '"') {
      // Nested braces count; a backslash escapes the next character; a quoted value ends at a
      // quote outside braces, a braced one at its closing brace.
      let depth = 0;
      let j = i + 1;
      for (; j < body.length; j++) {
        const c = body[j];
        if (c === "\\") {
          j++;
        } else if (c === "{") {
          depth++;
        } else if (c === "}") {
          if (depth === 0) break;
          depth--;
        } else if (c === '"' && open === '"' && depth === 0) {
          break;
        }
      }
      value = body.slice(i + 1, j);
      i = j + 1;
    } else {
      const bare = /^[^,}]*/.exec(body.slice(i))?.[0] ?? "";
      value = bare;
      i += bare.length;
    }
    fields.set(name[1].toLowerCase(), value);
  }
  return fields;
}

/** Splits at " and " outside braces: "{Smith and Jones Group} and Lee, C." is two names. */
function splitNames(raw: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === "{") depth++;
    else if (c === "}") depth = Math.max(0, depth - 1);
    else if (depth === 0 && /\s/.test(c ?? "")) {
      const and = /^\s+and\s+/i.exec(raw.slice(i));
      if (and) {
        names.push(raw.slice(start, i));
        i += and[0].length - 1;
        start = i + 1;
      }
    }
  }
  names.push(raw.slice(start));
  return names;
}

/** One name: "Smith, John A.", "John A. Smith", or an organisation ("{TAX 325 Study Group}"). */
function nameOf(raw: string): RefAuthor | undefined {
  const braced = /^\s*\{[^{}]*\}\s*$/.test(raw);
  const n = unlatex(raw);
  if (n === "") return undefined;
  if (braced || COLLECTIVE.test(n)) return { family: n };
  const comma = n.indexOf(",");
  if (comma >= 0) {
    const given = n.slice(comma + 1).trim();
    return { family: n.slice(0, comma).trim(), ...(given ? { initials: initialsOf(given) } : {}) };
  }
  const parts = n.split(/\s+/);
  const family = parts.pop() ?? n;
  return { family, ...(parts.length ? { initials: initialsOf(parts.join(" ")) } : {}) };
}

/** A BibTeX author field: "Smith, John A. and Lee, C. and others" → authors. */
function bibtexAuthors(raw: string): { authors: RefAuthor[]; etAl: boolean } {
  const authors: RefAuthor[] = [];
  let etAl = false;
  for (const name of splitNames(raw)) {
    if (/^\s*others\s*$/i.test(name)) {
      etAl = true;
      continue;
    }
    const author = nameOf(name);
    if (author) authors.push(author);
  }
  return { authors, etAl };
}

function put<K extends keyof ParsedReference>(
  ref: ParsedReference,
  key: K,
  value: string | undefined,
) {
  const v = value?.trim();
  if (v) (ref as unknown as Record<string, string>)[key] = v;
}

export function parseBibtex(entry: string): ParsedReference {
  const raw = bibtexFields(entry);
  const f = new Map([...raw].map(([k, v]) => [k, k === "author" ? v : unlatex(v)]));
  const ref: ParsedReference = bibtexAuthors(f.get("author") ?? "");
  put(ref, "title", f.get("title")?.replace(/[.]$/, ""));
  put(ref, "journal", f.get("journal") ?? f.get("journaltitle") ?? f.get("booktitle"));
  put(ref, "year", /\d{4}/.exec(f.get("year") ?? f.get("date") ?? "")?.[0]);
  put(ref, "volume", f.get("volume"));
  put(ref, "issue", f.get("number") ?? f.get("issue"));
  put(ref, "pages", f.get("pages"));
  const doi = f.get("doi");
  if (doi) ref.doi = normalizeDoi(doi);
  put(ref, "pmid", /^\d{1,9}$/.exec(f.get("pmid") ?? "")?.[0]);
  return ref;
}

/** A RIS name without a comma: "Smith JA", or an organisation's name whole. */
function risName(name: string): RefAuthor | undefined {
  const n = name.trim();
  if (n === "") return undefined;
  const read = COLLECTIVE.test(n) ? null : parseAuthors(n);
  return read?.authors.length === 1 ? read.authors[0] : { family: n };
}

/** One RIS record (TY … ER): tags of two letters, "  - ", value. */
export function parseRis(record: string): ParsedReference {
  const ref: ParsedReference = { authors: [], etAl: false };
  let start: string | undefined;
  let end: string | undefined;
  for (const line of record.split(/\r?\n/)) {
    const m = /^([A-Z][A-Z0-9])\s{1,2}-\s?(.*)$/.exec(line);
    if (!m?.[1]) continue;
    const [tag, value = ""] = [m[1], m[2]?.trim()];
    if (tag === "AU" || tag === "A1") {
      // RIS writes one author a line as "Family, Given Names" (some put several, with ";").
      for (const name of value.split(/\s*;\s*/)) {
        const author = name.includes(",") ? nameOf(name) : risName(name);
        if (author) ref.authors.push(author);
      }
    } else if ((tag === "TI" || tag === "T1") && !ref.title) put(ref, "title", value);
    else if (["JO", "JF", "T2", "JA", "J2"].includes(tag) && !ref.journal)
      put(ref, "journal", value);
    else if ((tag === "PY" || tag === "Y1" || tag === "DA") && !ref.year)
      put(ref, "year", /\d{4}/.exec(value)?.[0]);
    else if (tag === "VL") put(ref, "volume", value);
    else if (tag === "IS") put(ref, "issue", value);
    else if (tag === "SP") start = value;
    else if (tag === "EP") end = value;
    else if (tag === "DO") ref.doi = normalizeDoi(value);
    else if (tag === "AN" || tag === "PM" || tag === "C1") {
      const pmid = /^(?:PMID:?\s*)?(\d{1,9})$/.exec(value)?.[1];
      if (pmid && !ref.pmid) ref.pmid = pmid;
    }
  }
  if (start) ref.pages = end ? `${start}-${end}` : start;
  return ref;
}

export type ReferenceFormat = "text" | "bibtex" | "ris";

export interface ReferencePiece {
  text: string;
  format: ReferenceFormat;
}

/**
 * One string from the caller → the references it holds: a BibTeX block (one per @entry), a RIS
 * file (one per TY…ER), a numbered or line-per-reference list, or a single reference.
 */
export function splitReferences(input: string): ReferencePiece[] {
  const text = input.trim();
  if (/^@\s*\w+\s*[{(]/.test(text)) {
    return text
      .split(/(?=^\s*@\s*\w+\s*[{(])/m)
      .map((t) => t.trim())
      .filter((t) => /^@\s*\w+\s*[{(]/.test(t) && !/^@\s*(?:comment|string|preamble)/i.test(t))
      .map((t) => ({ text: t, format: "bibtex" as const }));
  }
  if (/^TY\s{1,2}-/m.test(text)) {
    return text
      .split(/^ER\s{1,2}-.*$/m)
      .map((t) => t.trim())
      .filter((t) => /^TY\s{1,2}-/m.test(t))
      .map((t) => ({ text: t, format: "ris" as const }));
  }
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const numbered = /^(?:\[\d{1,4}\]|\d{1,4}[.)])\s+/;
  const pieces: string[] = [];
  if (lines.filter((l) => numbered.test(l)).length >= 2) {
    // A numbered list: a line that starts a number starts a reference; others continue it.
    for (const line of lines) {
      if (line === "") continue;
      if (numbered.test(line) || pieces.length === 0) pieces.push(line);
      else pieces[pieces.length - 1] += ` ${line}`;
    }
  } else if (lines.filter((l) => l.length >= 20).length >= 2) {
    // One reference a line (blank lines between them or not).
    pieces.push(...lines.filter((l) => l !== ""));
  } else {
    // Inline numbering: "[1] Smith J. … [2] Lee A. …"
    const inline = text.split(/\s+(?=\[\d{1,4}\]\s)/);
    pieces.push(...(inline.length >= 2 ? inline : [text.replace(/\s+/g, " ")]));
  }
  return pieces.map((t) => ({ text: t, format: "text" as const }));
}

export function parseReference(piece: ReferencePiece): ParsedReference {
  if (piece.format === "bibtex") return parseBibtex(piece.text);
  if (piece.format === "ris") return parseRis(piece.text);
  return parseFreeText(piece.text);
}
