/**
 * A synthetic NCBI: turns an E-utilities request (utility + merged query/form parameters) into
 * the reply NCBI would send, from a SynthCorpus. Plug it into the fake E-utilities server as a
 * route, or into the offline demo. Errors come back the way NCBI sends them — HTTP 200 with an
 * <ERROR> element — so the client's real error handling is what gets exercised.
 *
 *   const fake = await startFakeEutils({ routes: [synthHandler(demoCorpus())] });
 */
import { CitationIndex, espellReply } from "./synth-citmatch.js";
import { PUBMED_REACH, REACH_ERROR, SynthHistory, runSearch, searchSpec } from "./synth-esearch.js";
import { medlineText } from "./synth-medline.js";
import { QuerySyntaxError } from "./pubmed-query.js";
import { synthOtherDbs } from "./synth-ncbi-dbs.js";
import {
  type ELinkSet,
  einfoXml,
  elinkXml,
  entrezErrorXml,
  esearchXml,
  esummaryXml,
} from "./synth-replies.js";
import { articleSetOf, articleSetXml } from "./synth-xml.js";
import { type SynthCorpus, createSynthCorpus } from "./synth.js";

export interface SynthRequest {
  /** "esearch", "efetch", … ("esearch.fcgi" and "ecitmatch.cgi" are accepted too). */
  utility: string;
  params: Record<string, string>;
}

export interface SynthReply {
  status?: number;
  body: string;
  contentType?: string;
}

const XML = "text/xml; charset=UTF-8";
const TEXT = "text/plain; charset=UTF-8";
const xml = (body: string): SynthReply => ({ body, contentType: XML });
const text = (body: string): SynthReply => ({ body, contentType: TEXT });

function idList(raw: string | undefined): string[] {
  return (raw ?? "").split(/[\s,]+/).filter((id) => id !== "");
}

function int(raw: string | undefined, fallback: number): number {
  return raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw) : fallback;
}

export interface SynthHandlerOptions {
  /** A record's `<PubmedArticle>` rendered in advance (a benchmark's stand-in answers EFetch
   * from these, so its replies cost what NCBI's do, not the generator's time); undefined: render. */
  renderedArticle?: (pmid: string) => string | undefined;
  /** Records of one result set handed out (default PubMed's 9,999); a test sets fewer. */
  reach?: number;
}

export function synthHandler(
  corpus: SynthCorpus,
  opts: SynthHandlerOptions = {},
): (req: SynthRequest) => SynthReply | undefined {
  const history = new SynthHistory(corpus.seed);
  const citations = new CitationIndex(corpus);
  const now = corpus.now.getTime();
  // db=pmc (JATS) and db=mesh, for the reading tools; every other db is pubmed or refused.
  const otherDbs = synthOtherDbs(corpus);
  const reach = opts.reach ?? PUBMED_REACH;

  /** Ids named by `id`, or a page of a stored result set (capped at PubMed's reach). */
  const target = (p: Record<string, string>, root: string): string[] | SynthReply => {
    if (p.WebEnv && p.query_key) {
      const stored = history.get(p.WebEnv, p.query_key);
      if (!stored) return xml(entrezErrorXml(root, `Unable to obtain query #${p.query_key}`));
      const start = int(p.retstart, 0);
      if (start > reach - 1 && stored.length > reach) return xml(entrezErrorXml(root, REACH_ERROR));
      const end = Math.min(start + int(p.retmax, reach), reach);
      return stored.slice(start, Math.max(start, end));
    }
    const ids = idList(p.id);
    if (ids.length === 0) {
      const message =
        root === "eSummaryResult"
          ? "Neither query_key nor id specified"
          : "Empty id list - nothing todo";
      return xml(entrezErrorXml(root, message));
    }
    return ids;
  };

  const badDb = (p: Record<string, string>, root: string, name = "db"): SynthReply | undefined => {
    const db = p[name];
    return db !== undefined && db !== "" && db.toLowerCase() !== "pubmed"
      ? xml(entrezErrorXml(root, `Invalid db name specified: ${db}`))
      : undefined;
  };

  const esearch = (p: Record<string, string>): SynthReply => {
    const root = "eSearchResult";
    const refused = badDb(p, root);
    if (refused) return refused;
    if (!p.term?.trim())
      return xml(entrezErrorXml(root, "Empty term and query_key - nothing todo"));
    const spec = searchSpec(p, now);
    if (typeof spec === "string") return xml(entrezErrorXml(root, spec));
    let found: ReturnType<typeof runSearch>;
    try {
      found = runSearch(corpus, spec);
    } catch (err) {
      if (!(err instanceof QuerySyntaxError)) throw err;
      return xml(entrezErrorXml(root, err.message));
    }
    const count = found.pmids.length;
    const kept =
      p.usehistory === "y" ? history.store(found.pmids, p.WebEnv || undefined) : undefined;
    if (p.rettype === "count")
      return xml(
        esearchXml({ count, retStart: 0, ids: [], queryTranslation: "", countOnly: true }),
      );
    const retStart = int(p.retstart, 0);
    if (retStart > reach - 1 && count > reach) return xml(entrezErrorXml(root, REACH_ERROR));
    const retMax = int(p.retmax, 20);
    const end = Math.min(retStart + retMax, reach);
    const ids = found.pmids.slice(retStart, Math.max(retStart, end));
    const clamped = retStart + retMax > reach && count > end;
    return xml(
      esearchXml({
        count,
        retStart,
        ids,
        queryTranslation: found.queryTranslation,
        ...kept,
        phrasesNotFound: found.unknownPhrase === null ? [] : [found.unknownPhrase],
        outputMessages: [
          ...(found.unknownPhrase === null ? [] : ["No items found."]),
          ...(clamped
            ? [`Restrictions achieved. start and count adjusted to ${retStart}, ${ids.length}`]
            : []),
        ],
      }),
    );
  };

  const efetch = (p: Record<string, string>): SynthReply => {
    const root = "eFetchResult";
    const refused = badDb(p, root);
    if (refused) return refused;
    const ids = target(p, root);
    if (!Array.isArray(ids)) return ids;
    const rettype = (p.rettype ?? "").toLowerCase();
    if (rettype === "uilist")
      return text(
        ids
          .filter((id) => corpus.has(id))
          .map((id) => `${id}\n`)
          .join(""),
      );
    if (rettype === "medline" || (p.retmode ?? "").toLowerCase() === "text")
      return text(medlineText(corpus.records(ids)));
    const rendered = opts.renderedArticle;
    if (rendered) return xml(articleSetOf(ids.flatMap((id) => rendered(id) ?? [])));
    return xml(articleSetXml(corpus.records(ids)));
  };

  const esummary = (p: Record<string, string>): SynthReply => {
    const root = "eSummaryResult";
    const refused = badDb(p, root);
    if (refused) return refused;
    const ids = target(p, root);
    if (!Array.isArray(ids)) return ids;
    return xml(esummaryXml(ids.map((id) => corpus.record(id) ?? id)));
  };

  const elink = (p: Record<string, string>): SynthReply => {
    const root = "eLinkResult";
    const refused = badDb(p, root, "dbfrom") ?? badDb(p, root);
    if (refused) return refused;
    const ids = idList(p.id);
    if (ids.length === 0) return xml(entrezErrorXml(root, "Empty id list - nothing todo"));
    const known = ids.filter((id) => corpus.has(id));
    const scored = (p.cmd ?? "").toLowerCase() === "neighbor_score";
    const wanted = p.linkname
      ? [p.linkname]
      : ["pubmed_pubmed", "pubmed_pubmed_citedin", "pubmed_pubmed_refs"];
    const linkSets: ELinkSet[] = wanted.map((linkName) => {
      if (linkName === "pubmed_pubmed") {
        const best = new Map<string, number>();
        for (const id of known) {
          for (const n of corpus.neighboursOf(id))
            best.set(n.pmid, Math.max(best.get(n.pmid) ?? 0, n.score));
        }
        const links = [...best].sort((a, b) => b[1] - a[1] || Number(a[0]) - Number(b[0]));
        return { linkName, links: links.map(([id, score]) => (scored ? { id, score } : { id })) };
      }
      const pick = linkName === "pubmed_pubmed_citedin" ? corpus.citedByOf : corpus.referencesOf;
      const links = [...new Set(known.flatMap((id) => pick.call(corpus, id)))];
      return { linkName, links: links.map((id) => ({ id })) };
    });
    return xml(elinkXml({ dbFrom: "pubmed", ids, linkSets }));
  };

  const utilities: Record<string, (p: Record<string, string>) => SynthReply> = {
    esearch,
    efetch,
    esummary,
    elink,
    espell: (p) => badDb(p, "eSpellResult") ?? xml(espellReply(p.term ?? "")),
    ecitmatch: (p) => text(citations.reply(p.bdata ?? "")),
    einfo: (p) =>
      badDb(p, "eInfoResult") ??
      xml(einfoXml(p.db ? { count: corpus.size, lastUpdate: corpus.now } : null)),
  };

  return (req) => {
    const name = req.utility
      .replace(/^.*\//, "")
      .replace(/\.f?cgi$/, "")
      .toLowerCase();
    const run = Object.hasOwn(utilities, name) ? utilities[name] : undefined;
    return run ? (otherDbs(name, req.params) ?? run(req.params)) : undefined;
  };
}

/** The offline demo's corpus: three topics, 220 records, Entrez dates 2019–2025. */
export const DEMO_TERMS = [
  { term: "metformin aging", count: 60, edatFrom: "2019-01-01", edatTo: "2025-12-31" },
  { term: "crispr therapy", count: 40, edatFrom: "2019-01-01", edatTo: "2025-12-31" },
  { term: "long covid", count: 120, edatFrom: "2020-09-01", edatTo: "2025-12-31" },
] as const;

/**
 * The demo's labelled review (src/devtools/demo-review.ts): 400 records that the search `term`
 * finds, as ten corpus terms that each hold its words plus a topic's key (ESearch matches a term
 * whose words include the query's). Records of `relevantTopic` (exercise in physical inactivity,
 * 10 %) answer the review's question; the others are muscle strength in a named disease. None of
 * these topics is one of DEMO_TERMS', so their links (similar articles, cited-by) stay as they were.
 */
export const DEMO_REVIEW = {
  term: "muscle strength",
  relevantTopic: "exercise",
  batches: [
    ["muscle strength and exercise in sedentary adults", 40],
    ["muscle strength in heart failure", 60],
    ["muscle strength after stroke", 50],
    ["muscle strength in osteoporosis", 50],
    ["muscle strength in Parkinson disease", 40],
    ["muscle strength in chronic kidney disease", 40],
    ["muscle strength in obesity", 40],
    ["muscle strength in sepsis", 30],
    ["muscle strength in chronic pain", 30],
    ["muscle strength in depression", 20],
  ] as const,
};

/**
 * The demo's corpus: DEMO_TERMS' records, and with `review` DEMO_REVIEW's after them (appended,
 * so the first 220 records are the same either way; tests use the three-term corpus).
 */
export function demoCorpus(opts: { review?: boolean } = {}): SynthCorpus {
  const review = opts.review
    ? DEMO_REVIEW.batches.map(([term, count]) => ({
        term,
        count,
        edatFrom: "2019-01-01",
        edatTo: "2025-12-31",
      }))
    : [];
  return createSynthCorpus({
    seed: 20_250_101,
    terms: [...DEMO_TERMS.map((t) => ({ ...t })), ...review],
    now: new Date("2026-01-15T12:00:00Z"),
  });
}
