/**
 * Cheap checks on E-utilities reply bodies, made before a parser ever sees them: NCBI answers
 * trouble with HTTP 200 surprisingly often (rate-limit JSON, HTML error pages, cut-off XML,
 * <ERROR> documents). Nothing here parses a whole document; the parsers in ./parse do that. Also
 * the wording of every failure the client reports: what NCBI did and how to proceed.
 */
import { AppError, EntrezError, UpstreamError } from "../errors.js";
import { isHtml, stripBom, xmlClosed, xmlRoot } from "../net/body.js";
import { rateLimitFailure, type BodyFormat, type Outcome } from "../net/failures.js";
import type { Params, Utility } from "./types.js";

export { isHtml } from "../net/body.js";
export { retryAfterMs, type BodyFormat, type Failure, type Outcome } from "../net/failures.js";

export type Verdict =
  | { kind: "ok" }
  /** {"error":"API rate limit exceeded",…} — NCBI sends it with HTTP 429 and sometimes 200. */
  | { kind: "rate-limit" }
  | { kind: "html" }
  | { kind: "truncated"; detail: string }
  /** NCBI understood the request and refused it; retrying will not help. */
  | { kind: "entrez-error"; message: string };

/** Error documents are a few hundred bytes; results worth keeping are larger, so skip the scan. */
const SMALL_BODY = 32 * 1024;

/** What a successful reply should look like for these parameters. */
export function expectedFormat(utility: Utility, params: Params): BodyFormat {
  if (utility === "ecitmatch") return "text"; // ECitMatch answers plain pipe-separated lines
  const retmode = String(params.retmode ?? "").toLowerCase();
  if (retmode === "json") return "json";
  if (retmode === "text" || retmode === "asn.1") return "text";
  if (retmode === "xml") return "xml";
  // EFetch's text report types (MEDLINE, abstract, uilist) default to text when retmode is absent.
  const rettype = String(params.rettype ?? "").toLowerCase();
  if (utility === "efetch" && ["medline", "abstract", "uilist", "docsum"].includes(rettype)) {
    return "text";
  }
  return "xml";
}

export function isRateLimitBody(body: string): boolean {
  return (
    body.length < 4096 &&
    /^\s*\{/.test(body) &&
    /"error"\s*:\s*"API rate limit exceeded"/i.test(body)
  );
}

/** `partial`: `body` is only the head and tail of a reply longer than any error document. */
export function inspectBody(body: string, format: BodyFormat, partial = false): Verdict {
  if (isRateLimitBody(body)) return { kind: "rate-limit" };
  if (isHtml(body)) return { kind: "html" };
  // Every utility answers something, even for no results (ECitMatch echoes each line; EFetch
  // text reports a header): an empty 200 is a failed reply, never "nothing found".
  if (body.trim() === "") return { kind: "truncated", detail: "an empty reply" };
  if (format === "text") return { kind: "ok" };
  return format === "json" ? inspectJson(body, partial) : inspectXml(body, partial);
}

function inspectJson(body: string, partial: boolean): Verdict {
  const text = body.trim();
  const closes = text.endsWith("}") || text.endsWith("]");
  if (!/^[{[]/.test(text) || !closes)
    return { kind: "truncated", detail: "a truncated JSON reply" };
  if (partial || text.length > SMALL_BODY) return { kind: "ok" };
  const top = jsonError(text);
  return top ? { kind: "entrez-error", message: top } : { kind: "ok" };
}

/** A top-level "error" with no result beside it, e.g. "Too many UIDs in request…". */
function jsonError(text: string): string | undefined {
  try {
    const obj: unknown = JSON.parse(text);
    if (!obj || typeof obj !== "object" || Array.isArray(obj)) return undefined;
    const rec = obj as Record<string, unknown>;
    const results = ["result", "esearchresult", "linksets", "einforesult", "espellresult"];
    if (typeof rec.error !== "string" || results.some((k) => k in rec)) return undefined;
    return rec.error;
  } catch {
    return undefined;
  }
}

function inspectXml(body: string, partial: boolean): Verdict {
  const text = stripBom(body);
  const root = xmlRoot(text);
  if (!root) {
    // NCBI answers some failures in JSON whatever retmode asked for ({"error":"Invalid query…"}).
    const json =
      /^\s*\{/.test(text) && text.length < SMALL_BODY ? jsonError(text.trim()) : undefined;
    if (json) return { kind: "entrez-error", message: json };
    return { kind: "truncated", detail: "a reply that is not XML" };
  }
  if (!xmlClosed(text, root)) {
    return { kind: "truncated", detail: `a truncated reply (no closing </${root}>)` };
  }
  if (partial || text.length > SMALL_BODY || !text.includes("<ERROR>")) return { kind: "ok" };
  const errors = rootLevelErrors(text);
  return errors.length > 0 ? { kind: "entrez-error", message: errors.join("; ") } : { kind: "ok" };
}

/**
 * Texts of <ERROR> elements that are direct children of the root ("<eLinkResult><ERROR>Invalid
 * uid…"). An <ERROR> nested deeper belongs to one part of a partial answer and is the parser's.
 */
export function rootLevelErrors(xml: string): string[] {
  const found: string[] = [];
  const tag =
    /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<[?!][^>]*>|<(\/?)([A-Za-z_][\w.:-]*)[^>]*?(\/?)>/g;
  let depth = 0;
  let errorStart = -1;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    const [whole, closing, name, selfClosing] = m;
    if (name === undefined) continue;
    if (closing) {
      depth -= 1;
      if (name === "ERROR" && depth === 1 && errorStart >= 0) {
        found.push(decodeEntities(xml.slice(errorStart, m.index)).trim());
        errorStart = -1;
      }
    } else if (!selfClosing) {
      if (name === "ERROR" && depth === 1) errorStart = m.index + whole.length;
      depth += 1;
    }
  }
  return found.filter(Boolean);
}

/** A short human-readable message from a 4xx body (JSON "error", <ERROR>, or plain text). */
export function replyMessage(body: string): string | undefined {
  if (isHtml(body)) return undefined;
  const text = body.trim();
  const json = text.startsWith("{") ? jsonError(text) : undefined;
  const xml = /<ERROR>([\s\S]*?)<\/ERROR>/.exec(text)?.[1];
  const plain = text.startsWith("<") ? undefined : text;
  const msg = (json ?? (xml ? decodeEntities(xml) : plain))?.replace(/\s+/g, " ").trim();
  if (!msg) return undefined;
  return msg.length > 200 ? `${msg.slice(0, 200)}…` : msg;
}

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

export interface Reply {
  utility: Utility;
  format: BodyFormat;
  status: number;
  retryAfter: string | null;
  body: string;
  /** `body` is only the head and tail of a long reply (PoliteClient.requestBytes). */
  partial?: boolean;
  /** Removes the API key from any text NCBI echoes (its JSON errors carry an "api-key" field). */
  redact: (text: string) => string;
}

/** Sorts a reply into success, a retryable failure, or (thrown) an error retrying cannot fix. */
export function classifyReply(r: Reply): Outcome {
  const verdict = inspectBody(r.body, r.format, r.partial);
  if (r.status === 429 || verdict.kind === "rate-limit") {
    const advice =
      "Wait a few seconds before retrying; NCBI allows 3 requests per second without an API key and 10 with one (NCBI_API_KEY).";
    return { ok: false, failure: rateLimitFailure(r.status, r.retryAfter, advice) };
  }
  if (r.status >= 500) {
    const advice = "NCBI's service is having trouble; try again in a minute.";
    return { ok: false, failure: { rateLimited: false, what: `HTTP ${r.status}`, advice } };
  }
  if (r.status >= 300) throw refusal(r);
  switch (verdict.kind) {
    case "ok":
      return { ok: true, body: r.body };
    case "entrez-error":
      throw new EntrezError(`NCBI ${r.utility} reported: ${r.redact(verdict.message)}`, {
        utility: r.utility,
      });
    case "html": {
      const what = `an HTML page instead of ${r.format === "json" ? "JSON" : "XML"}`;
      const advice = "NCBI is probably in maintenance or overloaded; try again later.";
      return { ok: false, failure: { rateLimited: false, what, advice } };
    }
    case "truncated": {
      const advice = "Try again, or ask for fewer records per call.";
      return { ok: false, failure: { rateLimited: false, what: verdict.detail, advice } };
    }
  }
}

/** HTTP 3xx/4xx other than 429: the request itself is wrong, so retrying cannot help. */
function refusal(r: Reply): AppError {
  const said = replyMessage(r.body);
  const quoted = said ? `: ${r.redact(said)}` : "";
  const details = { utility: r.utility, status: r.status };
  if (said && /api.?key/i.test(said)) {
    return new UpstreamError(
      `NCBI rejected the API key (HTTP ${r.status}${quoted}). Check NCBI_API_KEY, or unset it to use the keyless rate of 3 requests per second.`,
      details,
    );
  }
  if (r.status === 400) {
    return new EntrezError(
      `NCBI rejected the ${r.utility} request as invalid (HTTP 400${quoted}). Check the query syntax (balanced quotes and brackets, known [field] tags) and the other arguments.`,
      details,
    );
  }
  if (r.status === 401 || r.status === 403) {
    return new UpstreamError(
      `NCBI refused access (HTTP ${r.status}${quoted}). If NCBI_API_KEY is set, check that the key is valid.`,
      details,
    );
  }
  if (r.status === 404) {
    return new UpstreamError(
      `NCBI has no ${r.utility} service at the configured address (HTTP 404). Check NCBI_EUTILS_BASE_URL.`,
      details,
    );
  }
  return new UpstreamError(
    `NCBI refused the ${r.utility} request (HTTP ${r.status}${quoted}); retrying will not help.`,
    details,
  );
}
