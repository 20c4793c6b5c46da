/**
 * The full-text chain of `pubmed_fulltext`, per identifier, first success wins:
 *   1. PMC: EFetch db=pmc (one request for every id that has a PMCID; PMIDs and DOIs are turned
 *      into PMCIDs by the ID converter first, through NCBI's limiter like every NCBI call);
 *   2. Europe PMC fullTextXML by PMCID;
 *   3. Unpaywall (only with UNPAYWALL_EMAIL; needs a DOI: the request's, the converter's, or for a
 *      PMID outside PMC PubMed's, fulltext-unpaywall.ts): the best open-access location as a
 *      link — Unpaywall has no text.
 * A reply that is not full text (no body, withheld by the publisher) fails its tier, and so does
 * an article that does not carry the identifier asked for (identity.ts): a wrong paper is never a
 * result. A service failure (RATE_LIMIT, UPSTREAM, …) fails only its tier; every failed tier is
 * listed in the result's `tried` with its reason. When no identifier got anything the call fails:
 * NOT_FOUND, or the service's code when a service failure may be why (a retry could succeed).
 */
import {
  AppError,
  NotFoundError,
  RateLimitError,
  UpstreamError,
  type ErrorCode,
} from "../errors.js";
import type { JatsArticle, JatsDocument } from "../jats/types.js";
import { getUnpaywall } from "../state.js";
import { UNPAYWALL_SKIPPED } from "../unpaywall/unpaywall.js";
import { applyBudget, type BudgetOptions } from "./fulltext-budget.js";
import type { FulltextResult, FulltextSource } from "./fulltext-output.js";
import { label, type Fail, type Target } from "./fulltext-target.js";
import { pubmedDois, unpaywallTier } from "./fulltext-unpaywall.js";
import { carriesIdentifier, describeIdentity, findArticle, type RequestedId } from "./identity.js";
import { convertIds, europePmcFullTextXml, fetchPmcJats } from "./reading.js";

export const FULLTEXT_MAX_IDS = 10;

const NAMES: Record<FulltextSource, string> = {
  pmc: "PMC",
  europepmc: "Europe PMC",
  unpaywall: "Unpaywall",
};

/**
 * Full text for up to 10 identifiers of one type (already validated and normalised: PMID digits,
 * "PMC" + digits, bare DOIs). Throws when none of them got a result (see the module header).
 */
export async function readFullText(
  ids: readonly RequestedId[],
  budget: BudgetOptions,
  signal?: AbortSignal,
): Promise<FulltextResult[]> {
  const targets: Target[] = ids.map((asked) => ({
    asked,
    converted: false,
    tried: [],
    ...(asked.type === "pmcid" ? { pmcid: asked.value } : {}),
    ...(asked.type === "doi" ? { doi: asked.value } : {}),
  }));
  const open = () => targets.filter((t) => t.result === undefined);
  const fail: Fail = (t, source, err) => {
    // A cancelled or timed-out call, or a bug, ends the call; a service's failure ends the tier.
    if (signal?.aborted || !(err instanceof AppError)) throw err;
    t.tried.push({ source, reason: err.message, code: err.code });
  };
  const accept = (t: Target, source: FulltextSource, article: JatsArticle): void => {
    t.result = { id: t.asked.value, source, article: applyBudget(article, budget) };
  };

  await convert(
    targets.filter((t) => t.asked.type !== "pmcid"),
    signal,
    fail,
  );

  // Tier 1: PMC, one EFetch for all.
  const inPmc = open().filter((t) => t.pmcid !== undefined);
  for (const t of open().filter((x) => x.pmcid === undefined)) {
    t.tried.push({
      source: "pmc",
      reason: `not in PMC${t.unresolved ? ` (${t.unresolved})` : ""}`,
    });
  }
  if (inPmc.length > 0) {
    let doc: JatsDocument | undefined;
    try {
      doc = await fetchPmcJats(
        inPmc.map((t) => t.pmcid ?? ""),
        signal,
      );
    } catch (err) {
      for (const t of inPmc) fail(t, "pmc", err);
    }
    if (doc) for (const t of inPmc) settle(t, "pmc", doc, accept);
  }

  // Tier 2: Europe PMC, by PMCID.
  await Promise.all(
    open().map(async (t) => {
      if (t.pmcid === undefined) {
        t.tried.push({
          source: "europepmc",
          reason: "no PMCID: Europe PMC serves full text by PMCID",
        });
        return;
      }
      try {
        const reply = await europePmcFullTextXml(t.pmcid, signal);
        if ("unavailable" in reply)
          t.tried.push({ source: "europepmc", reason: reply.unavailable });
        else settle(t, "europepmc", reply, accept);
      } catch (err) {
        fail(t, "europepmc", err);
      }
    }),
  );

  // Tier 3: Unpaywall, a link by DOI.
  if (open().length > 0 && getUnpaywall() === undefined) {
    for (const t of open())
      t.tried.push({ source: "unpaywall", reason: UNPAYWALL_SKIPPED, skipped: true });
  } else {
    await convert(
      open().filter((t) => t.doi === undefined && !t.converted),
      signal,
      fail,
    );
    await pubmedDois(open(), signal, fail);
    await Promise.all(open().map((t) => unpaywallTier(t, signal, fail)));
  }

  for (const t of targets) {
    if (t.result && t.tried.length > 0) t.result.tried = t.tried;
  }
  if (open().length === targets.length) throw allFailed(targets);
  return targets.map((t) => t.result ?? failedResult(t));
}

/** PMIDs, DOIs (and PMCIDs, for their DOI) through the ID converter; a failure is recorded. */
async function convert(
  targets: readonly Target[],
  signal: AbortSignal | undefined,
  fail: Fail,
): Promise<void> {
  if (targets.length === 0) return;
  for (const t of targets) t.converted = true;
  try {
    const records = await convertIds(
      targets.map((t) => t.asked.value),
      { signal, hint: targets[0]?.asked.type === "pmcid" ? "pmcid" : undefined },
    );
    const byInput = new Map(records.map((r) => [r.input.toLowerCase(), r]));
    for (const t of targets) {
      const r = byInput.get(t.asked.value.toLowerCase());
      if (r?.status === "error" || r === undefined) {
        t.unresolved = `the ID converter: ${r?.errmsg ?? "no record"}`;
        continue;
      }
      t.pmcid ??= r.pmcid;
      t.doi ??= r.doi;
      if (r.pmcid === undefined) t.unresolved = "the ID converter knows no PMCID";
    }
  } catch (err) {
    if (signal?.aborted || !(err instanceof AppError)) throw err;
    for (const t of targets) {
      t.unresolved = `the ID converter failed: ${err.message}`;
      if (t.asked.type !== "pmcid") continue;
      fail(t, "unpaywall", err);
    }
  }
}

/** Judges a JATS reply for one target: the article with its PMCID, identity-checked, full text. */
function settle(
  t: Target,
  source: FulltextSource,
  doc: JatsDocument,
  accept: (t: Target, source: FulltextSource, article: JatsArticle) => void,
): void {
  const name = NAMES[source];
  const byPmcid = t.pmcid
    ? findArticle(doc.articles, { type: "pmcid", value: t.pmcid })
    : undefined;
  const article = byPmcid ?? findArticle(doc.articles, t.asked);
  if (article === undefined) {
    const other = doc.articles[0];
    const error = doc.errors.find((e) => e.id === undefined || t.pmcid?.endsWith(e.id));
    const reason = other
      ? `identity check failed: ${name} returned ${describeIdentity(other)}, not ${label(t.asked)}`
      : (error?.message ?? "no article in the reply");
    t.tried.push({ source, reason });
    return;
  }
  // The article must carry the identifier asked for; one that carries no identifier of that kind
  // at all is accepted on the PMCID the converter gave for it.
  const lacks = article[t.asked.type] === undefined;
  if (!carriesIdentifier(article, t.asked) && !(lacks && byPmcid !== undefined)) {
    t.tried.push({
      source,
      reason: `identity check failed: ${name} returned ${describeIdentity(article)}, not ${label(t.asked)}`,
    });
    return;
  }
  if (article.notFullText) {
    t.tried.push({ source, reason: `not full text: ${article.notFullText.message}` });
    return;
  }
  accept(t, source, article);
}

/** A failed tier's code decides: a service failure may be why, so retrying could help. */
function codeOf(t: Target): ErrorCode {
  const codes = t.tried.map((a) => a.code);
  if (codes.includes("RATE_LIMIT")) return "RATE_LIMIT";
  if (codes.includes("UPSTREAM")) return "UPSTREAM";
  return "NOT_FOUND";
}

function summary(t: Target): string {
  return t.tried.map((a) => `${NAMES[a.source]}: ${a.reason}`).join("; ");
}

function failedResult(t: Target): FulltextResult {
  return {
    id: t.asked.value,
    tried: t.tried,
    error: { code: codeOf(t), message: `No full text or open-access link found (${summary(t)}).` },
  };
}

function allFailed(targets: readonly Target[]): AppError {
  const details = { results: targets.map((t) => ({ id: t.asked.value, tried: t.tried })) };
  const codes = targets.map(codeOf);
  const each = targets.map((t) => `${label(t.asked)} — ${summary(t)}`).join(" | ");
  if (codes.includes("RATE_LIMIT")) {
    return new RateLimitError(
      `No full text found; a service asked to slow down, so retry in a minute. ${each}`,
      details,
    );
  }
  if (codes.includes("UPSTREAM")) {
    return new UpstreamError(
      `No full text found; a service failed, so a retry may help. ${each}`,
      details,
    );
  }
  return new NotFoundError(
    `No full text or open-access link found for ${targets.length === 1 ? "the identifier" : `any of the ${targets.length} identifiers`}. ${each}`,
    details,
  );
}
