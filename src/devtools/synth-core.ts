/**
 * The "citation core" of a synthetic record — journal, volume, pages, dates, first author — drawn
 * from its own stream so that ECitMatch indexes and reference lists can be built without
 * generating whole records.
 */
import { Rng, STREAM, at } from "./synth-random.js";
import type { SynthCitation, SynthPubDate } from "./synth-types.js";
import { vocabulary, type Journal } from "./synth-vocab.js";

export const DAY_MS = 86_400_000;
export const MONTH_ABBR = [
  "Jan",
  "Feb",
  "Mar",
  "Apr",
  "May",
  "Jun",
  "Jul",
  "Aug",
  "Sep",
  "Oct",
  "Nov",
  "Dec",
] as const;

const SEASONS: [name: string, month: number][] = [
  ["Winter", 1],
  ["Spring", 4],
  ["Summer", 7],
  ["Fall", 10],
];

export interface UtcParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

export function utcParts(ms: number): UtcParts {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
  };
}

export function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function monthAbbr(month: number): string {
  return at(MONTH_ABBR, month - 1);
}

export function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** The day a PubDate stands for: missing month/day read as the first, as PubMed sorts them. */
export function pubDateDay(p: SynthPubDate): number {
  return Date.UTC(p.year, (p.month ?? 1) - 1, p.day ?? 1);
}

/** "2021 Mar 4", "2021 Mar", "2021 Spring", or the MedlineDate text — as ESummary prints it. */
export function pubDateText(p: SynthPubDate): string {
  if (p.medlineDate !== null) return p.medlineDate;
  if (p.season !== null) return `${p.year} ${p.season}`;
  if (p.month === null) return String(p.year);
  return p.day === null
    ? `${p.year} ${monthAbbr(p.month)}`
    : `${p.year} ${monthAbbr(p.month)} ${p.day}`;
}

/** MEDLINE page style: 1234-1239 → "1234-9", 99-101 → "99-101". */
export function medlinePages(start: number, end: number): string {
  const a = String(start);
  const b = String(end);
  if (b.length !== a.length) return `${a}-${b}`;
  let i = 0;
  while (i < a.length - 1 && a[i] === b[i]) i++;
  return `${a}-${b.slice(i)}`;
}

export function initialsOf(foreName: string): string {
  return foreName
    .split(/[\s-]+/)
    .filter((p) => p !== "")
    .map((p) => p.charAt(0).toUpperCase())
    .join("");
}

/** A forename, sometimes with a middle initial ("Maria L"), as PubMed stores ForeName. */
export function drawForeName(rng: Rng): string {
  const v = vocabulary();
  const first = rng.pick(v.forenames);
  return rng.chance(0.3) ? `${first} ${String.fromCharCode(65 + rng.int(0, 25))}` : first;
}

function drawPubDate(rng: Rng, journal: Journal, edat: number, epub: number | null): SynthPubDate {
  const printed = journal.pubModel.startsWith("Electronic")
    ? (epub ?? edat)
    : edat + rng.int(-20, 120) * DAY_MS;
  const { year, month, day } = utcParts(printed);
  const r = rng.next();
  if (journal.pubModel === "Electronic-eCollection" || journal.pubModel === "Electronic") {
    return { year, month, day, season: null, medlineDate: null };
  }
  if (r < 0.03) {
    const next = month === 12 ? `${year + 1} Jan` : monthAbbr(month + 1);
    const text = `${year} ${monthAbbr(month)}-${next}`;
    return { year, month, day: null, season: null, medlineDate: text };
  }
  if (r < 0.05) {
    const [season, seasonMonth] = at(SEASONS, Math.floor((month - 1) / 3));
    return { year, month: seasonMonth, day: null, season, medlineDate: null };
  }
  if (r < 0.4) return { year, month, day: null, season: null, medlineDate: null };
  return { year, month, day, season: null, medlineDate: null };
}

/**
 * The citation core of the record at `index`, whose Entrez date is `edat`. Records flagged as
 * twins pass their predecessor's index and edat, so two PMIDs share one citation (ECitMatch
 * then answers AMBIGUOUS for it).
 */
export function citationCore(seed: number, index: number, edat: number): SynthCitation {
  const v = vocabulary();
  const rng = Rng.of(seed, index, STREAM.citation);
  const journal = rng.weighted(v.journals, (j) => j.weight);
  const epub = journal.pubModel === "Print" ? null : startOfDay(edat - rng.int(0, 4) * DAY_MS);
  const pubDate = drawPubDate(rng, journal, edat, epub);
  const volume = String(Math.max(1, pubDate.year - journal.firstYear + 1));
  const issue = journal.eloc && rng.chance(0.5) ? null : String(rng.int(1, 12));
  let startPage: string;
  let endPage: string | null;
  let medlinePgn: string;
  if (journal.eloc) {
    startPage = `e${rng.int(10_000, 99_999)}`;
    endPage = null;
    medlinePgn = startPage;
  } else {
    const start = rng.int(1, 2400);
    const end = start + rng.int(3, 14);
    startPage = String(start);
    endPage = String(end);
    medlinePgn = medlinePages(start, end);
  }
  const lastName = rng.pick(v.surnames);
  const foreName = drawForeName(rng);
  return {
    journal,
    volume,
    issue,
    startPage,
    endPage,
    medlinePgn,
    pubDate,
    epubDate: epub,
    firstAuthor: { lastName, foreName, initials: initialsOf(foreName) },
  };
}

/** "Kim J, et al. Cardiometab Rep. 2019;12(3):100-8." — how a reference list cites a record. */
export function shortCitation(c: SynthCitation, title: string | null): string {
  const issue = c.issue === null ? "" : `(${c.issue})`;
  const titlePart = title === null ? "" : ` ${title}`;
  return `${c.firstAuthor.lastName} ${c.firstAuthor.initials}, et al.${titlePart} ${c.journal.iso}. ${c.pubDate.year};${c.volume}${issue}:${c.medlinePgn}.`;
}

/**
 * A date as NCBI reads one — "YYYY", "YYYY/MM", "YYYY/MM/DD" (dashes or dots also accepted) —
 * or any ISO-8601 instant, as the inclusive span of UTC ms it covers. Null when unreadable.
 */
export function parsePeriod(text: string): { start: number; end: number } | null {
  const trimmed = text.trim();
  const m = /^(\d{4})(?:[/.-](\d{1,2})(?:[/.-](\d{1,2}))?)?$/.exec(trimmed);
  if (m) {
    const year = Number(m[1]);
    const month = m[2] === undefined ? null : Number(m[2]);
    const day = m[3] === undefined ? null : Number(m[3]);
    if (month !== null && (month < 1 || month > 12)) return null;
    const start = Date.UTC(year, (month ?? 1) - 1, day ?? 1);
    if (day !== null && new Date(start).getUTCDate() !== day) return null;
    const end =
      day !== null
        ? start + DAY_MS - 1
        : month !== null
          ? Date.UTC(year, month, 1) - 1
          : Date.UTC(year + 1, 0, 1) - 1;
    return { start, end };
  }
  const instant = Date.parse(trimmed);
  return Number.isNaN(instant) ? null : { start: instant, end: instant };
}
