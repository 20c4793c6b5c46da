/**
 * What a failed request to an outside service reads like, for every service the polite client
 * talks to (NCBI E-utilities, the PMC ID Converter, Europe PMC, Unpaywall, PubTator): the one
 * wording of timeouts, dropped connections, exhausted retries, deadlines and refusals, with the
 * service named so the model knows which one failed and which variable points at it.
 */
import { AppError, RateLimitError, UpstreamError } from "../errors.js";

/** Who a client talks to, as messages and error details name it. */
export interface ServiceInfo {
  /** Named in messages: "NCBI", "Europe PMC", "Unpaywall", "PubTator". */
  name: string;
  /** `details.service` of its errors, and its log lines' name: "ncbi", "europepmc", … */
  id: string;
  /** The variable that sets its address, named in advice: "EUROPEPMC_BASE_URL". */
  baseUrlVar: string;
}

export type BodyFormat = "xml" | "json" | "text";

/** One failed attempt worth retrying. */
export interface Failure {
  rateLimited: boolean;
  /** What the service did, for messages: "HTTP 503", "an HTML page instead of XML", … */
  what: string;
  advice: string;
  /** The pause this client honours: the service's Retry-After, at most MAX_RETRY_AFTER_MS. */
  retryAfterMs?: number;
  /** The pause the service asked for, uncapped (reported to a caller that stops, e.g. a sync). */
  retryAfterGivenMs?: number;
}

export type Outcome = { ok: true; body: string } | { ok: false; failure: Failure };

/** A Retry-After beyond this is treated as this; the caller's deadline still bounds the wait. */
export const MAX_RETRY_AFTER_MS = 300_000;

/** Retry-After is either delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A 429 (or a body that says the same): retried after the service's Retry-After, if any. */
export function rateLimitFailure(
  status: number,
  retryAfter: string | null,
  advice: string,
): Failure {
  const after = retryAfterMs(retryAfter);
  const retry = after === undefined ? undefined : Math.min(after, MAX_RETRY_AFTER_MS);
  const what = `a rate-limit refusal (HTTP ${status})`;
  return { rateLimited: true, what, advice, retryAfterMs: retry, retryAfterGivenMs: after };
}

/** Connection refused, reset or cut mid-body. Only the error code is kept: messages may hold URLs. */
export function connectionFailure(
  service: ServiceInfo,
  err: unknown,
  status: number | undefined,
): Failure {
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === "string" ? ` (${cause.code})` : "";
  return {
    rateLimited: false,
    what:
      status === undefined
        ? `a failed connection${code}`
        : `a connection dropped mid-reply${code} after HTTP ${status}`,
    advice: `Check the network connection and ${service.baseUrlVar}, then try again.`,
  };
}

export function timeoutFailure(service: ServiceInfo, timeoutMs: number): Failure {
  return {
    rateLimited: false,
    what: `no answer within ${Math.round(timeoutMs / 100) / 10} s (NCBI_TIMEOUT_MS)`,
    advice: `${service.name} is slow right now; try again later or ask for fewer records per call.`,
  };
}

/** Retries ran out: RATE_LIMIT when the service kept saying "slow down", UPSTREAM otherwise. */
export function retriesExhausted(
  service: ServiceInfo,
  label: string | undefined,
  last: Failure,
  attempts: number,
  details: Record<string, unknown>,
): AppError {
  const times = `${attempts} time${attempts === 1 ? "" : "s"}`;
  const who = label ? `${service.name} ${label}` : service.name;
  const message = `${who} failed ${times}; the last reply was ${last.what}. ${last.advice}`;
  const all: Record<string, unknown> = { ...details, attempts };
  if (last.rateLimited && last.retryAfterGivenMs !== undefined) {
    // What the service asked for, so a caller that stops can say when to come back.
    all.retryAfterSeconds = Math.ceil(last.retryAfterGivenMs / 1000);
    all.retryAt = new Date(Date.now() + last.retryAfterGivenMs).toISOString();
  }
  return last.rateLimited ? new RateLimitError(message, all) : new UpstreamError(message, all);
}

/** The tool deadline (a TimeoutError reason) passed while waiting or retrying. */
export function deadlinePassed(
  service: ServiceInfo,
  deadlineMs: number,
  last: Failure | undefined,
  details: Record<string, unknown> | null = null,
): AppError {
  const seconds = Math.round(deadlineMs / 1000);
  const lastWas = last ? ` (last reply: ${last.what})` : "";
  const message = `${service.name} did not answer within ${seconds} s (NCBI_DEADLINE_MS)${lastWas}; try again later or narrow the request.`;
  return last?.rateLimited
    ? new RateLimitError(message, details)
    : new UpstreamError(message, details);
}

/** Nothing was sent: the service's pause outlasts the call's deadline, so say when to come back. */
export function coolingPastDeadline(
  service: ServiceInfo,
  waitMs: number,
  now: number,
  details: Record<string, unknown>,
): RateLimitError {
  const seconds = Math.ceil(waitMs / 1000);
  const retryAt = new Date(now + waitMs).toISOString();
  return new RateLimitError(
    `${service.name} asked for a pause after a rate-limit refusal; it accepts requests again at ${retryAt} (in ${seconds} s), after this call's deadline (NCBI_DEADLINE_MS), so nothing was sent. Try again then.`,
    { ...details, retryAfterSeconds: seconds, retryAt },
  );
}

/**
 * Nothing was sent: the budget every replica on the database shares is taken by the calls queued
 * ahead of this one until after its deadline, so it fails now rather than at the deadline.
 */
export function budgetPastDeadline(
  service: ServiceInfo,
  maxRps: number,
  waitMs: number,
  queued: number,
  details: Record<string, unknown>,
): RateLimitError {
  const seconds = Math.ceil(waitMs / 1000);
  return new RateLimitError(
    `${service.name}'s request budget, shared by every server replica on this database (NCBI_MAX_RPS=${maxRps} requests/s in all), is saturated: ${count(queued, "call")} queued for it, so this one could start only in about ${seconds} s, after its deadline (NCBI_DEADLINE_MS); nothing was sent. Try again in ${seconds} s, or make fewer calls at once.`,
    { ...details, retryAfterSeconds: seconds, queued },
  );
}

/** Nothing was sent: the call's deadline came while it waited in this server's queue for a start. */
export function queuedPastDeadline(
  service: ServiceInfo,
  deadlineMs: number,
  maxRps: number,
  waiting: number,
  details: Record<string, unknown>,
): RateLimitError {
  const seconds = Math.round(deadlineMs / 1000);
  return new RateLimitError(
    `${service.name} was not asked: this call waited ${seconds} s (NCBI_DEADLINE_MS) for its turn under the rate limit (${maxRps} per second) behind ${count(waiting, "other call")}; nothing was sent. Try again shortly, or make fewer calls at once.`,
    { ...details, queued: waiting + 1 },
  );
}

/** "1 call", "3 calls". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
