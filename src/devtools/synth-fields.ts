/**
 * Field-tagged ESearch terms over a synthetic corpus — `"<doi>"[aid]`, `word[ti]` AND-groups,
 * `<pmid>[pmid]`, joined by OR (pubmed-query.ts's syntax, pubmed-fields.ts's matching) — the
 * queries pubmed_verify_references sends. A query with no such tag keeps the corpus's own
 * matching (synth.ts `indicesFor`). A title or DOI search reads every record once, then keeps its
 * folded fields until the record is revised; a PMID clause needs no record at all.
 */
import {
  matchTerm,
  prepareFields,
  type PreparedFields,
  type SearchFields,
} from "./pubmed-fields.js";
import { evaluate, parseQuery, queryTerms } from "./pubmed-query.js";
import type { SynthRecord } from "./synth-types.js";
import type { SynthCorpus } from "./synth.js";

/** A tag this module answers; any of them turns a term into a field search. */
const FIELD_TAG =
  /\[(?:ti|title|tiab|title\/abstract|aid|doi|pmid|uid|au|1au|ta|journal|dp|vi|ip|pg)\]/i;

export function isFieldQuery(term: string): boolean {
  return FIELD_TAG.test(term);
}

export function synthSearchFields(r: SynthRecord): SearchFields {
  const c = r.citation;
  return {
    pmid: r.pmid,
    aids: r.doi === null ? [] : [r.doi],
    title: r.title,
    // The record's search term and keywords count as its text, as they do for untagged terms.
    abstract: [...r.abstract.map((s) => s.text), r.term, ...r.keywords].join(" "),
    authors: r.authors.map((a) => ({
      lastName: a.lastName,
      initials: a.initials,
      collectiveName: a.collectiveName,
    })),
    journals: [c.journal.title, c.journal.iso],
    year: String(c.pubDate.year),
    volume: c.volume,
    issue: c.issue,
    pages: c.medlinePgn,
  };
}

interface Cached {
  mdat: number;
  fields: PreparedFields;
}

const caches = new WeakMap<SynthCorpus, Map<number, Cached>>();

function fieldsAt(corpus: SynthCorpus, index: number): PreparedFields {
  let cache = caches.get(corpus);
  if (!cache) caches.set(corpus, (cache = new Map()));
  const mdat = corpus.mdatOf(index);
  const hit = cache.get(index);
  if (hit && hit.mdat === mdat) return hit.fields;
  const fields = prepareFields(synthSearchFields(corpus.recordAt(index)));
  cache.set(index, { mdat, fields });
  return fields;
}

/** Indices of the records a field-tagged term finds; throws QuerySyntaxError on a bad term. */
export function fieldSearch(corpus: SynthCorpus, term: string): number[] {
  const query = parseQuery(term);
  const terms = queryTerms(query);
  // Only PMIDs asked: test just those records, not the whole corpus.
  const candidates = terms.every((t) => t.field === "pmid")
    ? [...new Set(terms.map((t) => corpus.indexOf(t.text.trim())))]
        .filter((i): i is number => i !== undefined)
        .sort((a, b) => a - b)
    : Array.from({ length: corpus.size }, (_, i) => i);
  return candidates.filter((i) =>
    evaluate(query, (t) =>
      t.field === "pmid" ? t.text.trim() === corpus.pmidOf(i) : matchTerm(fieldsAt(corpus, i), t),
    ),
  );
}
