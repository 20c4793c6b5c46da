/**
 * A test set for reference verification, built from real PubMed records (fixture-pubmed.ts): each
 * journal article cited correctly in every style of reference-styles.ts, with and without its DOI
 * and PMID; cited with one field wrong (year, pages, volume, or another paper's authors), which a
 * verifier must call a mismatch naming that field and pointing at the real record; and references
 * to papers that do not exist (invented biomedical titles and authors in a real journal, some with
 * an invented DOI under the journal's real prefix), which it must never call verified.
 * Deterministic: every draw comes from a seeded PRNG keyed by the record's PMID.
 */
import type { Article } from "../ncbi/types.js";
import { STOPWORDS, foldWords } from "./pubmed-fields.js";
import {
  REFERENCE_STYLES,
  formatReference,
  pageRange,
  statesVolumeAndPages,
  type Cited,
  type ReferenceStyle,
  type StyleOptions,
} from "./reference-styles.js";
import { topicSlots } from "./synth-record.js";
import { Rng } from "./synth-random.js";
import { drawTitle, toPlain, type Design } from "./synth-text.js";
import { vocabulary } from "./synth-vocab.js";

export { REFERENCE_STYLES, type Cited, type ReferenceStyle } from "./reference-styles.js";

export const REFERENCE_KINDS = [
  "real",
  "wrong_year",
  "wrong_pages",
  "wrong_volume",
  "other_authors",
  "fabricated",
] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];
export type ReferenceField = "title" | "authors" | "journal" | "year" | "volume" | "pages" | "doi";
export type ReferenceStatus = "verified" | "mismatch" | "not_found" | "ambiguous";

export interface ReferenceCase {
  style: ReferenceStyle;
  kind: ReferenceKind;
  text: string;
  expect: { status: ReferenceStatus; pmid?: string; differences?: ReferenceField[] };
  /** What the text states, field by field (a parser's expected reading). */
  cited: Cited;
}

const DEFAULT_SEED = 20_260_101;
const FIELD_OF: Partial<Record<ReferenceKind, ReferenceField>> = {
  wrong_year: "year",
  wrong_pages: "pages",
  wrong_volume: "volume",
  other_authors: "authors",
};

/** Journal articles with a title, an author, a journal and a year: the ones a reference can cite. */
export function citable(a: Article): boolean {
  const j = a.journalInfo;
  return (
    a.recordType === "PubmedArticle" &&
    a.title.trim() !== "" &&
    a.authors.some((p) => p.lastName !== null || p.collectiveName !== null) &&
    j.title !== null &&
    j.publicationDate.year !== null
  );
}

export function citedOf(a: Article): Cited {
  const j = a.journalInfo;
  return {
    pmid: a.pmid,
    doi: a.doi,
    title: a.title.trim(),
    authors: a.authors
      .filter((p) => p.lastName !== null || p.collectiveName !== null)
      .map((p) => ({
        lastName: p.lastName,
        initials: p.initials,
        foreName: p.firstName,
        collectiveName: p.lastName === null ? p.collectiveName : null,
      })),
    journalAbbrev: j.isoAbbreviation ?? j.title ?? "",
    journalFull: j.title ?? "",
    year: j.publicationDate.year ?? "",
    month: j.publicationDate.month,
    volume: j.volume,
    issue: j.issue,
    pages: j.pages,
  };
}

/** Which identifiers a reference carries: mostly a DOI, some none, some a PMID or both. */
function identifiers(rng: Rng, c: Cited, variant: number): StyleOptions {
  const pick = rng.weighted(
    [
      ["doi", 40],
      ["none", 30],
      ["both", 15],
      ["pmid", 15],
    ] as const,
    ([, w]) => w,
  )[0];
  const doi = c.doi !== null && (pick === "doi" || pick === "both");
  const pmid = pick === "pmid" || pick === "both";
  return { doi, pmid, variant };
}

const yearOf = (iso: string | null) => (iso === null ? null : iso.slice(0, 4));

/** Moves a number inside a page string by `shift`, keeping prefix letters and zero padding. */
function shiftPage(page: string, shift: number): string {
  return page.replace(/\d+/, (d) => String(Number(d) + shift).padStart(d.length, "0"));
}

function wrong(kind: ReferenceKind, rng: Rng, a: Article, c: Cited, donor: Cited): Cited | null {
  if (kind === "wrong_year") {
    const taken = new Set([c.year, yearOf(a.articleDates.edat), yearOf(a.articleDates.pubmed)]);
    const years = [-3, -2, 2, 3]
      .map((d) => String(Number(c.year) + d))
      .filter((y) => !taken.has(y));
    return { ...c, year: rng.pick(years) };
  }
  if (kind === "wrong_pages") {
    if (c.pages === null || !/^[A-Za-z]*\d+(-[A-Za-z]*\d+)?$/.test(c.pages)) return null;
    const shift = rng.int(11, 97);
    return {
      ...c,
      pages: pageRange(c.pages)
        .map((p) => shiftPage(p, shift))
        .join("-"),
    };
  }
  if (kind === "wrong_volume") {
    if (c.volume === null || !/^\d+$/.test(c.volume)) return null;
    const volume = Number(c.volume);
    const options = [-3, -2, -1, 1, 2, 3].map((d) => volume + d).filter((v) => v >= 1);
    return { ...c, volume: String(rng.pick(options)) };
  }
  if (kind === "other_authors") return { ...c, authors: donor.authors };
  return null;
}

const surnames = (c: Cited) =>
  new Set(c.authors.map((p) => foldWords(p.lastName ?? p.collectiveName ?? "").join(" ")));

/** A record whose authors share no surname with `c`'s. */
function donorFor(rng: Rng, c: Cited, all: readonly Cited[]): Cited {
  const mine = surnames(c);
  const others = all.filter((o) => o !== c && ![...surnames(o)].some((s) => mine.has(s)));
  return rng.pick(others);
}

export function buildReferenceSet(
  records: readonly Article[],
  opts: { seed?: number } = {},
): ReferenceCase[] {
  const seed = opts.seed ?? DEFAULT_SEED;
  const articles = records.filter(citable);
  const cited = articles.map(citedOf);
  const fabricate = fabricator(seed, articles, cited);
  const out: ReferenceCase[] = [];
  articles.forEach((a, k) => {
    const c = cited[k] as Cited;
    const rng = Rng.of(seed, Number(a.pmid));
    for (const style of REFERENCE_STYLES) {
      const o = identifiers(rng, c, rng.int(0, 7));
      const text = formatReference(style, c, o);
      const expect = { status: "verified" as const, pmid: a.pmid };
      out.push({ style, kind: "real", text, expect, cited: c });
    }
    const donor = donorFor(rng, c, cited);
    for (const [i, kind] of REFERENCE_KINDS.entries()) {
      const field = FIELD_OF[kind];
      if (field === undefined) continue;
      const altered = wrong(kind, rng, a, c, donor);
      if (altered === null) continue;
      const styles = REFERENCE_STYLES.filter(
        (s) => statesVolumeAndPages(s) || (field !== "pages" && field !== "volume"),
      );
      const style = styles[(k + i) % styles.length] ?? "vancouver";
      const text = formatReference(style, altered, identifiers(rng, c, rng.int(0, 7)));
      out.push({
        style,
        kind,
        text,
        expect: { status: "mismatch", pmid: a.pmid, differences: [field] },
        cited: altered,
      });
    }
    const style = REFERENCE_STYLES[k % REFERENCE_STYLES.length] ?? "vancouver";
    const invented = fabricate(k);
    const o: StyleOptions = { doi: invented.doi !== null, pmid: false, variant: rng.int(0, 7) };
    out.push({
      style,
      kind: "fabricated",
      text: formatReference(style, invented, o),
      expect: { status: "not_found" },
      cited: invented,
    });
  });
  return out;
}

const DESIGNS: Design[] = ["rct", "meta", "sysrev", "review", "observational", "case", "basic"];

/**
 * Invented references, one per record, in that record's journal. A title sharing three or more
 * words with a real title, or a journal/year/volume/first page of a real record, is drawn again:
 * nothing the verifier can look up may point at a real paper.
 */
function fabricator(seed: number, articles: readonly Article[], cited: readonly Cited[]) {
  const v = vocabulary();
  const content = (title: string) => new Set(foldWords(title).filter((w) => !STOPWORDS.has(w)));
  const realTitles = cited.map((c) => content(c.title));
  const realDois = new Set(cited.flatMap((c) => (c.doi ? [c.doi.toLowerCase()] : [])));
  const locators = new Set(
    cited.map((c) => [c.journalFull, c.year, c.volume, pageRange(c.pages ?? "")[0]].join("|")),
  );
  const tooClose = (title: string) => {
    const mine = content(title);
    return realTitles.some((t) => [...mine].filter((w) => t.has(w)).length > 2);
  };

  return (k: number): Cited => {
    const real = cited[k] as Cited;
    const rng = Rng.of(seed, Number(articles[k]?.pmid ?? k), 0xfab);
    let title = "";
    for (let tries = 0; tries < 50 && (title === "" || tooClose(title)); tries++) {
      const topic = rng.pick(v.topics);
      const design = rng.pick(DESIGNS.filter((d) => d !== "basic" || topic.animal));
      const slots: Record<string, string> = {
        ...topicSlots(rng, topic),
        age: String(rng.int(18, 89)),
        sex: rng.pick(["man", "woman"]),
      };
      title = toPlain(drawTitle(rng, design, slots));
    }
    if (tooClose(title)) throw new Error(`reference-set: no invented title clear of real ones`);
    const authors = Array.from({ length: rng.int(1, 8) }, () => {
      const foreName = rng.pick(v.forenames);
      const middle = rng.chance(0.4) ? String.fromCharCode(65 + rng.int(0, 25)) : "";
      return {
        lastName: rng.pick(v.surnames),
        initials: `${foreName.charAt(0)}${middle}`,
        foreName: middle === "" ? foreName : `${foreName} ${middle}`,
        collectiveName: null,
      };
    });
    let year = "";
    let volume = "";
    let start = 0;
    do {
      year = String(rng.int(2008, 2024));
      volume = String(rng.int(3, 160));
      start = rng.int(20, 2400);
    } while (locators.has([real.journalFull, year, volume, String(start)].join("|")));
    const end = start + rng.int(4, 15);
    const prefix = real.doi?.split("/")[0];
    let doi: string | null = null;
    if (prefix !== undefined && rng.chance(0.5)) {
      const code = real.journalAbbrev
        .replace(/[^A-Za-z]/g, "")
        .toLowerCase()
        .slice(0, 8);
      doi = `${prefix}/${code}.${year}.${rng.int(10_000, 99_999)}`;
      if (realDois.has(doi.toLowerCase())) doi = null;
    }
    return {
      pmid: null,
      doi,
      title,
      authors,
      journalAbbrev: real.journalAbbrev,
      journalFull: real.journalFull,
      year,
      month: null,
      volume,
      issue: rng.chance(0.5) ? String(rng.int(1, 12)) : null,
      pages: `${start}-${end}`,
    };
  };
}
