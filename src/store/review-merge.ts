/**
 * A review record as addCandidates (./review-add.ts) builds it in memory: read from its row or
 * made from a candidate, merged with the candidates that match it, and written back as columns.
 */
import type { Selectable } from "kysely";
import type { Notice } from "../ncbi/notices.js";
import { ID_KINDS, idKey, titleKey, type KeyedCandidate, type RecordIds } from "./review-keys.js";
import type { Candidate, ReviewAuthor, ReviewSource } from "./review-types.js";
import type { BulkColumn } from "./review-records.js";
import type { ReviewRecordsTable } from "./schema.js";

export type { Candidate };

/** A record as it is built or merged in memory. */
export interface Working extends RecordIds {
  id: string;
  seq: number;
  isNew: boolean;
  dirty: boolean;
  titleKey: string | null;
  title: string;
  abstract: string;
  journal: string | null;
  year: number | null;
  volume: string | null;
  issue: string | null;
  pages: string | null;
  authors: ReviewAuthor[];
  mesh: string[];
  pubTypes: string[];
  notices: Notice[];
  versionOf: string[];
  sources: ReviewSource[];
}

export function fromRow(r: Selectable<ReviewRecordsTable>): Working {
  return {
    id: r.id,
    seq: r.seq,
    isNew: false,
    dirty: false,
    pmid: r.pmid,
    doi: r.doi,
    pmcid: r.pmcid,
    pprid: r.pprid,
    titleKey: r.title_key,
    title: r.title,
    abstract: r.abstract,
    journal: r.journal,
    year: r.year,
    volume: r.volume,
    issue: r.issue,
    pages: r.pages,
    authors: r.authors,
    mesh: r.mesh,
    pubTypes: r.pub_types,
    notices: r.notices ?? [],
    versionOf: r.version_of ?? [],
    sources: r.sources,
  };
}

export function fromCandidate(id: string, seq: number, c: Candidate, k: KeyedCandidate): Working {
  return {
    id,
    seq,
    isNew: true,
    dirty: false,
    ...k.ids,
    titleKey: k.titleKey,
    title: c.title ?? "",
    abstract: c.abstract ?? "",
    journal: c.journal ?? null,
    year: c.year ?? null,
    volume: c.volume ?? null,
    issue: c.issue ?? null,
    pages: c.pages ?? null,
    authors: c.authors ?? [],
    mesh: c.mesh ?? [],
    pubTypes: c.pubTypes ?? [],
    notices: [],
    versionOf: [],
    sources: [],
  };
}

/** Adds to `list` the items it lacks; true when it grew. */
function union<T>(list: T[], more: readonly T[], key: (x: T) => string = String): boolean {
  const seen = new Set(list.map(key));
  let grew = false;
  for (const x of more) {
    if (seen.has(key(x))) continue;
    seen.add(key(x));
    list.push(x);
    grew = true;
  }
  return grew;
}

type Scalar = "title" | "abstract" | "journal" | "year" | "volume" | "issue" | "pages";
type List = "authors" | "mesh" | "pubTypes";

/**
 * Fills what `w` lacks from the candidate. An identifier another record holds is not copied:
 * two records never share a key.
 */
export function merge(
  w: Working,
  c: Candidate,
  k: KeyedCandidate,
  source: ReviewSource,
  owner: Map<string, string>,
): void {
  let dirty = false;
  for (const kind of ID_KINDS) {
    const v = k.ids[kind];
    if (!v || w[kind]) continue;
    const held = owner.get(idKey(kind, v));
    if (held !== undefined && held !== w.id) continue;
    w[kind] = v;
    dirty = true;
  }
  for (const f of [
    "title",
    "abstract",
    "journal",
    "year",
    "volume",
    "issue",
    "pages",
  ] as Scalar[]) {
    const v = c[f];
    if ((w[f] === null || w[f] === "") && v !== undefined && v !== "") {
      (w as unknown as Record<Scalar, unknown>)[f] = v;
      dirty = true;
    }
  }
  for (const f of ["authors", "mesh", "pubTypes"] as List[]) {
    const v = c[f];
    if (w[f].length === 0 && v && v.length > 0) {
      (w as unknown as Record<List, unknown>)[f] = [...v];
      dirty = true;
    }
  }
  if (union(w.notices, c.notices ?? [], (n) => JSON.stringify(n))) dirty = true;
  if (union(w.versionOf, c.versionOf ?? [])) dirty = true;
  if (union(w.sources, [source])) dirty = true;
  if (!w.titleKey) {
    w.titleKey = titleKey(w.title, w.year, w.authors);
    if (w.titleKey) dirty = true;
  }
  if (dirty && !w.isNew) w.dirty = true;
}

/**
 * The record a candidate merges into: the first of its keys, in priority order, that a record
 * holds. By title key only when the two do not carry different PMIDs (two PubMed records).
 */
export function findMatch(
  k: KeyedCandidate,
  owner: Map<string, string>,
  records: Map<string, Working>,
): Working | undefined {
  for (const key of [...k.keys, ...k.versionKeys]) {
    const id = owner.get(key);
    const w = id === undefined ? undefined : records.get(id);
    if (!w) continue;
    if (key.startsWith("title:") && w.pmid && k.ids.pmid && w.pmid !== k.ids.pmid) continue;
    return w;
  }
  return undefined;
}

const JSON_OR_NULL = (list: readonly unknown[]) => (list.length > 0 ? JSON.stringify(list) : null);

/** The written columns of review_records (id first; seq only on insert). */
export function recordColumns(ws: readonly Working[], withSeq: boolean): BulkColumn[] {
  const text = (name: string, f: (w: Working) => string | null): BulkColumn => ({
    name,
    type: "text",
    values: ws.map(f),
  });
  const json = (name: string, f: (w: Working) => string | null): BulkColumn => ({
    name,
    type: "jsonb",
    values: ws.map(f),
  });
  return [
    text("id", (w) => w.id),
    ...(withSeq ? [{ name: "seq", type: "integer", values: ws.map((w) => w.seq) } as const] : []),
    text("pmid", (w) => w.pmid),
    text("doi", (w) => w.doi),
    text("pmcid", (w) => w.pmcid),
    text("pprid", (w) => w.pprid),
    text("title_key", (w) => w.titleKey),
    text("title", (w) => w.title),
    text("abstract", (w) => w.abstract),
    text("journal", (w) => w.journal),
    { name: "year", type: "integer", values: ws.map((w) => w.year) },
    text("volume", (w) => w.volume),
    text("issue", (w) => w.issue),
    text("pages", (w) => w.pages),
    json("authors", (w) => JSON.stringify(w.authors)),
    json("mesh", (w) => JSON.stringify(w.mesh)),
    json("pub_types", (w) => JSON.stringify(w.pubTypes)),
    json("notices", (w) => JSON_OR_NULL(w.notices)),
    json("version_of", (w) => JSON_OR_NULL(w.versionOf)),
    json("sources", (w) => JSON.stringify(w.sources)),
  ];
}
