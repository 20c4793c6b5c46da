/**
 * Cheap structural checks on reply bodies, made before a parser sees them, and the classification
 * of a reply from any service other than E-utilities (NCBI's own rules, with its 200-status error
 * documents, are in src/ncbi/detect.ts and build on these checks). Nothing here parses a whole
 * document.
 */
import { AppError, UpstreamError } from "../errors.js";
import { rateLimitFailure, type BodyFormat, type Outcome, type ServiceInfo } from "./failures.js";

export function stripBom(s: string): string {
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

export function isHtml(body: string): boolean {
  const head = stripBom(body.slice(0, 1024)).trimStart().toLowerCase();
  return head.startsWith("<!doctype html") || head.startsWith("<html");
}

/** One whitespace character per repetition: `(\s+)*` would backtrack exponentially on junk. */
const PROLOG =
  /^(?:\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)*<([A-Za-z_][\w.:-]*)/;

/** The name of an XML document's root element, or undefined when the body is not XML. */
export function xmlRoot(body: string): string | undefined {
  return PROLOG.exec(stripBom(body).slice(0, 8192))?.[1];
}

/** Whether the document closes its root (`</root>` or a self-closed root at the end). */
export function xmlClosed(body: string, root: string): boolean {
  const tail = stripBom(body).trimEnd();
  return (
    tail.endsWith(`</${root}>`) ||
    new RegExp(`<${escapeRe(root)}\\b[^>]*/>$`).test(tail.slice(-512))
  );
}

/** Why a non-empty body is not a whole document of `format`, or undefined when it looks whole. */
export function structureProblem(body: string, format: BodyFormat): string | undefined {
  if (format === "text") return undefined;
  if (format === "json") {
    const text = stripBom(body).trim();
    const closes = text.endsWith("}") || text.endsWith("]");
    return /^[{[]/.test(text) && closes ? undefined : "a truncated JSON reply";
  }
  const root = xmlRoot(body);
  if (!root) return "a reply that is not XML";
  return xmlClosed(body, root) ? undefined : `a truncated reply (no closing </${root}>)`;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A reply as the polite client hands it to a classifier. */
export interface ServiceReply {
  service: ServiceInfo;
  /** What was asked, for messages: "search", "fullTextXML", "esearch". */
  label: string | undefined;
  format: BodyFormat;
  status: number;
  retryAfter: string | null;
  body: string;
  /** Statuses other than 2xx that the caller reads itself (e.g. Unpaywall's 404 for an unknown DOI). */
  okStatuses: readonly number[];
  /** An empty 2xx body is an answer (e.g. an export with nothing in it), not a failed reply. */
  emptyOk: boolean;
  /** `body` is only the head and tail of a longer reply (PoliteClient.requestBytes). */
  partial?: boolean;
  /** Removes secrets (keys, emails) from any text the service echoes. */
  redact: (text: string) => string;
}

/**
 * Sorts a reply from a REST service into success, a retryable failure, or (thrown) an error
 * retrying cannot fix: 429 and 408/5xx are retried, HTML pages, empty and cut-off bodies too (a
 * proxy or a dropped connection, not an answer); other 3xx/4xx are the request's fault.
 */
export function classifyServiceReply(r: ServiceReply): Outcome {
  const { name } = r.service;
  if (r.status === 429) {
    const advice = `${name} asks clients to slow down; wait a few seconds before retrying.`;
    return { ok: false, failure: rateLimitFailure(r.status, r.retryAfter, advice) };
  }
  if (r.status === 408 || r.status >= 500) {
    const advice = `${name}'s service is having trouble; try again in a minute.`;
    return { ok: false, failure: { rateLimited: false, what: `HTTP ${r.status}`, advice } };
  }
  const passed = r.okStatuses.includes(r.status);
  if (r.status >= 300 && !passed) throw refusal(r);
  if (isHtml(r.body)) {
    if (passed && r.status >= 300) throw refusal(r);
    const what = `an HTML page instead of ${r.format === "json" ? "JSON" : r.format === "xml" ? "XML" : "text"}`;
    const advice = `${name} is probably in maintenance or overloaded; try again later.`;
    return { ok: false, failure: { rateLimited: false, what, advice } };
  }
  if (r.body.trim() === "") {
    if (r.emptyOk || passed) return { ok: true, body: r.body };
    const advice = "Try again, or ask for fewer records per call.";
    return { ok: false, failure: { rateLimited: false, what: "an empty reply", advice } };
  }
  // An error status's body is the caller's to read whatever its shape (JSON error, plain text).
  const problem = r.status >= 300 ? undefined : structureProblem(r.body, r.format);
  if (problem) {
    const advice = "Try again, or ask for fewer records per call.";
    return { ok: false, failure: { rateLimited: false, what: problem, advice } };
  }
  return { ok: true, body: r.body };
}

/** HTTP 3xx/4xx the caller does not read: the request itself is wrong, so retrying cannot help. */
function refusal(r: ServiceReply): AppError {
  const said = shortMessage(r.body);
  const quoted = said ? `: ${r.redact(said)}` : "";
  const { name, id, baseUrlVar } = r.service;
  const what = r.label ? `${r.label} request` : "request";
  const details = { service: id, status: r.status };
  if (r.status === 401 || r.status === 403) {
    return new UpstreamError(`${name} refused access (HTTP ${r.status}${quoted}).`, details);
  }
  if (r.status === 404) {
    return new UpstreamError(
      `${name} has no such resource at the configured address (HTTP 404${quoted}). Check ${baseUrlVar}.`,
      details,
    );
  }
  return new UpstreamError(
    `${name} refused the ${what} (HTTP ${r.status}${quoted}); retrying will not help.`,
    details,
  );
}

/** A short human-readable message from an error body (JSON message/error, or plain text). */
function shortMessage(body: string): string | undefined {
  if (isHtml(body)) return undefined;
  const text = stripBom(body).trim();
  let msg: string | undefined;
  if (text.startsWith("{")) {
    try {
      const obj = JSON.parse(text) as Record<string, unknown>;
      const found = [obj.message, obj.error, obj.errmsg, obj.detail].find(
        (v) => typeof v === "string",
      );
      msg = typeof found === "string" ? found : undefined;
    } catch {
      msg = undefined;
    }
  } else if (!text.startsWith("<")) msg = text;
  msg = msg?.replace(/\s+/g, " ").trim();
  if (!msg) return undefined;
  return msg.length > 200 ? `${msg.slice(0, 200)}…` : msg;
}
