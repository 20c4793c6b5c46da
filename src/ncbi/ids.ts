/**
 * Identifier forms, for comparing identifiers as written with those a service returns: a PMCID
 * in any of its spellings, a DOI as cited. Pure functions, no dependencies: the JATS reader in the
 * live thread uses them too (src/jats). Reading a caller's identifiers for the PMC ID Converter
 * is ./idconv.ts's.
 */

/**
 * A DOI as cited ("https://doi.org/10.1000/ABC.", "doi: 10.1000/abc") → "10.1000/abc": the
 * prefixes and trailing punctuation stripped, lower-cased (DOIs are case-insensitive). How
 * references' DOIs are compared (src/trust) and Crossref's notices are kept (src/crossref).
 */
export function normalizeDoi(doi: string): string {
  return doi
    .trim()
    .replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i, "")
    .replace(/[.,;:)\]}>]+$/, "")
    .toLowerCase();
}

/** "PMC3040717", "pmc3040717", "3040717" and "PMC3040717.1" → "PMC3040717"; null if not a PMCID. */
export function normalizePmcid(value: string): string | null {
  const match = /^(?:pmc)?\s*(\d+)(?:\.\d+)?$/i.exec(value.trim());
  return match ? `PMC${match[1]}` : null;
}
