/**
 * Identifier-list parameters beside PMIDs (params.ts): PMCIDs and DOIs, as the reading tools and
 * pubmed_fetch / pubmed_cite take them. A single value is taken as a one-item list; PMCIDs may also
 * come as a number or a comma-separated string. DOIs are never split (";" and "," occur in real
 * DOIs, e.g. "10.1641/0006-3568(2005)055[0851:potapf]2.0.co;2").
 */
import { z } from "zod";
import { doiOf } from "../ncbi/idconv.js";
import { normalizePmcid } from "../ncbi/ids.js";
import { MAX_ID_CHARS, MAX_NUMBER_ID_CHARS, maxChars } from "./params.js";

function pmcidList(value: unknown): unknown {
  if (typeof value === "number") return [String(value)];
  if (typeof value === "string") return value.split(/[\s,;]+/).filter(Boolean);
  return Array.isArray(value) ? value.map((v) => (typeof v === "number" ? String(v) : v)) : value;
}

/** PMCIDs ("PMC3040717", "pmc3040717" or the digits), normalised to "PMC" + digits. */
export function pmcidListSchema(max: number) {
  return z.preprocess(
    pmcidList,
    z
      .array(
        z
          .string()
          .max(MAX_NUMBER_ID_CHARS, maxChars(MAX_NUMBER_ID_CHARS))
          .trim()
          .refine((v) => normalizePmcid(v) !== null, {
            error: 'must be a PMCID, "PMC" + digits, e.g. "PMC3040717"',
          })
          .transform((v) => normalizePmcid(v) ?? v),
      )
      .min(1, { error: "must list at least one PMCID" })
      .max(max, { error: `must list at most ${max} PMCIDs; split the list` }),
  );
}

/** DOIs (bare, "doi:…" or doi.org URLs), normalised to the bare DOI. */
export function doiListSchema(max: number) {
  return z.preprocess(
    (value) => (typeof value === "string" ? [value] : value),
    z
      .array(
        z
          .string()
          .max(MAX_ID_CHARS, maxChars(MAX_ID_CHARS))
          .trim()
          .refine((v) => doiOf(v) !== null, {
            error: 'must be a DOI, 10.<4–9 digits>/<suffix>, e.g. "10.1038/ng.590"',
          })
          .transform((v) => doiOf(v) ?? v),
      )
      .min(1, { error: "must list at least one DOI" })
      .max(max, { error: `must list at most ${max} DOIs; split the list` }),
  );
}
