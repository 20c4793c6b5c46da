/**
 * The synthetic NCBI's MeSH database (db=mesh): every descriptor the synthetic corpus indexes
 * with, its qualifiers as used there, and replies shaped after NCBI's documentation and
 * esummary_mesh.dtd (no recorded db=mesh reply is public): ESearch finds descriptors by name,
 * entry term or UI ([mhui]); ESummary version 2.0 describes them (DS_MeshTerms, DS_ScopeNote,
 * DS_Subheading, DS_IdxLinks/TreeNum, DS_RecordType, DS_MeshUI). Scope notes and tree numbers
 * are project-written placeholders, marked as synthetic.
 */
import { esc, escAttr } from "./synth-text.js";
import type { SynthCorpus } from "./synth.js";

export interface MeshDescriptor {
  /** ESummary uid: "68" + the UI's digits, as NCBI numbers descriptors. */
  uid: string;
  ui: string;
  name: string;
  scopeNote?: string;
  entryTerms: string[];
  qualifiers: string[];
  treeNumbers: string[];
}

const XML_DECL = '<?xml version="1.0" encoding="UTF-8" ?>\n';
const DOCTYPE =
  '<!DOCTYPE eSummaryResult PUBLIC "-//NLM//DTD esummary mesh 20250101//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20250101/esummary_mesh.dtd">\n';

const strings = (tag: string, values: readonly string[]) =>
  `\t<${tag}>\n${values.map((v) => `\t\t<string>${esc(v)}</string>\n`).join("")}\t</${tag}>\n`;

/** ESummary db=mesh version=2.0 for `items` (a string is a uid NCBI has no record for). */
export function meshSummaryXml(items: readonly (MeshDescriptor | string)[]): string {
  const docs = items.map((d) => {
    if (typeof d === "string") {
      return `<DocumentSummary uid="${escAttr(d)}">\n\t<error>cannot get document summary</error>\n</DocumentSummary>\n`;
    }
    const links = d.treeNumbers
      .map(
        (t) =>
          `\t\t<LinksType>\n\t\t\t<Parent></Parent>\n\t\t\t<TreeNum>${esc(t)}</TreeNum>\n\t\t\t<Children>\n\t\t\t</Children>\n\t\t</LinksType>\n`,
      )
      .join("");
    return (
      `<DocumentSummary uid="${escAttr(d.uid)}">\n` +
      `\t<DS_ScopeNote>${esc(d.scopeNote ?? "")}</DS_ScopeNote>\n` +
      `\t<DS_HeadingMappedTo></DS_HeadingMappedTo>\n` +
      strings("DS_MeshTerms", [d.name, ...d.entryTerms.filter((t) => t !== d.name)]) +
      strings("DS_Subheading", d.qualifiers) +
      `\t<DS_IdxLinks>\n${links}\t</DS_IdxLinks>\n` +
      `\t<DS_RecordType>descriptor</DS_RecordType>\n` +
      `\t<DS_MeshUI>${esc(d.ui)}</DS_MeshUI>\n` +
      `</DocumentSummary>\n`
    );
  });
  return `${XML_DECL}${DOCTYPE}<eSummaryResult>\n<DocumentSummarySet status="OK">\n<DbBuild>Build-synthetic</DbBuild>\n${docs.join("")}</DocumentSummarySet>\n</eSummaryResult>\n`;
}

/** "Mice, Inbred C57BL" → "Inbred C57BL Mice": MeSH lists the uninverted form as an entry term. */
function uninverted(name: string): string | undefined {
  const m = /^([^,]+), (.+)$/.exec(name);
  return m ? `${m[2]} ${m[1]}` : undefined;
}

/** The corpus's descriptors, by UI, built once per corpus. */
export class SynthMeshDb {
  private readonly byUi = new Map<string, MeshDescriptor>();

  constructor(corpus: SynthCorpus) {
    const qualifiers = new Map<string, Set<string>>();
    const names = new Map<string, string>();
    for (let i = 0; i < corpus.size; i++) {
      for (const h of corpus.recordAt(i).mesh) {
        names.set(h.ui, h.name);
        const q = qualifiers.get(h.ui) ?? new Set<string>();
        for (const x of h.qualifiers) q.add(x.name);
        qualifiers.set(h.ui, q);
      }
    }
    const uis = [...names.keys()].sort();
    uis.forEach((ui, n) => {
      const name = names.get(ui) ?? ui;
      const alt = uninverted(name);
      this.byUi.set(ui, {
        uid: `68${ui.slice(1)}`,
        ui,
        name,
        scopeNote: `${name}: a synthetic descriptor of the offline demo (not NLM's scope note).`,
        entryTerms: alt ? [alt] : [],
        qualifiers: [...(qualifiers.get(ui) ?? [])].sort(),
        // Placeholder tree numbers in the Z (synthetic) branch, stable per descriptor.
        treeNumbers: [`Z01.${String(n + 1).padStart(3, "0")}`],
      });
    });
  }

  /** UIDs for an ESearch term: `D…[mhui]`, else a name or entry term containing the words. */
  search(term: string): string[] {
    const ui = /^\s*([DCQ]\d{6,9})\s*\[mhui\]\s*$/i.exec(term)?.[1]?.toUpperCase();
    if (ui) return this.byUi.has(ui) ? [this.byUi.get(ui)!.uid] : [];
    const words = term
      .toLowerCase()
      .replace(/\[[^\]]*\]|"/g, " ")
      .split(/\s+/)
      .filter(Boolean);
    if (words.length === 0) return [];
    const hits = [...this.byUi.values()].filter((d) =>
      [d.name, ...d.entryTerms].some((t) => words.every((w) => t.toLowerCase().includes(w))),
    );
    // An exact name first, as NCBI ranks the preferred term.
    const exact = (d: MeshDescriptor) => (d.name.toLowerCase() === words.join(" ") ? 0 : 1);
    return hits
      .sort((a, b) => exact(a) - exact(b) || a.name.localeCompare(b.name))
      .map((d) => d.uid);
  }

  byUid(uid: string): MeshDescriptor | undefined {
    return /^68\d+$/.test(uid) ? this.byUi.get(`D${uid.slice(2)}`) : undefined;
  }
}
