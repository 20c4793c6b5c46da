/**
 * Unpaywall v2 DOI lookups (GET {UNPAYWALL_BASE_URL}/{doi}?email={UNPAYWALL_EMAIL}; the base
 * URL ends in /v2): the best open-access location of a DOI, as a link with its licence —
 * Unpaywall has no text. The reply's other locations, authors and journal fields are left out to
 * keep the answer short.
 */
import { z } from "zod";
import { NotFoundError, UpstreamError, ValidationError } from "../errors.js";
import { quoted } from "../excerpt.js";
import { doiOf } from "../ncbi/idconv.js";
import type { PoliteClient } from "../net/polite-client.js";
import { compact, isRecord, parseJsonReply, str } from "../net/reply.js";

const SERVICE = "Unpaywall";

export const oaLocationSchema = z.object({
  url: z.string(),
  urlForPdf: z.string().optional(),
  urlForLandingPage: z.string().optional(),
  /** As Unpaywall spells it: "cc-by", "cc-by-nc-nd", "implied-oa", … */
  license: z.string().optional(),
  /** "publishedVersion", "acceptedVersion" or "submittedVersion". */
  version: z.string().optional(),
  /** "publisher" or "repository". */
  hostType: z.string().optional(),
  repository: z.string().optional(),
});

export const unpaywallRecordSchema = z.object({
  doi: z.string(),
  title: z.string().optional(),
  year: z.int().optional(),
  isOa: z.boolean(),
  /** "gold", "hybrid", "bronze", "green" or "closed". */
  oaStatus: z.string().optional(),
  bestOaLocation: oaLocationSchema.optional(),
  /** Why there is no link, when there is none. */
  reason: z.string().optional(),
});
export type UnpaywallRecord = z.output<typeof unpaywallRecordSchema>;

/**
 * Reads a v2 DOI reply. `status` is the HTTP status: Unpaywall answers an unknown DOI with 404
 * and `{"HTTP_status_code": 404, "error": true, "message": "'…' isn't in Unpaywall…"}`, which
 * becomes NotFoundError; its other error bodies (422 for an unusable email, 5xx) UpstreamError.
 */
export function parseUnpaywall(body: string, status = 200): UnpaywallRecord {
  const reply = parseJsonReply(body, SERVICE, "DOI lookup");
  if (reply.error === true || status >= 400) {
    const message = str(reply.message)?.replace(/\s*See https?:\/\/\S+$/, "") ?? `HTTP ${status}`;
    const code = Number(reply.HTTP_status_code ?? status);
    if (code === 404) throw new NotFoundError(`${SERVICE}: ${message}`, { service: "unpaywall" });
    throw new UpstreamError(`${SERVICE} reported an error: ${message}`, {
      service: "unpaywall",
      status: code,
    });
  }
  const doi = str(reply.doi);
  if (doi === undefined || typeof reply.is_oa !== "boolean") {
    throw new UpstreamError(
      `${SERVICE} returned an unexpected DOI lookup reply (no doi or is_oa); retry the call.`,
      { service: "unpaywall" },
    );
  }
  const location = isRecord(reply.best_oa_location)
    ? toLocation(reply.best_oa_location)
    : undefined;
  const oaStatus = str(reply.oa_status);
  return compact({
    doi,
    title: str(reply.title),
    year: typeof reply.year === "number" && Number.isInteger(reply.year) ? reply.year : undefined,
    isOa: reply.is_oa && location !== undefined,
    oaStatus: oaStatus ?? (location === undefined ? "closed" : undefined),
    bestOaLocation: location,
    reason:
      location === undefined
        ? `no open-access copy known to Unpaywall (${oaStatus ?? "closed"} access)`
        : undefined,
  });
}

function toLocation(loc: Record<string, unknown>): z.output<typeof oaLocationSchema> | undefined {
  const urlForPdf = str(loc.url_for_pdf);
  const urlForLandingPage = str(loc.url_for_landing_page);
  const url = str(loc.url) ?? urlForPdf ?? urlForLandingPage;
  if (url === undefined) return undefined;
  return compact({
    url,
    // The PDF link is kept even when `url` repeats it: its presence says the link is a PDF.
    urlForPdf,
    urlForLandingPage: urlForLandingPage !== url ? urlForLandingPage : undefined,
    license: str(loc.license),
    version: str(loc.version),
    hostType: str(loc.host_type),
    repository: str(loc.repository_institution),
  });
}

export const UNPAYWALL_SKIPPED =
  "UNPAYWALL_EMAIL is not set: Unpaywall requires an email address on every request, so this tier was skipped.";

/**
 * Unpaywall's best open-access location for a DOI (GET /{doi}?email=…; the email never appears
 * in URLs returned or logged), through its polite client (src/net/clients.ts). `client` is
 * undefined without UNPAYWALL_EMAIL: then `{ skipped }`, nothing sent. NotFoundError for a DOI
 * Unpaywall does not know; ValidationError for what is not a DOI.
 */
export async function fetchUnpaywallRecord(
  client: PoliteClient | undefined,
  doi: string,
  signal?: AbortSignal,
): Promise<UnpaywallRecord | { skipped: string }> {
  const bare = doiOf(doi);
  if (bare === null) {
    throw new ValidationError(
      `${quoted(doi)} is not a DOI: a DOI must look like 10.<4–9 digits>/<suffix>, e.g. "10.1038/ng.590".`,
    );
  }
  if (client === undefined) return { skipped: UNPAYWALL_SKIPPED };
  const path = bare.split("/").map(encodeURIComponent).join("/");
  const reply = await client.request(
    path,
    {},
    {
      signal,
      accept: "json",
      label: "DOI lookup",
      okStatuses: [404, 422],
    },
  );
  // Error bodies may quote the request's email back; it never reaches a message.
  return parseUnpaywall(client.redact(reply.body), reply.status);
}
