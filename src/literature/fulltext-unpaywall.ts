/**
 * The Unpaywall tier of the full-text chain (fulltext-chain.ts): Unpaywall is asked by DOI, so a
 * PMID the ID converter knows no DOI for (any paper outside PMC) gets its DOI from PubMed first,
 * one ESummary for all of them. The answer is the best open-access location as a link, never text,
 * and only when Unpaywall's record is for the DOI asked.
 */
import { AppError } from "../errors.js";
import { getEutils } from "../state.js";
import type { OaLink } from "./fulltext-output.js";
import { label, type Fail, type Target } from "./fulltext-target.js";
import { normalizeDoi } from "./identity.js";
import { unpaywallLookup } from "./reading.js";

/** DOIs from PubMed (ESummary db=pubmed) for the PMID targets that have none yet. */
export async function pubmedDois(
  targets: readonly Target[],
  signal: AbortSignal | undefined,
  fail: Fail,
): Promise<void> {
  const need = targets.filter((t) => t.asked.type === "pmid" && t.doi === undefined);
  if (need.length === 0) return;
  try {
    const { value: found } = await getEutils().esummary(
      need.map((t) => t.asked.value),
      { signal },
    );
    const dois = new Map(found.summaries.map((s) => [s.pmid, s.doi]));
    for (const t of need) t.doi = dois.get(t.asked.value) ?? undefined;
  } catch (err) {
    if (signal?.aborted || !(err instanceof AppError)) throw err;
    for (const t of need) fail(t, "unpaywall", err);
  }
}

export async function unpaywallTier(
  t: Target,
  signal: AbortSignal | undefined,
  fail: Fail,
): Promise<void> {
  if (t.tried.some((a) => a.source === "unpaywall")) return; // the converter failed it already
  if (t.doi === undefined) {
    t.tried.push({ source: "unpaywall", reason: `no DOI known for ${label(t.asked)}` });
    return;
  }
  try {
    const record = await unpaywallLookup(t.doi, signal);
    if ("skipped" in record) {
      t.tried.push({ source: "unpaywall", reason: record.skipped, skipped: true });
    } else if (normalizeDoi(record.doi) !== normalizeDoi(t.doi)) {
      t.tried.push({
        source: "unpaywall",
        reason: `identity check failed: Unpaywall returned DOI ${record.doi}, not ${t.doi}`,
      });
    } else if (record.bestOaLocation === undefined) {
      t.tried.push({ source: "unpaywall", reason: record.reason ?? "no open-access copy" });
    } else {
      const loc = record.bestOaLocation;
      const link: OaLink = { url: loc.url };
      if (loc.urlForPdf !== undefined) link.pdfUrl = loc.urlForPdf;
      if (loc.license !== undefined) link.license = loc.license;
      if (loc.version !== undefined) link.version = loc.version;
      if (loc.hostType !== undefined) link.hostType = loc.hostType;
      t.result = { id: t.asked.value, source: "unpaywall", link };
    }
  } catch (err) {
    fail(t, "unpaywall", err);
  }
}
