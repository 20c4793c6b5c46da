/**
 * Deduplication keys of review records (docs/reviews.md, "Adding records"): identifiers in one
 * spelling, and the title key that catches the same paper found without a shared identifier.
 * Pure functions; the store (src/store/review-add.ts) matches candidates by these keys.
 */
import type { CandidateRecord, ReviewAuthor } from "./review-types.js";

/** The identifier kinds a record is matched by, in the order they are tried. */
export const ID_KINDS = ["pmid", "doi", "pmcid", "pprid"] as const;
export type IdKind = (typeof ID_KINDS)[number];

/** The prefix of each kind in record ids and match keys: "pmid:1", "doi:10.1/x", "ppr:PPR1". */
const PREFIX: Record<IdKind, string> = { pmid: "pmid", doi: "doi", pmcid: "pmcid", pprid: "ppr" };

/** "00123" → "123"; null for anything but digits. */
export function normalisePmid(value: string | null | undefined): string | null {
  const m = /^\s*0*(\d+)\s*$/.exec(value ?? "");
  return m?.[1] && m[1] !== "" ? m[1] : null;
}

/** "https://doi.org/10.1/ABC", "doi:10.1/ABC" → "10.1/abc" (DOIs are case-insensitive); null if not a DOI. */
export function normaliseDoi(value: string | null | undefined): string | null {
  let v = (value ?? "").trim();
  const url = /^(?:https?:\/\/)?(?:dx\.)?doi\.org\/(.+)$/i.exec(v);
  if (url?.[1]) {
    try {
      v = decodeURIComponent(url[1]);
    } catch {
      v = url[1];
    }
  }
  v = v.replace(/^doi:\s*/i, "").toLowerCase();
  return /^10\.\S+\/\S+$/.test(v) ? v : null;
}

/** "pmc123", "PMC123.1", "123" → "PMC123"; null if not a PMCID. */
export function normalisePmcid(value: string | null | undefined): string | null {
  const m = /^\s*(?:pmc)?\s*(\d+)(?:\.\d+)?\s*$/i.exec(value ?? "");
  return m?.[1] ? `PMC${m[1]}` : null;
}

/** Europe PMC preprint ids: "ppr123" → "PPR123"; null otherwise. */
export function normalisePprid(value: string | null | undefined): string | null {
  const m = /^\s*ppr(\d+)\s*$/i.exec(value ?? "");
  return m?.[1] ? `PPR${m[1]}` : null;
}

const NORMALISE: Record<IdKind, (v: string | null | undefined) => string | null> = {
  pmid: normalisePmid,
  doi: normaliseDoi,
  pmcid: normalisePmcid,
  pprid: normalisePprid,
};

/** Letters NFKD leaves whole, spelt as their usual ASCII transliteration. */
const FOLD: Readonly<Record<string, string>> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  ł: "l",
  đ: "d",
  ð: "d",
  þ: "th",
  ı: "i",
};

/**
 * Text for comparison: HTML tags and entities dropped, lower case, diacritics stripped,
 * punctuation a space, whitespace collapsed (so a trailing period goes too). "The <i>BRCA1</i>
 * Gene: a Review." and "the brca1 gene  a review" are equal.
 */
export function normaliseText(text: string): string {
  return text
    .replace(/<[^>]{0,200}>/g, "")
    .replace(/&(?:[a-z]+|#\d+|#x[0-9a-f]+);/gi, " ")
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/[ßæœøłđðþı]/g, (c) => FOLD[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * The title key: normalised title, year and first author's family name, or null when one of the
 * three is missing — untitled, undated or anonymous records are never merged by title.
 */
export function titleKey(
  title: string,
  year: number | null | undefined,
  authors: readonly ReviewAuthor[],
): string | null {
  const t = normaliseText(title);
  const family = normaliseText(authors[0]?.family ?? "");
  if (!t || !family || !year) return null;
  return `${t}|${year}|${family}`;
}

export interface RecordIds {
  pmid: string | null;
  doi: string | null;
  pmcid: string | null;
  pprid: string | null;
}

/** A candidate's identifiers, normalised (an unreadable one is dropped). */
export function recordIds(c: Partial<Record<IdKind, string | null>>): RecordIds {
  return {
    pmid: normalisePmid(c.pmid),
    doi: normaliseDoi(c.doi),
    pmcid: normalisePmcid(c.pmcid),
    pprid: normalisePprid(c.pprid),
  };
}

/** The match key of one identifier: "pmid:1", "doi:10.1/x", "pmcid:PMC1", "ppr:PPR1". */
export function idKey(kind: IdKind, value: string): string {
  return `${PREFIX[kind]}:${value}`;
}

/**
 * A record's id: "pmid:<digits>" when it has a PMID, else "doi:<doi>", else "ppr:<id>", else
 * "pmcid:<PMCID>"; null without any identifier.
 */
export function recordId(ids: RecordIds): string | null {
  for (const kind of ["pmid", "doi", "pprid", "pmcid"] as const) {
    const v = ids[kind];
    if (v) return idKey(kind, v);
  }
  return null;
}

/**
 * A "pmid:…", "doi:…", "pmcid:…"/"pmc:…" or "ppr:…" reference (a candidate's versionOf) as its
 * match key; a bare PMCID, PPR id or DOI is read too. Null when unreadable.
 */
export function referenceKey(ref: string): string | null {
  const m = /^\s*(pmid|doi|pmcid|pmc|ppr|pprid)\s*:\s*(.+)$/i.exec(ref);
  const prefix = m?.[1]?.toLowerCase();
  const kind: IdKind | undefined = !m
    ? undefined
    : prefix === "pmid"
      ? "pmid"
      : prefix === "doi"
        ? "doi"
        : prefix === "ppr" || prefix === "pprid"
          ? "pprid"
          : "pmcid";
  if (kind && m?.[2]) {
    // "pmc:123" and "pmcid:PMC123" alike.
    const v = NORMALISE[kind](m[2]);
    return v ? idKey(kind, v) : null;
  }
  for (const k of ["pprid", "pmcid", "doi"] as const) {
    const v = NORMALISE[k](ref);
    if (v) return idKey(k, v);
  }
  return null;
}

/** The keys a candidate is matched by, in priority order: its identifiers, then its title key. */
export function ownKeys(ids: RecordIds, title: string | null): string[] {
  const keys = ID_KINDS.flatMap((k) => (ids[k] ? [idKey(k, ids[k])] : []));
  if (title) keys.push(`title:${title}`);
  return keys;
}

/** A candidate with its identifiers normalised and its keys computed. */
export interface KeyedCandidate {
  ids: RecordIds;
  titleKey: string | null;
  /** Own identifiers and title key, in match priority order. */
  keys: string[];
  /** The keys of its other versions (versionOf), tried last. */
  versionKeys: string[];
}

export function keyCandidate(c: CandidateRecord): KeyedCandidate {
  const ids = recordIds(c);
  const tk = titleKey(c.title, c.year, c.authors);
  const keys = ownKeys(ids, tk);
  const versionKeys = (c.versionOf ?? [])
    .map(referenceKey)
    .filter((k): k is string => k !== null && !keys.includes(k));
  return { ids, titleKey: tk, keys, versionKeys: [...new Set(versionKeys)] };
}
