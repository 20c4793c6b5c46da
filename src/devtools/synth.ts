/**
 * A deterministic synthetic PubMed: records are rebuilt on demand from (seed, index) plus a few
 * numbers kept per record (term, topic, Entrez date, citation twin), so a 100,000-record corpus
 * costs a few megabytes until someone asks for XML. Backs the offline demo, the corpus-sync
 * tests and the benchmarks; synth-ncbi.ts answers E-utilities requests from it.
 *
 *   const corpus = createSynthCorpus({ seed: 7, terms: [{ term: "asthma", count: 500, edatFrom: "2019-01-01", edatTo: "2024-12-31" }] });
 *   corpus.pmidsFor("asthma", { edatFrom: "2020-01-01", edatTo: "2020-12-31" }); // the expected set
 */
import { DAY_MS, citationCore, parsePeriod, shortCitation } from "./synth-core.js";
import { type LinkView, citedBy, neighbours, referencesOf } from "./synth-links.js";
import { Rng, STREAM, at, mix } from "./synth-random.js";
import { buildRecord, termKey } from "./synth-record.js";
import type { SynthCitation, SynthRecord, SynthTermSpec } from "./synth-types.js";
import { vocabulary } from "./synth-vocab.js";

export type { SynthRecord, SynthTermSpec } from "./synth-types.js";

/** PMIDs are SYNTH_PMID_BASE + index: clear of real PMIDs a test might also use, and 8 digits. */
export const SYNTH_PMID_BASE = 30_000_000;

export interface SynthCorpusOptions {
  seed?: number;
  terms: SynthTermSpec[];
  /**
   * The corpus's "today" (indexing status, LR, EInfo LastUpdate). Defaults to the end of the
   * latest `edatTo`, so output never depends on the wall clock.
   */
  now?: Date;
}

export interface EdatWindow {
  /** Inclusive bounds at day granularity, as NCBI applies mindate/maxdate ("YYYY[/MM[/DD]]" or ISO). */
  edatFrom?: string;
  edatTo?: string;
}

interface TermEntry {
  term: string;
  norm: string;
  words: string[];
  topics: number[];
}

/** How NCBI-ish matching sees a term: case, spacing, quotes and an [All Fields] tag ignored. */
export function normalizeTerm(term: string): string {
  return term
    .toLowerCase()
    .replace(/\[all fields\]/g, " ")
    .replace(/["()]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export class SynthCorpus implements LinkView {
  readonly seed: number;
  readonly now: Date;
  private readonly entries: TermEntry[] = [];
  private readonly termIdx: number[] = [];
  private readonly topicIdx: number[] = [];
  private readonly edats: number[] = [];
  private readonly citationIdx: number[] = [];
  private readonly topicMembers = new Map<number, number[]>();
  private readonly topicPos: number[] = [];
  private readonly lrOverride = new Map<number, number>();
  private readonly abstractVersion = new Map<number, number>();
  /** Create dates (CRDT) that differ from the EDAT: back-dated arrivals. */
  private readonly crdtOverride = new Map<number, number>();
  /** Modification dates (MDAT) set by revise(); other records were last modified on creation. */
  private readonly mdatOverride = new Map<number, number>();
  private readonly retracted = new Set<number>();
  private batches = 0;

  constructor(opts: SynthCorpusOptions) {
    this.seed = opts.seed ?? 1;
    const ends = opts.terms.map((t) => parsePeriod(t.edatTo)?.end ?? 0);
    this.now = opts.now ?? new Date(ends.length > 0 ? Math.max(...ends) : Date.UTC(2025, 0, 1));
    for (const spec of opts.terms) this.add(spec);
  }

  get size(): number {
    return this.edats.length;
  }

  terms(): string[] {
    return this.entries.map((e) => e.term);
  }

  /** Appends `count` records for `term` (new or existing); returns their PMIDs, oldest EDAT first. */
  add(spec: SynthTermSpec): string[] {
    const from = parsePeriod(spec.edatFrom);
    const to = parsePeriod(spec.edatTo);
    if (!from || !to || to.end < from.start || spec.count < 0) {
      throw new RangeError(`synth: bad term spec ${JSON.stringify(spec)}`);
    }
    const t = this.entryFor(spec.term);
    const rng = Rng.of(this.seed, this.batches++, STREAM.edat);
    // Minute resolution, sorted so PMIDs rise with EDAT inside a batch, as real PMIDs roughly do.
    const minutes = Math.floor((to.end - from.start) / 60_000) + 1;
    const edats = Array.from(
      { length: spec.count },
      () => from.start + Math.floor(rng.next() * minutes) * 60_000,
    );
    edats.sort((a, b) => a - b);
    const entry = at(this.entries, t);
    const first = this.size;
    const created = spec.createdAt === undefined ? undefined : parsePeriod(spec.createdAt)?.start;
    if (spec.createdAt !== undefined && created === undefined) {
      throw new RangeError(`synth: bad createdAt ${spec.createdAt}`);
    }
    const pmids: string[] = [];
    for (const [k, edat] of edats.entries()) {
      const index = first + k;
      const topic = Rng.of(this.seed, index, STREAM.topic).pick(entry.topics);
      // ~2% share their predecessor's citation (a duplicate listing), so ECitMatch can be AMBIGUOUS.
      const twin = k > 0 && Rng.of(this.seed, index, STREAM.flags).chance(0.02);
      this.termIdx.push(t);
      this.topicIdx.push(topic);
      this.edats.push(edat);
      this.citationIdx.push(twin ? index - 1 : index);
      if (created !== undefined) this.crdtOverride.set(index, created);
      let members = this.topicMembers.get(topic);
      if (!members) this.topicMembers.set(topic, (members = []));
      this.topicPos.push(members.length);
      members.push(index);
      pmids.push(String(SYNTH_PMID_BASE + index));
    }
    return pmids;
  }

  /**
   * Bumps DateRevised (LR) and, on request, rewrites the abstract or retracts the paper (adds the
   * "Retracted Publication" type) — what a sync sees as a new version. The record's modification
   * date (MDAT, what `datetype=mdat` searches) becomes `mdat`, by default the LR.
   */
  revise(
    pmid: string | number,
    change: { lr: Date; changeAbstract?: boolean; retract?: boolean; mdat?: Date },
  ): void {
    const index = this.indexOf(pmid);
    if (index === undefined) throw new RangeError(`synth: no record ${pmid}`);
    this.lrOverride.set(index, Math.floor(change.lr.getTime() / DAY_MS) * DAY_MS);
    this.mdatOverride.set(index, (change.mdat ?? change.lr).getTime());
    if (change.changeAbstract)
      this.abstractVersion.set(index, (this.abstractVersion.get(index) ?? 0) + 1);
    if (change.retract) this.retracted.add(index);
  }

  /**
   * Indices of the records a query finds: those of the exact term (normalised), else of every
   * term whose words include all the query's words — so "metformin" finds "metformin aging".
   */
  indicesFor(query: string): number[] {
    const norm = normalizeTerm(query);
    if (norm === "") return [];
    let wanted = this.entries.flatMap((e, i) => (e.norm === norm ? [i] : []));
    if (wanted.length === 0) {
      // "metformin AND aging" reads as "metformin aging"; other operators are not modelled.
      const words = norm.split(" ").filter((w) => w !== "and");
      wanted = this.entries.flatMap((e, i) => (words.every((w) => e.words.includes(w)) ? [i] : []));
    }
    if (wanted.length === 0) return [];
    const set = new Set(wanted);
    const out: number[] = [];
    for (let i = 0; i < this.termIdx.length; i++) if (set.has(this.termIdx[i] ?? -1)) out.push(i);
    return out;
  }

  /** The PMIDs ESearch returns for `term` (optionally inside an EDAT window), ascending. */
  pmidsFor(term: string, window: EdatWindow = {}): string[] {
    const from =
      window.edatFrom === undefined ? -Infinity : (parsePeriod(window.edatFrom)?.start ?? NaN);
    const to = window.edatTo === undefined ? Infinity : (parsePeriod(window.edatTo)?.end ?? NaN);
    if (Number.isNaN(from) || Number.isNaN(to))
      throw new RangeError(`synth: bad window ${JSON.stringify(window)}`);
    // Day granularity, like NCBI: a bound inside a day covers the whole day.
    const lo = Math.floor(from / DAY_MS) * DAY_MS;
    const hi = Math.floor(to / DAY_MS) * DAY_MS + DAY_MS - 1;
    return this.indicesFor(term)
      .filter((i) => this.edatOf(i) >= lo && this.edatOf(i) <= hi)
      .map((i) => String(SYNTH_PMID_BASE + i));
  }

  indexOf(pmid: string | number): number | undefined {
    const n = typeof pmid === "number" ? pmid : /^\d+$/.test(pmid.trim()) ? Number(pmid) : NaN;
    const index = n - SYNTH_PMID_BASE;
    return Number.isInteger(index) && index >= 0 && index < this.size ? index : undefined;
  }

  pmidOf(index: number): string {
    return String(SYNTH_PMID_BASE + index);
  }

  has(pmid: string | number): boolean {
    return this.indexOf(pmid) !== undefined;
  }

  record(pmid: string | number): SynthRecord | undefined {
    const index = this.indexOf(pmid);
    return index === undefined ? undefined : this.recordAt(index);
  }

  /** Records for the PMIDs that exist, in the order asked; unknown ones are skipped, as EFetch does. */
  records(pmids: readonly (string | number)[]): SynthRecord[] {
    return pmids.flatMap((p) => {
      const r = this.record(p);
      return r ? [r] : [];
    });
  }

  recordAt(index: number): SynthRecord {
    const topic = at(vocabulary().topics, this.topicOf(index));
    const citationIndex = this.citationIdx[index] ?? index;
    return buildRecord({
      seed: this.seed,
      index,
      pmid: this.pmidOf(index),
      term: at(this.entries, this.termOf(index)).term,
      topic,
      edat: this.edatOf(index),
      citationIndex,
      citationEdat: this.edatOf(citationIndex),
      lrOverride: this.lrOverride.get(index),
      abstractVersion: this.abstractVersion.get(index) ?? 0,
      retract: this.retracted.has(index),
      references: referencesOf(this, index).map((r) => ({
        pmid: this.pmidOf(r),
        citation: shortCitation(this.citationAt(r), null),
      })),
      now: this.now.getTime(),
    });
  }

  /** Journal, volume, pages, dates and first author without building the whole record. */
  citationAt(index: number): SynthCitation {
    const source = this.citationIdx[index] ?? index;
    return citationCore(this.seed, source, this.edatOf(source));
  }

  neighboursOf(pmid: string, limit?: number): { pmid: string; score: number }[] {
    const index = this.indexOf(pmid);
    if (index === undefined) return [];
    return neighbours(this, index, limit).map((n) => ({
      pmid: this.pmidOf(n.index),
      score: n.score,
    }));
  }

  referencesOf(pmid: string): string[] {
    const index = this.indexOf(pmid);
    return index === undefined ? [] : referencesOf(this, index).map((i) => this.pmidOf(i));
  }

  citedByOf(pmid: string): string[] {
    const index = this.indexOf(pmid);
    return index === undefined ? [] : citedBy(this, index).map((i) => this.pmidOf(i));
  }

  // LinkView
  topicOf(index: number): number {
    return this.topicIdx[index] ?? 0;
  }
  termOf(index: number): number {
    return this.termIdx[index] ?? 0;
  }
  edatOf(index: number): number {
    return this.edats[index] ?? 0;
  }
  /** Create date (CRDT): the EDAT unless the record arrived back-dated. */
  crdtOf(index: number): number {
    return this.crdtOverride.get(index) ?? this.edatOf(index);
  }
  /** Modification date (MDAT): the last revise(), else the create date. */
  mdatOf(index: number): number {
    return this.mdatOverride.get(index) ?? this.crdtOf(index);
  }
  members(topic: number): readonly number[] {
    return this.topicMembers.get(topic) ?? [];
  }
  positionOf(index: number): number {
    return this.topicPos[index] ?? 0;
  }

  private entryFor(term: string): number {
    const norm = normalizeTerm(term);
    const found = this.entries.findIndex((e) => e.norm === norm);
    if (found >= 0) return found;
    this.entries.push({ term, norm, words: norm.split(" "), topics: topicsFor(this.seed, norm) });
    return this.entries.length - 1;
  }
}

/**
 * A term's topics: those whose key the term names ("long covid"), else those an alias names
 * ("crispr therapy" → gene editing), else three chosen by the term's hash.
 */
function topicsFor(seed: number, norm: string): number[] {
  const topics = vocabulary().topics;
  const padded = ` ${norm} `;
  const named = (phrase: string) => padded.includes(` ${phrase.toLowerCase()} `);
  const byKey = topics.flatMap((t, i) => (named(t.key) ? [i] : []));
  if (byKey.length > 0) return byKey;
  const byAlias = topics.flatMap((t, i) => (t.aliases.some(named) ? [i] : []));
  if (byAlias.length > 0) return byAlias;
  return Rng.of(mix(seed, termKey(norm))).sample(
    topics.map((_, i) => i),
    3,
  );
}

export function createSynthCorpus(opts: SynthCorpusOptions): SynthCorpus {
  return new SynthCorpus(opts);
}
