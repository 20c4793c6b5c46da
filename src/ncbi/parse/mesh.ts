/**
 * MeSH through E-utilities db=mesh: ESearch (db=mesh, term from meshSearchTerm; the reply is read
 * by src/ncbi/parse/esearch.ts like any ESearch) finds the UIDs, ESummary (db=mesh) describes
 * them. ESummary is read in all three shapes NCBI serves for db=mesh — version=2.0 XML
 * (DocumentSummary with DS_* elements, eSummary_mesh.dtd), the legacy XML DocSum
 * (Item Name="DS_MeshTerms" …) and retmode=json (result.uids, ds_* members) — through one mapping.
 * EFetch db=mesh is not used: it only returns a plain-text report whatever retmode says.
 */
import { z } from "zod";
import {
  attr,
  childText,
  children,
  entrezError,
  errorTexts,
  isElement,
  parseEutilsXml,
  text,
} from "./common.js";
import { MESH_QUALIFIER_ABBREVIATIONS } from "./mesh-qualifiers.js";
import { compact, isRecord, list, parseJsonReply, str } from "../../net/reply.js";

const UTILITY = "ESummary";
export const DEFAULT_MAX_ENTRY_TERMS = 20;
const MESH_UI = /^[DCQ]\d{6,9}$/i;
const TREE_NUMBER = /^[A-Z]\d{2}(?:\.\d{3})*$/;

/** ESearch db=mesh term for a caller's query: a MeSH UI searches the Unique ID field. */
export function meshSearchTerm(query: string): string {
  const trimmed = query.trim();
  return MESH_UI.test(trimmed) ? `${trimmed.toUpperCase()}[mhui]` : trimmed;
}

export const meshRecordSchema = z.object({
  /** D… descriptor, Q… qualifier, C… supplementary concept. */
  ui: z.string().optional(),
  recordType: z.enum(["descriptor", "qualifier", "supplementary"]),
  name: z.string(),
  scopeNote: z.string().optional(),
  treeNumbers: z.array(z.string()).optional(),
  entryTerms: z.array(z.string()).optional(),
  entryTermsOmitted: z.int().optional(),
  allowableQualifiers: z
    .array(z.object({ name: z.string(), abbreviation: z.string().optional() }))
    .optional(),
  /** Supplementary concepts: the descriptor(s) PubMed indexes them under. */
  headingMappedTo: z.string().optional(),
  /** Ready to paste into a PubMed query: "Asthma"[Mesh]. */
  searchTag: z.string(),
});
export type MeshRecord = z.output<typeof meshRecordSchema>;

export interface MeshSummary {
  records: MeshRecord[];
  /** UIDs NCBI answered with an error instead of a record. */
  errors: { uid: string; message: string }[];
}

export function parseMeshSummary(
  body: string,
  options: { maxEntryTerms?: number } = {},
): MeshSummary {
  const max = options.maxEntryTerms ?? DEFAULT_MAX_ENTRY_TERMS;
  const raw = /^\s*\{/.test(body) && /"result"\s*:/.test(body) ? fromJson(body) : fromXml(body);
  const records: MeshRecord[] = [];
  for (const { uid, fields } of raw.docs) {
    const record = toRecord(uid, fields, max);
    if (record !== null) records.push(record);
  }
  return { records, errors: raw.errors };
}

type Fields = Record<string, unknown>;
interface RawSummary {
  docs: { uid: string; fields: Fields }[];
  errors: { uid: string; message: string }[];
}

function fromJson(body: string): RawSummary {
  const reply = parseJsonReply(body, "NCBI ESummary", "db=mesh");
  const result = isRecord(reply.result) ? reply.result : {};
  const docs: RawSummary["docs"] = [];
  const errors: RawSummary["errors"] = [];
  for (const uid of list(result.uids).map(str)) {
    if (uid === undefined) continue;
    const fields = result[uid];
    if (!isRecord(fields)) continue;
    const error = str(fields.error);
    if (error !== undefined) errors.push({ uid, message: error });
    else docs.push({ uid, fields });
  }
  return { docs, errors };
}

function fromXml(body: string): RawSummary {
  const root = parseEutilsXml(body, UTILITY, "eSummaryResult");
  const sets = children(root, "DocumentSummarySet");
  const docSums = children(root, "DocSum");
  const topErrors = [...errorTexts(root), ...sets.flatMap(errorTexts)];
  const hasDocs = docSums.length > 0 || sets.some((s) => children(s, "DocumentSummary").length > 0);
  if (topErrors.length > 0 && !hasDocs) throw entrezError(UTILITY, topErrors);
  const docs: RawSummary["docs"] = [];
  const errors: RawSummary["errors"] = topErrors.map((message) => ({ uid: "", message }));
  for (const doc of sets.flatMap((s) => children(s, "DocumentSummary"))) {
    const uid = attr(doc, "uid") ?? "";
    const error = childText(doc, "error");
    if (error !== null) errors.push({ uid, message: error });
    else docs.push({ uid, fields: v2Fields(doc) });
  }
  for (const doc of docSums) {
    docs.push({ uid: childText(doc, "Id") ?? "", fields: v1Fields(children(doc, "Item")) });
  }
  return { docs, errors };
}

/** version 2.0: <DS_MeshTerms><string>…</string></DS_MeshTerms>, <DS_IdxLinks><LinksType>… */
function v2Fields(doc: unknown): Fields {
  const fields: Fields = {};
  if (!isElement(doc)) return fields;
  for (const [name, values] of Object.entries(doc)) {
    if (!name.startsWith("DS_") || !Array.isArray(values)) continue;
    const value: unknown = values[0];
    const links = children(value, "LinksType");
    const items = [...children(value, "string"), ...children(value, "int")];
    fields[name.toLowerCase()] =
      links.length > 0
        ? links.map((l) => ({ treenum: childText(l, "TreeNum"), parent: childText(l, "Parent") }))
        : items.length > 0
          ? items.map(text)
          : isElement(value) && Object.keys(value).some((k) => k !== "_" && k !== "$")
            ? []
            : text(value);
  }
  return fields;
}

/** Legacy DocSum: <Item Name="DS_MeshTerms" Type="List"><Item Name="string">…</Item></Item>. */
function v1Fields(items: unknown[]): Fields {
  const fields: Fields = {};
  for (const item of items) {
    const name = attr(item, "Name");
    if (name === null) continue;
    const type = attr(item, "Type");
    const sub = children(item, "Item");
    fields[name.toLowerCase()] =
      type === "List"
        ? sub.map((s) =>
            attr(s, "Type") === "Structure" ? v1Fields(children(s, "Item")) : text(s),
          )
        : text(item);
  }
  return fields;
}

function toRecord(uid: string, f: Fields, maxEntryTerms: number): MeshRecord | null {
  const terms = list(f.ds_meshterms)
    .map(str)
    .filter((t): t is string => t !== undefined);
  const [name, ...entryTerms] = terms;
  if (name === undefined) return null;
  const ui = str(f.ds_meshui) ?? (/^68\d{6}$/.test(uid) ? `D${uid.slice(2)}` : undefined);
  const recordType = typeOf(str(f.ds_recordtype), ui, uid);
  const treeNumbers = list(f.ds_idxlinks)
    .map((l) => (isRecord(l) ? str(l.treenum) : undefined))
    .filter((t): t is string => t !== undefined && TREE_NUMBER.test(t));
  const qualifiers = list(f.ds_subheading)
    .map(str)
    .filter((q): q is string => q !== undefined)
    .map((q) => compact({ name: q, abbreviation: MESH_QUALIFIER_ABBREVIATIONS[q.toLowerCase()] }));
  const tag = {
    descriptor: "Mesh",
    qualifier: "Subheading",
    supplementary: "Supplementary Concept",
  };
  return compact({
    ui,
    recordType,
    name,
    scopeNote: str(f.ds_scopenote),
    treeNumbers: [...new Set(treeNumbers)],
    entryTerms: entryTerms.slice(0, maxEntryTerms),
    entryTermsOmitted:
      entryTerms.length > maxEntryTerms ? entryTerms.length - maxEntryTerms : undefined,
    allowableQualifiers: qualifiers,
    headingMappedTo: str(f.ds_headingmappedto)?.replace(/^\*/, ""),
    searchTag: `"${name.replace(/"/g, "")}"[${tag[recordType]}]`,
  });
}

/** From DS_RecordType, else the UI's letter, else the UID's range (68… descriptors, 67… supplementary). */
function typeOf(
  recordType: string | undefined,
  ui: string | undefined,
  uid: string,
): MeshRecord["recordType"] {
  const declared = recordType?.toLowerCase();
  if (declared === "qualifier" || ui?.startsWith("Q")) return "qualifier";
  if (declared?.startsWith("supplement") || ui?.startsWith("C")) return "supplementary";
  if (declared === undefined && ui === undefined && uid.startsWith("67")) return "supplementary";
  return "descriptor";
}
