/**
 * PubTator3 BioC JSON exports (GET {PUBTATOR_BASE_URL}/publications/export/biocjson?pmids=…[&full=true])
 * read into one short answer per article: annotations grouped per entity (type + normalised
 * identifier), each with its distinct mention texts, its mention count and its offsets, capped.
 *
 * Offsets are BioC document offsets, as PubTator gives them: a passage's `offset` plus the
 * position inside its text. For a PubMed record that is the position in title + " " + abstract;
 * with full text, the passages follow each other in the same coordinates. They are passed on
 * unchanged (PubTator counts characters; outside the Basic Multilingual Plane that differs from
 * JavaScript string indices).
 */
import { z } from "zod";
import { UpstreamError, ValidationError } from "../errors.js";
import type { PoliteClient } from "../net/polite-client.js";
import { compact, count, isRecord, list, str, type Json } from "../net/reply.js";

const SERVICE = "PubTator";

export const ENTITY_TYPES = [
  "Gene",
  "Disease",
  "Chemical",
  "Species",
  "Variant",
  "CellLine",
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export const DEFAULT_LIMITS = { maxMentions: 5, maxOffsets: 10, maxEntities: 100 } as const;

export const entitySchema = z.object({
  type: z.enum(ENTITY_TYPES),
  /** CURIE-style: "NCBIGene:673", "MESH:D008545", "NCBITaxon:9606", "rs113488022", "CVCL_0030". */
  id: z.string().optional(),
  /** PubTator's normalised name ("BRAF", "Melanoma", "p.V600E"). */
  name: z.string().optional(),
  /** Variants: the gene they lie in. */
  gene: z.string().optional(),
  /** Distinct mention texts, most frequent first. */
  mentions: z.array(z.string()),
  /** All mentions, including those beyond the listed texts and offsets. */
  count: z.int(),
  /** [offset, length] of the first mentions, in BioC document coordinates. */
  offsets: z.array(z.tuple([z.int(), z.int()])),
});
export type Entity = z.output<typeof entitySchema>;

export const annotatedArticleSchema = z.object({
  pmid: z.string(),
  pmcid: z.string().optional(),
  title: z.string().optional(),
  /** Passages beyond title and abstract were read. */
  fullText: z.literal(true).optional(),
  /** Distinct entities per type, before the maxEntities cap. */
  counts: z.record(z.string(), z.int()),
  entities: z.array(entitySchema),
  omittedEntities: z.int().optional(),
});
export type AnnotatedArticle = z.output<typeof annotatedArticleSchema>;

export interface PubtatorOptions {
  /** Read passages beyond title and abstract (PubTator has them for PMC open-access articles). */
  fullText?: boolean;
  types?: readonly EntityType[];
  maxMentions?: number;
  maxOffsets?: number;
  maxEntities?: number;
}

/** PubTator's export takes at most this many PMIDs per request. */
export const PUBTATOR_MAX_PMIDS = 100;

/**
 * PubTator3's BioC JSON export for up to 100 PMIDs through its polite client (src/net/clients.ts),
 * annotations grouped per entity. `fullText` asks for the PMC passages where PubTator has them.
 * An empty export means nothing was found.
 */
export async function fetchPubtatorExport(
  client: PoliteClient,
  pmids: readonly string[],
  fullText: boolean,
  opts: Omit<PubtatorOptions, "fullText"> & { signal?: AbortSignal } = {},
): Promise<{ articles: AnnotatedArticle[]; notFound: string[] }> {
  const bad = pmids.findIndex((p) => !/^\d{1,9}$/.test(p));
  if (bad !== -1) {
    throw new ValidationError(`pmids[${bad}] must be digits, e.g. "22663011".`);
  }
  if (pmids.length === 0 || pmids.length > PUBTATOR_MAX_PMIDS) {
    throw new ValidationError(`pmids must list 1–${PUBTATOR_MAX_PMIDS} PMIDs.`);
  }
  const { signal, ...limits } = opts;
  const reply = await client.request(
    "publications/export/biocjson",
    { pmids: pmids.join(","), full: fullText ? "true" : undefined },
    { signal, accept: "json", label: "export", emptyOk: true },
  );
  return parsePubtatorExport(reply.body, { ...limits, fullText }, pmids);
}

/** Reads an export; `requested` PMIDs that PubTator did not return are listed in notFound. */
export function parsePubtatorExport(
  body: string,
  options: PubtatorOptions = {},
  requested: readonly string[] = [],
): { articles: AnnotatedArticle[]; notFound: string[] } {
  const articles = documentsOf(body)
    .map((doc) => toArticle(doc, options))
    .filter((a): a is AnnotatedArticle => a !== null);
  const seen = new Set(articles.map((a) => a.pmid));
  return { articles, notFound: requested.filter((pmid) => !seen.has(pmid)) };
}

/** The documents of the reply shapes PubTator has served: {PubTator3: [...]}, a BioC collection, JSON lines. */
function documentsOf(body: string): Json[] {
  const trimmed = body.replace(/^\uFEFF/, "").trim();
  if (trimmed === "") return [];
  let values: unknown[];
  try {
    values = [JSON.parse(trimmed)];
  } catch {
    try {
      values = trimmed
        .split(/\r?\n/)
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as unknown);
    } catch (err) {
      throw new UpstreamError(
        `${SERVICE} returned a malformed BioC JSON export (not JSON); retry the call.`,
        { service: "pubtator" },
        { cause: err },
      );
    }
  }
  const docs = values.flatMap((v) => {
    if (Array.isArray(v)) return v;
    if (isRecord(v) && Array.isArray(v.PubTator3)) return v.PubTator3;
    if (isRecord(v) && Array.isArray(v.documents)) return v.documents;
    return [v];
  });
  if (!docs.every((d) => isRecord(d) && Array.isArray(d.passages))) {
    throw new UpstreamError(
      `${SERVICE} returned an unexpected export (documents without passages); retry the call.`,
      { service: "pubtator" },
    );
  }
  return docs as Json[];
}

interface Group {
  entity: Omit<Entity, "mentions" | "offsets" | "count">;
  texts: Map<string, number>;
  offsets: [number, number][];
  count: number;
}

function toArticle(doc: Json, options: PubtatorOptions): AnnotatedArticle | null {
  const pmid = str(doc.pmid) ?? str(doc.id)?.replace(/\|.*$/, "");
  if (pmid === undefined) return null;
  const wanted = new Set<string>(options.types ?? ENTITY_TYPES);
  const passages = list(doc.passages).filter(isRecord);
  const included = passages.filter((p) => options.fullText === true || isTitleOrAbstract(p));
  const groups = new Map<string, Group>();
  for (const passage of included) {
    for (const annotation of list(passage.annotations).filter(isRecord)) {
      const infons = isRecord(annotation.infons) ? annotation.infons : {};
      const type = entityType(str(infons.type));
      if (type === null || !wanted.has(type)) continue;
      const text = str(annotation.text) ?? "";
      const identity = identify(type, infons);
      const key = `${type}|${identity.id ?? `text:${text.toLowerCase()}`}`;
      const group: Group = groups.get(key) ?? {
        entity: { type, ...identity },
        texts: new Map(),
        offsets: [],
        count: 0,
      };
      groups.set(key, group);
      group.count += 1;
      if (text !== "") group.texts.set(text, (group.texts.get(text) ?? 0) + 1);
      for (const loc of list(annotation.locations).filter(isRecord)) {
        const offset = count(loc.offset);
        const length = count(loc.length);
        if (offset !== undefined && length !== undefined) group.offsets.push([offset, length]);
      }
    }
  }
  const limits = { ...DEFAULT_LIMITS, ...definedOnly(options) };
  const all = [...groups.values()].sort((a, b) => b.count - a.count);
  const kept = all.slice(0, limits.maxEntities);
  const counts: Record<string, number> = {};
  for (const g of all) counts[g.entity.type] = (counts[g.entity.type] ?? 0) + 1;
  const order = (t: EntityType): number => ENTITY_TYPES.indexOf(t);
  const entities = kept
    .sort((a, b) => order(a.entity.type) - order(b.entity.type) || b.count - a.count)
    .map((g) => ({
      ...compact(g.entity),
      mentions: [...g.texts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, limits.maxMentions)
        .map(([t]) => t),
      count: g.count,
      offsets: g.offsets.sort((a, b) => a[0] - b[0]).slice(0, limits.maxOffsets),
    }));
  const titlePassage = passages.find((p) => passageKind(p) === "title");
  const pmcid =
    str(doc.pmcid) ??
    (titlePassage && isRecord(titlePassage.infons)
      ? str(titlePassage.infons["article-id_pmc"])
      : undefined);
  // `entities` stays when empty (compact drops empty lists): "none found" is that article's answer.
  return {
    ...compact({
      pmid,
      pmcid: pmcid === undefined ? undefined : pmcid.startsWith("PMC") ? pmcid : `PMC${pmcid}`,
      title: titlePassage ? str(titlePassage.text) : undefined,
      fullText: included.some((p) => !isTitleOrAbstract(p)) ? (true as const) : undefined,
      counts,
    }),
    entities,
    ...compact({
      omittedEntities: all.length > kept.length ? all.length - kept.length : undefined,
    }),
  };
}

function definedOnly(options: PubtatorOptions): Partial<typeof DEFAULT_LIMITS> {
  const { maxMentions, maxOffsets, maxEntities } = options;
  return compact({ maxMentions, maxOffsets, maxEntities }) as Partial<typeof DEFAULT_LIMITS>;
}

/** "title", "abstract" or "other": PMC full text marks sections in section_type (TITLE, ABSTRACT, INTRO…). */
function passageKind(passage: Json): "title" | "abstract" | "other" {
  const infons = isRecord(passage.infons) ? passage.infons : {};
  const section = str(infons.section_type)?.toUpperCase();
  const type = str(infons.type)?.toLowerCase();
  if (section === "TITLE" || (section === undefined && type === "title")) return "title";
  if (section === "ABSTRACT" || (section === undefined && type === "abstract")) return "abstract";
  return "other";
}

function isTitleOrAbstract(passage: Json): boolean {
  return passageKind(passage) !== "other";
}

function entityType(type: string | undefined): EntityType | null {
  switch (type?.toLowerCase()) {
    case "gene":
      return "Gene";
    case "disease":
      return "Disease";
    case "chemical":
      return "Chemical";
    case "species":
      return "Species";
    case "cellline":
      return "CellLine";
    case "variant":
    case "mutation":
    case "dnamutation":
    case "proteinmutation":
    case "snp":
      return "Variant";
    default:
      return null;
  }
}

const PREFIX_BY_DATABASE: Record<string, string> = {
  ncbi_gene: "NCBIGene",
  ncbi_taxonomy: "NCBITaxon",
  ncbi_mesh: "MESH",
};
const PREFIX_BY_TYPE: Partial<Record<EntityType, string>> = {
  Gene: "NCBIGene",
  Species: "NCBITaxon",
  Disease: "MESH",
  Chemical: "MESH",
};

/** The entity's normalised identifier and name; none for unnormalised mentions ("-"). */
function identify(type: EntityType, infons: Json): Pick<Entity, "id" | "name" | "gene"> {
  const name = str(infons.name);
  const readableName = name !== undefined && !/^\d+$/.test(name) ? name : undefined;
  if (type === "Variant") {
    const rsid = str(infons.rsid) ?? str(list(infons.rsids)[0]);
    const hgvs = str(infons.hgvs);
    const gene = str(infons.gene_id) ?? str(list(infons.gene_ids)[0]);
    const fallback = str(infons.normalized_id)?.replace(/#+/g, " ").trim();
    return {
      id: rsid ?? (hgvs ? `HGVS:${hgvs}` : fallback || undefined),
      name: readableName,
      gene: gene === undefined ? undefined : `NCBIGene:${gene}`,
    };
  }
  const raw =
    str(infons.identifier) ?? str(infons.normalized_id) ?? str(list(infons.normalized)[0]);
  if (raw === undefined || raw === "-" || raw.toLowerCase() === "none")
    return { name: readableName };
  const prefix = PREFIX_BY_DATABASE[str(infons.database) ?? ""] ?? PREFIX_BY_TYPE[type];
  const id = raw
    .split(/[;,]/)
    .map((part) => part.trim())
    .filter((part) => part !== "" && part !== "-")
    .map((part) =>
      part.includes(":") || part.startsWith("CVCL_") || prefix === undefined
        ? part
        : `${prefix}:${part}`,
    )
    .join(";");
  return { id: id === "" ? undefined : id, name: readableName };
}
