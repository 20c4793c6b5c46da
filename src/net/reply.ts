/**
 * Plumbing shared by the parsers of the non-E-utilities services (PMC ID Converter, Europe PMC,
 * Unpaywall, PubTator): a JSON parse whose failures read as UpstreamError naming the service, loose
 * accessors over untyped JSON, and bounded text (snippets that end at a word and never split a
 * surrogate pair).
 */
import { UpstreamError } from "../errors.js";

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Parses a service's JSON reply. HTML pages (proxies, maintenance), empty and truncated bodies
 * become UpstreamError — retryable — with the service and the reply named, never the body.
 */
export function parseJsonReply(body: string, service: string, what: string): Json {
  const trimmed = body.replace(/^\uFEFF/, "").trim();
  if (/^</.test(trimmed)) {
    throw new UpstreamError(
      `${service} returned an HTML or XML page instead of a JSON ${what} reply; retry the call.`,
      { service },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch (err) {
    const reason = trimmed === "" ? "empty body" : "truncated or malformed JSON";
    throw new UpstreamError(
      `${service} returned a malformed ${what} reply (${reason}); retry the call.`,
      { service, reason },
      { cause: err },
    );
  }
  if (!isRecord(parsed)) {
    throw new UpstreamError(
      `${service} returned an unexpected ${what} reply (not a JSON object); retry the call.`,
      { service },
    );
  }
  return parsed;
}

/** Trimmed string of a string or finite number; undefined for anything else or "". */
export function str(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** Non-negative integer from a number or digit string; undefined otherwise. */
export function count(value: unknown): number | undefined {
  const n = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** Array elements, or [] when `value` is not an array. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `{...}` without its undefined members and empty arrays: optional output fields are omitted, never null or []. */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(
    Object.entries(value).filter(
      ([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0),
    ),
  ) as T;
}

/**
 * `text` cut to at most `maxChars` UTF-16 units plus "…": at the last whitespace inside the budget
 * when there is one in its second half, else at the budget; a cut never falls between the two
 * halves of a surrogate pair. Text within the budget comes back unchanged.
 */
export function snippet(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = Math.max(0, maxChars);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // a high surrogate: its pair would be cut off
  const space = text.slice(0, end + 1).search(/\s\S*$/);
  if (space >= end / 2) end = space;
  return `${text.slice(0, end).trimEnd()}…`;
}
