/**
 * Shared plumbing for the E-utilities reply parsers (ESearch, ESummary, ELink, EInfo, ESpell):
 * one strict XML parse with xml2js, tolerant accessors over its output, and the mapping of NCBI's
 * failure shapes to typed errors — malformed/HTML bodies → UpstreamError (retryable), NCBI's own
 * <ERROR> text → EntrezError, a JSON rate-limit body → RateLimitError.
 */
import { EntrezError, RateLimitError, UpstreamError } from "../../errors.js";
import { xml2js } from "./xml2js.js";

/** An xml2js element parsed with `explicitArray`: children are arrays, `$` attributes, `_` text. */
export type XmlElement = Record<string, unknown>;

/**
 * Parses an E-utilities XML body and returns its root element, checking the root's name.
 * Throws UpstreamError for bodies that are not the expected XML (truncated, HTML, empty),
 * EntrezError for a document whose root is <ERROR>, RateLimitError for NCBI's JSON rate-limit body.
 */
export function parseEutilsXml(body: string, utility: string, expectedRoot: string): XmlElement {
  const trimmed = body.replace(/^\uFEFF/, "").trim();
  if (trimmed.startsWith("{")) throw jsonReplyError(trimmed, utility);
  if (/^(?:<!doctype\s+html|<html[\s>])/i.test(trimmed)) {
    throw new UpstreamError(
      `NCBI returned an HTML page instead of an ${utility} XML reply; retry the call.`,
      { utility },
    );
  }
  const doc = parseSync(trimmed, utility);
  const [rootName, rootValue] = Object.entries(doc)[0] ?? [];
  if (rootName === "ERROR") throw entrezError(utility, [text(rootValue)]);
  if (rootName !== expectedRoot) {
    throw new UpstreamError(
      `NCBI returned an unexpected ${utility} reply (root <${rootName ?? "none"}>, expected <${expectedRoot}>); retry the call.`,
      { utility, root: rootName ?? null },
    );
  }
  // A root with no children parses to a plain string; treat it as an empty element.
  return isElement(rootValue) ? rootValue : {};
}

function parseSync(xml: string, utility: string): XmlElement {
  // xml2js calls back synchronously unless `async: true`; a fresh parser per call because one
  // that has failed cannot be reused.
  let result: unknown = null;
  let failure: unknown = null;
  const parser = new (xml2js().Parser)({
    explicitArray: true,
    trim: true,
    async: false,
    strict: true,
  });
  parser.parseString(xml, (err: Error | null, value: unknown) => {
    failure ??= err;
    result ??= value;
  });
  if (failure !== null || !isElement(result)) {
    const reason =
      failure instanceof Error ? (failure.message.split("\n")[0] ?? "parse error") : "empty body";
    throw new UpstreamError(
      `NCBI returned a malformed ${utility} reply (${reason}); retry the call.`,
      { utility, reason },
      { cause: failure ?? undefined },
    );
  }
  return result;
}

/** The error for a JSON body where XML was expected: rate limit, NCBI's own error, or malformed. */
export function jsonReplyError(body: string, utility: string): Error {
  const json = detectJsonError(body);
  if (json?.rateLimited) {
    return new RateLimitError(
      `NCBI rate limit hit (${json.message}); wait a second and retry the call.`,
      { utility },
    );
  }
  if (json) return entrezError(utility, [json.message]);
  return new UpstreamError(
    `NCBI returned a malformed ${utility} reply (JSON where XML was expected); retry the call.`,
    { utility },
  );
}

/**
 * Recognises NCBI's JSON error bodies, which can arrive with HTTP 200 or 429 whatever retmode was
 * asked: `{"error":"API rate limit exceeded","count":"11"}` and other top-level `{"error": "…"}`.
 * The "api-key" field is left out of the message because it can carry the caller's key or IP.
 */
export function detectJsonError(body: string): { rateLimited: boolean; message: string } | null {
  const trimmed = body.replace(/^\uFEFF/, "").trim();
  if (!trimmed.startsWith("{")) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return null;
  }
  if (!isElement(parsed)) return null;
  const error = parsed.error ?? parsed.ERROR;
  if (typeof error !== "string" || error.trim() === "") return null;
  const extras = [
    typeof parsed.count === "string" || typeof parsed.count === "number"
      ? `count ${parsed.count}`
      : null,
    typeof parsed.limit === "string" || typeof parsed.limit === "number"
      ? `limit ${parsed.limit}`
      : null,
  ].filter((x): x is string => x !== null);
  const message = extras.length > 0 ? `${error.trim()} (${extras.join(", ")})` : error.trim();
  return { rateLimited: /rate limit/i.test(error), message };
}

/** An EntrezError carrying NCBI's own words. */
export function entrezError(utility: string, ncbiErrors: string[]): EntrezError {
  const messages = ncbiErrors.filter((m) => m !== "");
  return new EntrezError(
    `NCBI ${utility} reported an error: ${messages.join("; ") || "(no message)"}`,
    { utility, ncbiErrors: messages },
  );
}

/** Non-empty texts of `<ERROR>` children; an empty `<ERROR/>` (as ESpell always sends) is not an error. */
export function errorTexts(node: unknown): string[] {
  return childTexts(node, "ERROR").filter((t) => t !== "");
}

/** Throws EntrezError when `node` has any non-empty `<ERROR>` child. */
export function throwOnErrors(node: unknown, utility: string): void {
  const errors = errorTexts(node);
  if (errors.length > 0) throw entrezError(utility, errors);
}

export function isElement(value: unknown): value is XmlElement {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Child values named `name` (strings for text-only leaves, elements otherwise); [] if none. */
export function children(node: unknown, name: string): unknown[] {
  if (!isElement(node)) return [];
  const value = node[name];
  return Array.isArray(value) ? value : [];
}

/** First child named `name`, or undefined. */
export function child(node: unknown, name: string): unknown {
  return children(node, name)[0];
}

/** Whitespace that is more than one plain space: a run, or a newline, tab, no-break space… */
const NOT_ONE_SPACE = /[^\S ]| {2}/;

/**
 * Collapses whitespace runs (newlines, tabs, no-break spaces) to one space and trims. The result
 * owns its characters: V8 makes a substring (and a regex replace's result) a view of the string it
 * came from, so a parsed text kept without its reply would otherwise keep the whole reply alive.
 */
export function normalizeSpace(text: string): string {
  // Most texts already have single spaces only: a scan instead of a replace per space.
  const spaced = NOT_ONE_SPACE.test(text) ? text.replace(/\s+/g, " ") : text;
  return ownCopy(spaced.trim());
}

/** A flat copy: V8 flattens a concatenation when it is sliced, so what `text` views can go. */
export function ownCopy(text: string): string {
  return ` ${text}`.slice(1);
}

/** Text content of a leaf, trimmed with inner whitespace collapsed; "" for anything else. */
export function text(node: unknown): string {
  const raw = typeof node === "string" ? node : isElement(node) ? node._ : undefined;
  return typeof raw === "string" ? normalizeSpace(raw) : "";
}

/** Text of the first child named `name`, or null when absent or empty. */
export function childText(node: unknown, name: string): string | null {
  const value = text(child(node, name));
  return value === "" ? null : value;
}

export function childTexts(node: unknown, name: string): string[] {
  return children(node, name).map(text);
}

export function attr(node: unknown, name: string): string | null {
  if (!isElement(node) || !isElement(node.$)) return null;
  const value = node.$[name];
  return typeof value === "string" ? ownCopy(value) : null;
}

/** Base-10 integer, or null for absent/empty/non-numeric text. */
export function toInt(value: string | null): number | null {
  if (value === null || !/^-?\d+$/.test(value)) return null;
  return Number.parseInt(value, 10);
}
