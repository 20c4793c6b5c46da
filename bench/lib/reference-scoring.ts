/**
 * Scoring pubmed_verify_references against the reference set (src/devtools/reference-set.ts):
 * each answer set beside the expected outcome, tallied per style, with the goals the report
 * prints beside each figure.
 */
import type { ReferenceCase } from "../../src/devtools/reference-set.js";

/** One result of the tool, as far as the bench reads it (the contract's fields). */
export interface VerifyResult {
  index: number;
  input: string;
  status: string;
  pmid?: string;
  differences: string[];
}

export const GOALS = {
  realVerifiedPct: 97,
  fabricatedVerified: 0,
  fieldNamedPct: 95,
  requestsPerReference: 1.5,
  vsRateFloor: 2,
} as const;

/** One batch's outcome: the cases sent, the result each got (undefined: none), cost and time. */
export interface BatchOutcome {
  cases: ReferenceCase[];
  results: (VerifyResult | undefined)[];
  requests: number;
  ms: number;
}

export interface StyleTally {
  real: number;
  realVerified: number;
  fabricated: number;
  fabricatedVerified: number;
  wrong: number;
  /** Mismatches naming the altered field. */
  wrongNamed: number;
  /** …and pointing at the record meant. */
  wrongNamedRightPmid: number;
  references: number;
  requests: number;
  unanswered: number;
  /** kind → status → count. */
  statuses: Map<string, Map<string, number>>;
}

export function emptyTally(): StyleTally {
  return {
    real: 0,
    realVerified: 0,
    fabricated: 0,
    fabricatedVerified: 0,
    wrong: 0,
    wrongNamed: 0,
    wrongNamedRightPmid: 0,
    references: 0,
    requests: 0,
    unanswered: 0,
    statuses: new Map(),
  };
}

/** Whether a case got what it should; the reason when not (for the failure listing). */
export function judge(c: ReferenceCase, r: VerifyResult | undefined): string | null {
  if (!r) return "no result";
  const got = `${r.status}${r.pmid ? ` ${r.pmid}` : ""}${r.differences.length ? ` [${r.differences.join(", ")}]` : ""}`;
  if (c.kind === "real")
    return r.status === "verified" && r.pmid === c.expect.pmid ? null : `got ${got}`;
  if (c.kind === "fabricated") return r.status === "verified" ? `got ${got}` : null;
  const fields = c.expect.differences ?? [];
  const named = r.status === "mismatch" && fields.every((f) => r.differences.includes(f));
  return named && r.pmid === c.expect.pmid ? null : `got ${got}`;
}

export function tally(into: StyleTally, batch: BatchOutcome): void {
  into.references += batch.cases.length;
  into.requests += batch.requests;
  batch.cases.forEach((c, i) => {
    const r = batch.results[i];
    const byStatus = into.statuses.get(c.kind) ?? new Map<string, number>();
    into.statuses.set(c.kind, byStatus);
    const status = r?.status ?? "no result";
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    if (!r) into.unanswered++;
    if (c.kind === "real") {
      into.real++;
      if (r?.status === "verified" && r.pmid === c.expect.pmid) into.realVerified++;
    } else if (c.kind === "fabricated") {
      into.fabricated++;
      if (r?.status === "verified") into.fabricatedVerified++;
    } else {
      into.wrong++;
      const fields = c.expect.differences ?? [];
      if (r?.status === "mismatch" && fields.every((f) => r.differences.includes(f))) {
        into.wrongNamed++;
        if (r.pmid === c.expect.pmid) into.wrongNamedRightPmid++;
      }
    }
  });
}

/**
 * Pairs results with the references sent. The tool splits a string holding several references, so
 * results can outnumber them; then each reference takes the next result whose echoed input starts
 * as it does (a reference split in parts is judged by its first part).
 */
export function align(
  cases: ReferenceCase[],
  results: VerifyResult[],
): (VerifyResult | undefined)[] {
  if (results.length === cases.length) return results;
  const head = (s: string) => s.replace(/\s+/g, " ").trim().slice(0, 30);
  let next = 0;
  return cases.map((c) => {
    const k = results.findIndex((r, i) => i >= next && head(r.input) === head(c.text));
    if (k < 0) return undefined;
    next = k + 1;
    return results[k];
  });
}

export const pct = (part: number, whole: number) => (whole === 0 ? NaN : (100 * part) / whole);

/** "verified 120, mismatch 3" for one kind. */
export function statusLine(byStatus: Map<string, number> | undefined): string {
  return [...(byStatus ?? new Map<string, number>())]
    .sort((a, b) => b[1] - a[1])
    .map(([s, n]) => `${s} ${n}`)
    .join(", ");
}
