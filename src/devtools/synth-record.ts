/**
 * Builds one synthetic record from (seed, index) and the corpus's small per-record metadata.
 * Draw order inside a stream is part of the output: reordering draws changes every record, so
 * add new draws at the end of a function.
 */
import {
  DAY_MS,
  citationCore,
  drawForeName,
  initialsOf,
  pubDateDay,
  startOfDay,
} from "./synth-core.js";
import { pickMesh } from "./synth-mesh.js";
import { Rng, STREAM, hashString } from "./synth-random.js";
import { type Design, drawAbstract, drawTitle, fill, toMarkup, toPlain } from "./synth-text.js";
import type { SynthAuthor, SynthCitation, SynthRecord, SynthStatus } from "./synth-types.js";
import { type Topic, vocabulary } from "./synth-vocab.js";

export interface RecordInputs {
  seed: number;
  index: number;
  pmid: string;
  term: string;
  topic: Topic;
  edat: number;
  /** The record whose citation core this one shares (itself, or its predecessor for a twin). */
  citationIndex: number;
  citationEdat: number;
  lrOverride: number | undefined;
  abstractVersion: number;
  /** Retracted by `revise(…, { retract: true })`, on top of the ~1 in 97 drawn retractions. */
  retract: boolean;
  references: { pmid: string; citation: string }[];
  now: number;
}

const PT = {
  article: { ui: "D016428", name: "Journal Article" },
  rct: { ui: "D016449", name: "Randomized Controlled Trial" },
  trial: { ui: "D016430", name: "Clinical Trial" },
  meta: { ui: "D017418", name: "Meta-Analysis" },
  sysrev: { ui: "D000078182", name: "Systematic Review" },
  review: { ui: "D016454", name: "Review" },
  observational: { ui: "D064888", name: "Observational Study" },
  case: { ui: "D002363", name: "Case Reports" },
  comparative: { ui: "D003160", name: "Comparative Study" },
  multicenter: { ui: "D016448", name: "Multicenter Study" },
  support: { ui: "D013485", name: "Research Support, Non-U.S. Gov't" },
  nih: { ui: "D052061", name: "Research Support, N.I.H., Extramural" },
  retracted: { ui: "D016441", name: "Retracted Publication" },
} as const;

/** Share of each design; basic science only where the topic has animal models. */
const DESIGNS: [Design, number][] = [
  ["research", 22],
  ["rct", 10],
  ["trial", 3],
  ["meta", 5],
  ["sysrev", 5],
  ["review", 14],
  ["observational", 20],
  ["case", 7],
  ["basic", 9],
];

function drawDesign(rng: Rng, topic: Topic, citation: SynthCitation): Design {
  if (citation.journal.title.startsWith("Case reports")) return "case";
  const options = DESIGNS.filter(([d]) => d !== "basic" || topic.animal);
  return rng.weighted(options, ([, w]) => w)[0];
}

function publicationTypes(rng: Rng, design: Design) {
  const types: { ui: string; name: string }[] = [];
  const add = (t: { ui: string; name: string }) => types.push(t);
  if (design === "case") add(PT.case);
  add(PT.article);
  if (design === "rct") add(PT.rct);
  if (design === "trial") add(PT.trial);
  if (design === "meta") add(PT.meta);
  if (design === "meta" || design === "sysrev") add(PT.sysrev);
  if (design === "review" || design === "meta") add(PT.review);
  if (design === "observational") add(PT.observational);
  if ((design === "rct" || design === "observational") && rng.chance(0.3)) add(PT.multicenter);
  if (design === "research" && rng.chance(0.2)) add(PT.comparative);
  if (rng.chance(0.3)) add(PT.support);
  if (rng.chance(0.12)) add(PT.nih);
  return types;
}

/** A topic's words for a title template's slots, drawn in a fixed order (the corpus depends on it). */
export function topicSlots(rng: Rng, topic: Topic): Record<string, string> {
  const v = vocabulary();
  return {
    subject: topic.subject,
    intervention: rng.pick(topic.interventions),
    outcome: rng.pick(topic.outcomes),
    marker: rng.pick(topic.markers),
    population: rng.pick(v.populations),
    setting: rng.pick(v.settings),
    animal: rng.pick(v.animalModels),
    acronym: rng.pick(v.acronyms),
  };
}

function slotsFor(rng: Rng, topic: Topic, term: string, edat: number): Record<string, string> {
  const year = new Date(edat).getUTCFullYear();
  return {
    ...topicSlots(rng, topic),
    term,
    yearA: String(year - rng.int(3, 12)),
    yearB: String(year - rng.int(0, 2)),
    age: String(rng.int(18, 89)),
    sex: rng.pick(["man", "woman"]),
  };
}

function affiliation(rng: Rng, email: string | null): string {
  const v = vocabulary();
  const [name, city, country] = rng.pick(v.institutions);
  const base = `${rng.pick(v.departments)}, ${name}, ${city}, ${country}.`;
  return email === null ? base : `${base} Electronic address: ${email}.`;
}

/** A checksummed ORCID iD (ISO 7064 11,2), like the ones NCBI prints. */
function orcid(rng: Rng): string {
  const digits = `0000000${rng.int(1, 3)}${String(rng.int(0, 9_999_999)).padStart(7, "0")}`;
  let total = 0;
  for (const d of digits) total = (total + Number(d)) * 2;
  const check = (12 - (total % 11)) % 11;
  const all = digits + (check === 10 ? "X" : String(check));
  return `${all.slice(0, 4)}-${all.slice(4, 8)}-${all.slice(8, 12)}-${all.slice(12)}`;
}

function authors(
  rng: Rng,
  design: Design,
  citation: SynthCitation,
  slots: Record<string, string>,
): SynthAuthor[] {
  const v = vocabulary();
  const [min, max] =
    design === "rct"
      ? [6, 12]
      : design === "review"
        ? [1, 5]
        : design === "case"
          ? [1, 6]
          : [2, 10];
  const count = rng.int(min, max);
  const list: SynthAuthor[] = [];
  for (let i = 0; i < count; i++) {
    const first = i === 0 ? citation.firstAuthor : null;
    const lastName = first?.lastName ?? rng.pick(v.surnames);
    const foreName = first?.foreName ?? drawForeName(rng);
    const email =
      i === 0 && rng.chance(0.2)
        ? `${foreName.charAt(0).toLowerCase()}.${lastName.toLowerCase().replace(/[^a-z]/g, "")}@${rng.pick(v.emailDomains)}`
        : null;
    const affiliationCount = rng.chance(0.03) ? 0 : rng.chance(0.12) ? 2 : 1;
    const affiliations: string[] = [];
    for (let a = 0; a < affiliationCount; a++)
      affiliations.push(affiliation(rng, a === 0 ? email : null));
    list.push({
      lastName,
      foreName,
      initials: initialsOf(foreName),
      collectiveName: null,
      orcid: rng.chance(0.25) ? orcid(rng) : null,
      affiliations,
    });
  }
  const groupShare =
    design === "rct" || design === "meta" || design === "observational" ? 0.1 : 0.02;
  if (rng.chance(groupShare)) {
    const name = toPlain(fill(rng.pick(v.collectiveNames), slots));
    list.push({
      lastName: null,
      foreName: null,
      initials: null,
      collectiveName: name,
      orcid: null,
      affiliations: [],
    });
  }
  return list;
}

function keywords(rng: Rng, topic: Topic, term: string, slots: Record<string, string>): string[] {
  if (!rng.chance(0.55)) return [];
  const picked = rng.sample(topic.keywords, rng.int(1, topic.keywords.length));
  return [...new Set([term, ...picked, toPlain(slots.outcome ?? "")])].filter((k) => k !== "");
}

function grants(rng: Rng): SynthRecord["grants"] {
  if (!rng.chance(0.15)) return [];
  const v = vocabulary();
  return rng.sample(v.grantAgencies, rng.int(1, 2)).map(([agency, country, prefix]) => ({
    grantId: prefix === null ? null : `${prefix}${rng.int(100_000, 999_999)}`,
    acronym: prefix === null ? null : prefix.replace(/_$/, ""),
    agency,
    country,
  }));
}

export function buildRecord(input: RecordInputs): SynthRecord {
  const { seed, index, topic, term, edat, now } = input;
  const rng = Rng.of(seed, index, STREAM.content);
  const citation = citationCore(seed, input.citationIndex, input.citationEdat);
  const design = drawDesign(rng, topic, citation);
  const slots = slotsFor(rng, topic, term, edat);
  const titleSource = drawTitle(rng, design, slots);
  const types = publicationTypes(rng, design);
  const authorList = authors(rng, design, citation, slots);
  const subsets =
    citation.journal.subset === null
      ? []
      : citation.journal.subset === "AIM"
        ? ["AIM", "IM"]
        : ["IM"];
  const indexedAt = startOfDay(edat + rng.int(20, 240) * DAY_MS) + 6 * 3_600_000;
  const status: SynthStatus =
    subsets.length === 0 ? "PubMed-not-MEDLINE" : indexedAt <= now ? "MEDLINE" : "In-Data-Review";
  const mesh = status === "MEDLINE" ? pickMesh(rng, topic, design) : [];
  const keywordList = keywords(rng, topic, term, slots);
  const grantList = grants(rng);
  const hasDoi = rng.chance(0.92);
  const hasPmc = rng.chance(citation.journal.eloc ? 0.8 : 0.3);
  const received = rng.chance(0.6) ? startOfDay(edat - rng.int(90, 400) * DAY_MS) : null;
  const accepted =
    received === null ? null : Math.min(received + rng.int(14, 80) * DAY_MS, startOfDay(edat));
  const pubmedDate = edat + rng.int(0, 150) * 60_000;
  // About 1 in 97 records, spread evenly, so even the small demo corpus has retractions.
  const drawnRetracted = (index + (seed >>> 0)) % 97 === 0;
  const retracted = input.retract || drawnRetracted;
  const lrBase = startOfDay(status === "MEDLINE" ? indexedAt : edat);
  const lrDrawn =
    lrBase + Math.floor(((Math.max(now, lrBase) - lrBase) * rng.next() ** 2) / DAY_MS) * DAY_MS;
  // A retraction made by revise() dates from that revision; the draw happens only for drawn ones,
  // so other records' draws stay as they were.
  const retractedAt = drawnRetracted
    ? Math.min(startOfDay(now), lrBase + rng.int(200, 900) * DAY_MS)
    : retracted
      ? startOfDay(input.lrOverride ?? now)
      : null;
  const journalCode = citation.journal.iso.toLowerCase().replace(/[^a-z]+/g, "");
  const doi = hasDoi
    ? `10.5555/${journalCode}.${citation.pubDate.year}.${String(index).padStart(6, "0")}`
    : null;

  const abstractRng = Rng.of(seed, index, STREAM.abstract, input.abstractVersion);
  const pdat = pubDateDay(citation.pubDate);
  return {
    pmid: input.pmid,
    index,
    term,
    topic: topic.key,
    status,
    titleMarkup: toMarkup(titleSource),
    title: toPlain(titleSource),
    abstract: drawAbstract(abstractRng, design, slots),
    authors: authorList,
    citation,
    publicationTypes: retracted ? [...types, PT.retracted] : types,
    mesh,
    citationSubsets: subsets,
    keywords: keywordList,
    grants: grantList,
    languages: ["eng"],
    doi,
    pmcid: hasPmc ? `PMC${8_000_000 + index}` : null,
    publicationStatus: citation.journal.pubModel.startsWith("Electronic")
      ? "epublish"
      : pdat > now
        ? "aheadofprint"
        : "ppublish",
    edat,
    pubmedDate,
    medlineDate: status === "MEDLINE" ? indexedAt : null,
    received,
    accepted,
    dateCompleted: status === "MEDLINE" ? startOfDay(indexedAt) : null,
    lr: input.lrOverride ?? Math.max(lrDrawn, retractedAt ?? 0),
    pdat,
    retraction:
      retractedAt === null
        ? null
        : {
            pmid: String(39_000_000 + index),
            refSource: `${citation.journal.iso}. ${new Date(retractedAt).getUTCFullYear()};${citation.volume}:${citation.startPage}. doi: 10.5555/${journalCode}.retraction.${index}`,
          },
    references: input.references,
    abstractVersion: input.abstractVersion,
  };
}

/** Stable per-term key, so a term's topics do not depend on the order terms were added. */
export function termKey(term: string): number {
  return hashString(term.trim().toLowerCase());
}
