/**
 * Integrity notices for DOIs from Crossref's REST API (docs/trust.md), beside PubMed's own. Asked
 * only when the operator opted in (CROSSREF_MAILTO or CROSSREF_BASE_URL set: src/config.ts);
 * otherwise nothing is sent and nothing is said. Two list queries per batch of DOIs (Crossref ORs
 * repeated filters of one name, https://github.com/CrossRef/rest-api-doc/issues/234):
 *
 *   GET {CROSSREF_BASE_URL}/works?filter=updates:A,updates:B&select=DOI,update-to&rows=1000
 *     the notices publishers deposited (Crossmark), each naming the works it updates in
 *     `update-to[{DOI, type, updated{date-parts}, label}]`;
 *   GET {CROSSREF_BASE_URL}/works?filter=doi:A,doi:B&select=DOI,updated-by&rows=<DOIs asked>
 *     the works themselves, whose `updated-by[]` (newer API versions) names the notices about them,
 *     Retraction Watch's included (`source: "retraction-watch"`).
 *
 * Crossref's update types map to ours (retraction, partial_retraction → retraction; correction,
 * corrigendum, erratum → correction; expression_of_concern; withdrawal, removal → withdrawal);
 * others (new_version, addendum, clarification, …) are no integrity notice. Replies are cached an
 * hour (src/net/clients.ts, with Crossref's rate limits). Crossref failing never fails the
 * call: the answer says Crossref was not consulted. The client is the caller's: this process's,
 * when Crossref is configured, comes from src/trust/notices.ts.
 */
import { AppError } from "../errors.js";
import { deadlineOf, setDeadline } from "../net/limiter.js";
import { isRecord, list, parseJsonReply, str } from "../net/reply.js";
import { log } from "../log.js";
import type { PoliteClient } from "../net/polite-client.js";
import { normalizeDoi } from "../ncbi/ids.js";
import { mergeNotices, type Notice, type NoticeType } from "../ncbi/notices.js";

/** DOIs per request: 50 filters of ~40 characters (~3 kB encoded) stay far below URL limits. */
const CROSSREF_BATCH = 50;
/** DOIs asked about per call (pubmed_fetch's most records); more are left unasked. */
const CROSSREF_MAX_DOIS = 200;
/** Crossref's largest page; a batch's notices fit in it (a work has a handful at most). */
const MAX_ROWS = 1000;
/** Crossref stops this long before the caller's deadline, so the answer still goes out. */
const RESERVE_MS = 1000;

const UPDATE_TYPES: Readonly<Record<string, NoticeType>> = {
  retraction: "retraction",
  partial_retraction: "retraction",
  correction: "correction",
  corrigendum: "correction",
  erratum: "correction",
  expression_of_concern: "expression_of_concern",
  withdrawal: "withdrawal",
  removal: "withdrawal",
};

export interface CrossrefNotices {
  /** Notices by the lower-cased DOI of the work they are about (`doiKey`). */
  notices: Map<string, Notice[]>;
  /** Crossref answered every request (false when not configured, given no DOI, or failed). */
  consulted: boolean;
  /** Set only when Crossref was configured and failed. */
  warning?: string;
}

/** "https://doi.org/10.1000/ABC" → "10.1000/abc" (the key notices are kept by); undefined for what is not a DOI. */
export function doiKey(doi: string | null | undefined): string | undefined {
  const d = normalizeDoi(doi ?? "");
  return /^10\.\d{4,9}\/\S+$/.test(d) ? d : undefined;
}

export interface LookUpOptions {
  signal?: AbortSignal;
  /** Names the other sources of notices in the warning ("PubMed", "Europe PMC"). */
  from: string;
  /** How long the look-up may take without a signal of the caller (NCBI_DEADLINE_MS). */
  deadlineMs: number;
}

/**
 * Crossref's notices about `dois`, through `client`. Never throws for Crossref's failures (5xx,
 * timeouts, hang-ups, malformed replies): the result says it was not consulted, with a warning. An
 * abort of `signal` is rethrown.
 */
export async function crossrefLookUp(
  client: PoliteClient,
  dois: readonly string[],
  opts: LookUpOptions,
): Promise<CrossrefNotices> {
  const { signal, from } = opts;
  // A comma would split Crossref's filter list; such DOIs are rare and left unasked.
  const asked = [...new Set(dois.map(doiKey))]
    .filter((d): d is string => d !== undefined && !d.includes(","))
    .slice(0, CROSSREF_MAX_DOIS);
  if (asked.length === 0) return { notices: new Map(), consulted: false };
  // The first failure ends the other requests of the look-up too: their answers would go unread.
  const stop = new AbortController();
  const budget = ownSignal(signal, stop.signal, opts.deadlineMs);
  const batches = Array.from({ length: Math.ceil(asked.length / CROSSREF_BATCH) }, (_, i) =>
    asked.slice(i * CROSSREF_BATCH, (i + 1) * CROSSREF_BATCH),
  );
  try {
    const replies = await Promise.all(
      batches.flatMap((b) => [
        works(client, "updates", b, budget).then((items) => ({ side: "notice" as const, items })),
        works(client, "doi", b, budget).then((items) => ({ side: "work" as const, items })),
      ]),
    );
    return { notices: noticesIn(replies, new Set(asked)), consulted: true };
  } catch (err) {
    stop.abort();
    if (signal?.aborted) throw err;
    const why = reason(err);
    log.warn("Crossref was not consulted", { reason: why, dois: asked.length });
    return {
      notices: new Map(),
      consulted: false,
      warning: `Crossref was not consulted (${why}); notices come from ${from} only.`,
    };
  }
}

/**
 * The notices the replies name about the `wanted` works: a notice's `update-to` entries (side
 * "notice") and a work's `updated-by` entries (side "work"), one per event.
 */
function noticesIn(
  replies: readonly { side: "notice" | "work"; items: Record<string, unknown>[] }[],
  wanted: ReadonlySet<string>,
): Map<string, Notice[]> {
  const found = new Map<string, Notice[]>();
  const add = (work: string | undefined, n: Notice | undefined) => {
    if (work === undefined || n === undefined || !wanted.has(work)) return;
    found.set(work, [...(found.get(work) ?? []), n]);
  };
  for (const { side, items } of replies) {
    for (const item of items) {
      const doi = doiKey(str(item.DOI));
      if (doi === undefined) continue;
      const relations = list(item[side === "notice" ? "update-to" : "updated-by"]).filter(isRecord);
      for (const u of relations) {
        const other = doiKey(str(u.DOI));
        // A work named as its own notice (a self-referencing deposit) is no notice.
        if (other === doi) continue;
        if (side === "notice") add(other, notice(u, str(item.DOI)));
        else add(doi, notice(u, other === undefined ? undefined : str(u.DOI)));
      }
    }
  }
  for (const [work, notices] of found) found.set(work, mergeNotices(notices));
  return found;
}

/** One list query: the items of a `filter=<name>:A,<name>:B` page, DOI and the relation only. */
async function works(
  client: PoliteClient,
  filter: "updates" | "doi",
  dois: readonly string[],
  signal: AbortSignal,
): Promise<Record<string, unknown>[]> {
  const select = filter === "updates" ? "DOI,update-to" : "DOI,updated-by";
  const rows = filter === "updates" ? MAX_ROWS : dois.length;
  const reply = await client.request(
    "works",
    { filter: dois.map((d) => `${filter}:${d}`).join(","), select, rows },
    { signal, accept: "json", label: filter === "updates" ? "notices" : "works" },
  );
  const body = parseJsonReply(reply.body, "Crossref", "works");
  const message = body.message;
  if (body.status !== "ok" || !isRecord(message) || !Array.isArray(message.items)) {
    throw new CrossrefReplyError("a reply with no works list");
  }
  return message.items.filter(isRecord);
}

/** An `update-to` or `updated-by` entry as a notice, or undefined for other update types. */
function notice(u: Record<string, unknown>, noticeDoi: string | undefined): Notice | undefined {
  const type = UPDATE_TYPES[(str(u.type) ?? "").toLowerCase().replace(/[\s-]+/g, "_")];
  if (type === undefined) return undefined;
  const date = isoDate(isRecord(u.updated) ? u.updated["date-parts"] : undefined);
  return {
    type,
    ...(noticeDoi === undefined ? {} : { notice_doi: noticeDoi }),
    ...(date === undefined ? {} : { date }),
  };
}

/** Crossref's `date-parts` ([[2020, 6, 5]], [[2020, 6]], [[2020]]) → "2020-06-05", "2020-06", "2020". */
function isoDate(parts: unknown): string | undefined {
  const first = list(parts)[0];
  const [y, m, d] = list(first);
  if (typeof y !== "number" || !Number.isInteger(y) || y < 1000 || y > 9999) return undefined;
  const two = (n: unknown) =>
    typeof n === "number" && Number.isInteger(n) && n >= 1 ? String(n).padStart(2, "0") : undefined;
  const month = typeof m === "number" && m <= 12 ? two(m) : undefined;
  const day = month !== undefined && typeof d === "number" && d <= 31 ? two(d) : undefined;
  return [String(y), month, day].filter((p) => p !== undefined).join("-");
}

/**
 * The caller's signal and `stop`, ended RESERVE_MS before the caller's deadline (or after
 * `deadlineMs`, NCBI_DEADLINE_MS, without one), so a slow Crossref costs the notices, not the
 * answer.
 */
function ownSignal(
  signal: AbortSignal | undefined,
  stop: AbortSignal,
  deadlineMs: number,
): AbortSignal {
  const now = performance.now();
  const until = deadlineOf(signal) ?? now + deadlineMs;
  const ms = Math.max(0, Math.floor(until - now - RESERVE_MS));
  const all = [AbortSignal.timeout(ms), stop, ...(signal ? [signal] : [])];
  return setDeadline(AbortSignal.any(all), now + ms);
}

class CrossrefReplyError extends Error {}

/**
 * Why Crossref failed, in a few words: the first sentence of a typed error without its advice to
 * retry (the polite client redacts the mailto from anything Crossref echoes).
 */
function reason(err: unknown): string {
  if (err instanceof CrossrefReplyError) return `Crossref sent ${err.message}`;
  if (err instanceof AppError) {
    const first = err.message.split(/\.\s/)[0] ?? "";
    return first.replace(/;\s*(?:retry|try)\b.*$/i, "").replace(/\.$/, "");
  }
  log.error("Crossref look-up failed unexpectedly", { err });
  return "an unexpected error";
}
