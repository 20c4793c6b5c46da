/**
 * A PubMed made of real records: every PubmedArticle and PubmedBookArticle of the recorded EFetch
 * files that EFETCH_FEATURES.tsv lists (third-party data, read from the folder the caller names,
 * never copied into the repository), answering ESearch, EFetch and ECitMatch as NCBI does for
 * those records. Tests and the bench serve it through the fake E-utilities server:
 *
 *   const pubmed = loadFixturePubmed(EUTILS_FIXTURES);
 *   const fake = await startFakeEutils({ routes: [fixturePubmedRoute(pubmed)] });
 *
 * ESearch understands pubmed-query.ts's syntax and answers in PubMed's relevance order, which for
 * these stand-ins is PMID descending. EFetch hands back each record's original XML block. ECitMatch
 * answers a PMID when journal (title or ISO abbreviation, case and punctuation aside), year,
 * volume and first page agree with exactly one record, and the first author's surname too when
 * given; an empty column constrains nothing, as at NCBI ("bioinformatics|2015|31|||" is AMBIGUOUS).
 * Requests it does not model (other databases, history, other formats) get no reply (undefined),
 * so another route can answer or the fake server's 404 shows the gap.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ECitMatchCitation } from "../ncbi/parse/ecitmatch.js";
import { parseEFetch } from "../ncbi/parse/efetch.js";
import type { Article } from "../ncbi/types.js";
import {
  firstPage,
  foldWords,
  matchTerm,
  prepareFields,
  type PreparedFields,
  type SearchFields,
} from "./pubmed-fields.js";
import { QuerySyntaxError, evaluate, parseQuery } from "./pubmed-query.js";
import { ecitmatchText, entrezErrorXml, esearchXml } from "./synth-replies.js";
import { articleSetOf } from "./synth-xml.js";

/** The list of recorded EFetch files, in the fixtures folder. */
export const FIXTURE_INDEX = "EFETCH_FEATURES.tsv";

export interface FixtureRecord {
  pmid: string;
  /** The record's `<PubmedArticle>` or `<PubmedBookArticle>` element exactly as recorded. */
  xml: string;
  article: Article;
  /** The recorded file it came from, relative to the fixtures folder. */
  file: string;
}

/** One ECitMatch line as asked (src/ncbi/parse/ecitmatch.ts), without the caller's key. */
export type CitationQuery = Omit<ECitMatchCitation, "key">;

export interface FixtureRequest {
  utility: string;
  params: Record<string, string>;
}

export interface FixtureReply {
  status?: number;
  body: string;
  contentType?: string;
}

export interface FixturePubmed {
  /** Records in the order first met; a PMID recorded twice is kept once (its first copy). */
  readonly records: readonly FixtureRecord[];
  readonly size: number;
  record(pmid: string): FixtureRecord | undefined;
  /** Every PMID a term finds, PMID descending; throws QuerySyntaxError on a malformed term. */
  search(term: string): string[];
  /** A PMID, "NOT_FOUND", "NOT_FOUND;INVALID_JOURNAL" or "AMBIGUOUS (n citations)". */
  citationMatch(query: CitationQuery): string;
}

const BLOCK = /<(PubmedArticle|PubmedBookArticle)\b[^>]*>[\s\S]*?<\/\1>/g;

/** Reads the recorded files `eutilsDir`/EFETCH_FEATURES.tsv lists; throws if one is missing. */
export function loadFixturePubmed(eutilsDir: string): FixturePubmed {
  const files = readFileSync(join(eutilsDir, FIXTURE_INDEX), "utf8")
    .split(/\r?\n/)
    .slice(1)
    .map((line) => line.split("\t")[0] ?? "")
    .filter((file) => file !== "");
  const records: FixtureRecord[] = [];
  const byPmid = new Map<string, FixtureRecord>();
  for (const file of files) {
    const text = readFileSync(join(eutilsDir, file), "utf8");
    for (const [xml] of text.matchAll(BLOCK)) {
      // One block at a time, so each parsed article is known to come from its own block.
      const [article] = parseEFetch(`<PubmedArticleSet>${xml}</PubmedArticleSet>`);
      if (!article || article.pmid === "" || byPmid.has(article.pmid)) continue;
      const record = { pmid: article.pmid, xml, article, file };
      records.push(record);
      byPmid.set(article.pmid, record);
    }
  }
  return fixturePubmedOf(records);
}

/** The stand-in over records already loaded (tests may pass a subset). */
export function fixturePubmedOf(records: readonly FixtureRecord[]): FixturePubmed {
  const byPmid = new Map(records.map((r) => [r.pmid, r]));
  const prepared: PreparedFields[] = [...records]
    .sort((a, b) => Number(b.pmid) - Number(a.pmid))
    .map((r) => prepareFields(searchFieldsOf(r.article)));
  const cited = records.map((r) => ({ pmid: r.pmid, keys: journalKeys(r.article), a: r.article }));
  const knownJournals = new Set(cited.flatMap((c) => [...c.keys]));

  const citationMatch = (q: CitationQuery): string => {
    const journal = journalKey(q.journal);
    const page = firstPage(q.firstPage);
    const author = foldWords(q.authorName).join(" ");
    const given = [journal, q.year.trim(), q.volume.trim(), page, author];
    if (given.every((v) => v === "")) return "NOT_FOUND";
    const hits = cited.filter(({ keys, a }) => {
      const j = a.journalInfo;
      if (journal !== "" && !keys.has(journal)) return false;
      if (q.year.trim() !== "" && j.publicationDate.year !== q.year.trim()) return false;
      if (
        q.volume.trim() !== "" &&
        (j.volume ?? "").toLowerCase() !== q.volume.trim().toLowerCase()
      )
        return false;
      if (page !== "" && firstPage(j.pages) !== page) return false;
      if (author === "") return true;
      const first = a.authors[0];
      const surname = foldWords(first?.lastName ?? first?.collectiveName ?? "").join(" ");
      return surname !== "" && (author === surname || author.startsWith(`${surname} `));
    });
    if (hits.length === 1) return hits[0]?.pmid ?? "NOT_FOUND";
    if (hits.length > 1) return `AMBIGUOUS (${hits.length} citations)`;
    return journal !== "" && !knownJournals.has(journal)
      ? "NOT_FOUND;INVALID_JOURNAL"
      : "NOT_FOUND";
  };

  return {
    records,
    size: records.length,
    record: (pmid) => byPmid.get(pmid),
    search: (term) => {
      const query = parseQuery(term);
      return prepared
        .filter((p) => evaluate(query, (t) => matchTerm(p, t)))
        .map((p) => p.fields.pmid);
    },
    citationMatch,
  };
}

/** What ESearch can see of an article. */
export function searchFieldsOf(a: Article): SearchFields {
  const j = a.journalInfo;
  return {
    pmid: a.pmid,
    aids: a.doi === null ? [] : [a.doi],
    title: a.title,
    abstract: a.abstractText,
    authors: a.authors,
    journals: [j.title, j.isoAbbreviation].filter((n): n is string => n !== null),
    year: j.publicationDate.year,
    volume: j.volume,
    issue: j.issue,
    pages: j.pages,
  };
}

/**
 * A journal name as ECitMatch compares it: folded words, no leading "the", no "and" (so "&"
 * and "and" agree).
 */
export function journalKey(name: string): string {
  const words = foldWords(name).filter((w) => w !== "and");
  if (words[0] === "the") words.shift();
  return words.join(" ");
}

/**
 * The names a journal answers to: full title and ISO abbreviation, each also without its
 * parenthesised place ("(San Diego, Calif. : 1997)") and without a subtitle after " : ", "; " or
 * " = ", which citations usually leave out.
 */
function journalKeys(a: Article): Set<string> {
  const keys = new Set<string>();
  for (const name of [a.journalInfo.title, a.journalInfo.isoAbbreviation]) {
    if (name === null) continue;
    const bare = name.replace(/\s*\([^)]*\)/g, "").trim();
    const main = bare.split(/\s+[:=]\s+|;\s+/)[0] ?? bare;
    for (const n of [name, bare, main]) if (journalKey(n) !== "") keys.add(journalKey(n));
  }
  return keys;
}

const XML = "text/xml; charset=UTF-8";
const TEXT = "text/plain; charset=UTF-8";

/** The stand-in as a fake E-utilities route (structurally a `Route` of __tests__/helpers). */
export function fixturePubmedRoute(
  pubmed: FixturePubmed,
): (req: FixtureRequest) => FixtureReply | undefined {
  const int = (raw: string | undefined, fallback: number) =>
    raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw) : fallback;

  const esearch = (p: Record<string, string>): FixtureReply => {
    const root = "eSearchResult";
    const term = p.term?.trim() ?? "";
    if (term === "")
      return {
        body: entrezErrorXml(root, "Empty term and query_key - nothing todo"),
        contentType: XML,
      };
    let pmids: string[];
    try {
      pmids = pubmed.search(term);
    } catch (err) {
      if (!(err instanceof QuerySyntaxError)) throw err;
      return { body: entrezErrorXml(root, err.message), contentType: XML };
    }
    const count = pmids.length;
    const retStart = int(p.retstart, 0);
    const ids = p.rettype === "count" ? [] : pmids.slice(retStart, retStart + int(p.retmax, 20));
    const body = esearchXml({
      count,
      retStart,
      ids,
      queryTranslation: term,
      countOnly: p.rettype === "count",
      outputMessages: count === 0 ? ["No items found."] : [],
    });
    return { body, contentType: XML };
  };

  const efetch = (p: Record<string, string>): FixtureReply | undefined => {
    const retmode = (p.retmode ?? "xml").toLowerCase();
    const rettype = (p.rettype ?? "").toLowerCase();
    if (retmode !== "xml" || !["", "xml", "full", "abstract"].includes(rettype)) return undefined;
    if (p.WebEnv || p.query_key) return undefined;
    const ids = [...new Set((p.id ?? "").split(/[\s,]+/).filter((id) => id !== ""))];
    if (ids.length === 0)
      return {
        body: entrezErrorXml("eFetchResult", "Empty id list - nothing todo"),
        contentType: XML,
      };
    const blocks = ids.flatMap((id) => pubmed.record(id)?.xml ?? []);
    return { body: articleSetOf(blocks.map((b) => `${b}\n`)), contentType: XML };
  };

  const ecitmatch = (p: Record<string, string>): FixtureReply => {
    const lines = (p.bdata ?? "")
      .split(/\r\n|\r|\n/)
      .map((l) => l.trim())
      .filter((l) => l !== "")
      .map((request) => {
        const [journal = "", year = "", volume = "", page = "", authorName = ""] =
          request.split("|");
        const answer = pubmed.citationMatch({ journal, year, volume, firstPage: page, authorName });
        return { request, answer };
      });
    return { body: ecitmatchText(lines), contentType: TEXT };
  };

  return (req) => {
    const utility = req.utility
      .replace(/^.*\//, "")
      .replace(/\.f?cgi$/, "")
      .toLowerCase();
    const db = (req.params.db ?? "pubmed").toLowerCase();
    if (db !== "pubmed") return undefined;
    if (utility === "esearch") return esearch(req.params);
    if (utility === "efetch") return efetch(req.params);
    if (utility === "ecitmatch") return ecitmatch(req.params);
    return undefined;
  };
}
