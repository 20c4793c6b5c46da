/**
 * A record the stand-in NCBI of ./review-ncbi.ts serves, and the synthetic generator's record made
 * of it, so that ./synth-xml.ts writes its EFetch XML (PubmedArticle as NCBI prints it, escaped).
 */
import { hashString } from "./synth-random.js";
import { esc } from "./synth-text.js";
import type { SynthRecord } from "./synth-types.js";

export interface StandInRecord {
  pmid: string;
  title: string;
  /** Plain text; "" for none. */
  abstract: string;
  /** MeSH descriptor names. */
  mesh: string[];
  /** "Last, F M" (PubMed's "Last, Initials" with spaces); a name without a comma is a collective. */
  authors: string[];
  journal?: string;
  year?: number;
  /** Default ["Journal Article"]. */
  pubTypes?: string[];
}

/** NCBI's UIs for the common publication types; others get a made-up one. */
const PUB_TYPE_UI: Record<string, string> = {
  "Journal Article": "D016428",
  "Randomized Controlled Trial": "D016449",
  "Clinical Trial": "D016430",
  "Comparative Study": "D003160",
  "Multicenter Study": "D016448",
  Review: "D016454",
  "Systematic Review": "D000078182",
  "Meta-Analysis": "D017418",
  "Case Reports": "D002363",
  Letter: "D016422",
  Editorial: "D016421",
  Comment: "D016420",
};

const madeUpUi = (name: string) => `D${String(hashString(name) % 1_000_000).padStart(6, "0")}`;

function author(name: string): SynthRecord["authors"][number] {
  const comma = name.indexOf(",");
  const none = { orcid: null, affiliations: [] };
  if (comma < 0)
    return { lastName: null, foreName: null, initials: null, collectiveName: name, ...none };
  const given = name.slice(comma + 1).trim();
  const initials = given.replace(/[^\p{Lu}]/gu, "");
  return {
    lastName: name.slice(0, comma).trim(),
    foreName: given === "" ? null : given,
    initials: initials === "" ? null : initials,
    collectiveName: null,
    ...none,
  };
}

/**
 * The generator's record for a stand-in one: its text, and plain values for the rest. No year
 * prints an empty MedlineDate (the parser reads no year); no journal, an empty title.
 */
export function synthRecordOf(r: StandInRecord, index: number): SynthRecord {
  const day = Date.UTC(r.year ?? 2000, 0, 1);
  const journal = r.journal ?? "";
  const authors = r.authors.map(author);
  const first = authors.find((a) => a.lastName !== null);
  return {
    pmid: r.pmid,
    index,
    term: "",
    topic: "",
    status: r.mesh.length > 0 ? "MEDLINE" : "PubMed-not-MEDLINE",
    titleMarkup: esc(r.title),
    title: r.title,
    abstract:
      r.abstract.trim() === ""
        ? []
        : [{ label: null, nlmCategory: null, markup: esc(r.abstract), text: r.abstract }],
    authors,
    citation: {
      journal: {
        title: journal,
        iso: journal,
        issnPrint: null,
        issnElectronic: null,
        nlmId: madeUpUi(journal).slice(1),
        country: "United States",
        subset: null,
        weight: 1,
        firstYear: 1900,
        pubModel: "Print",
        eloc: false,
      },
      volume: "1",
      issue: null,
      startPage: "1",
      endPage: null,
      medlinePgn: "1",
      pubDate: {
        year: r.year ?? 0,
        month: null,
        day: null,
        season: null,
        medlineDate: r.year === undefined ? "" : null,
      },
      epubDate: null,
      firstAuthor: {
        lastName: first?.lastName ?? "",
        foreName: first?.foreName ?? "",
        initials: first?.initials ?? "",
      },
    },
    publicationTypes: (r.pubTypes ?? ["Journal Article"]).map((name) => ({
      ui: PUB_TYPE_UI[name] ?? madeUpUi(name),
      name,
    })),
    mesh: r.mesh.map((name) => ({ ui: madeUpUi(name), name, major: false, qualifiers: [] })),
    citationSubsets: r.mesh.length > 0 ? ["IM"] : [],
    keywords: [],
    grants: [],
    languages: ["eng"],
    doi: null,
    pmcid: null,
    publicationStatus: "ppublish",
    edat: day,
    pubmedDate: day,
    medlineDate: null,
    received: null,
    accepted: null,
    dateCompleted: null,
    lr: day,
    pdat: day,
    retraction: null,
    references: [],
    abstractVersion: 0,
  };
}
