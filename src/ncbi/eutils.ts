/**
 * NCBI's E-utilities as the product uses them: one typed method per utility, each sending NCBI's
 * documented parameters (https://www.ncbi.nlm.nih.gov/books/NBK25499/) and reading the reply with
 * its parser (./parse/*), so that no caller builds a request or picks a parser. How a request is
 * sent (limiter, retries, deadline, cache) is the subclass's: EutilsClient (./client.ts).
 *
 *   const { value: found, url } = await eutils.esearch({ db: "pubmed", term, retmax: 20 }, { signal });
 *   const { value: articles } = await eutils.efetchArticles({ pmids: found.ids }, { signal });
 *
 * Replies read here are parsed on the calling thread (they are small), except EFetch's articles,
 * which a thread of their own may read (./articles.ts) and which are kept beside the cached body.
 */
import { ValidationError } from "../errors.js";
import { quoted } from "../excerpt.js";
import { EFETCH_ARTICLES } from "./articles.js";
import { normalizePmcid } from "./ids.js";
import type {
  BodyParser,
  CallOptions,
  EutilsBytes,
  EutilsResponse,
  IdconvResponse,
  ParsedResponse,
} from "./calls.js";
import {
  classifyIds,
  groupIdconvRequests,
  parseIdconvReply,
  type ClassifiedId,
  type ConvertedId,
} from "./idconv.js";
import { formatECitMatchBdata, parseECitMatch, type ECitMatchCitation } from "./parse/ecitmatch.js";
import { parseEInfo } from "./parse/einfo.js";
import { parseELink } from "./parse/elink.js";
import { parseESearch } from "./parse/esearch.js";
import { parseESpell } from "./parse/espell.js";
import { parseESummary } from "./parse/esummary.js";
import { parseMeshSummary, type MeshSummary } from "./parse/mesh.js";
import type {
  Article,
  ECitMatchLine,
  EInfoResult,
  ELinkResult,
  ESearchResult,
  ESpellResult,
  ESummaryResult,
  Params,
  Utility,
} from "./types.js";

/** ESearch's parameters as NCBI names them; they are sent in the order given. */
export type ESearchParams = {
  db: "pubmed" | "mesh";
  term: string;
  retmax?: number;
  retstart?: number;
  /** NCBI's sort name ("relevance", "pub_date", "Author", "JournalName"). */
  sort?: string;
  /** "count": the count alone, no ids. */
  rettype?: "count";
  datetype?: string;
  mindate?: string;
  maxdate?: string;
  /** "y": the result is kept on NCBI's history server (webEnv, queryKey); never cached. */
  usehistory?: "y";
};

/** PubMed records by PMID, or a page of a search kept on NCBI's history server. */
export type EFetchTarget =
  | { pmids: readonly string[] }
  | { webEnv: string; queryKey: string; retstart: number; retmax: number };

/** ELink from PubMed records to PubMed records of one kind (their link sets are merged). */
export interface ELinkQuery {
  ids: readonly string[];
  /** "pubmed_pubmed" (similar), "pubmed_pubmed_citedin", "pubmed_pubmed_refs", … */
  linkname: string;
  /** "neighbor_score" asks for relevance scores, which only similar-article links carry. */
  cmd: "neighbor" | "neighbor_score";
}

export interface MeshSummaryOptions extends CallOptions {
  /** Entry terms kept per record (parseMeshSummary's default otherwise). */
  maxEntryTerms?: number;
}

export interface ConvertOptions {
  signal?: AbortSignal;
  /** Named in validation messages ("pmcids[2] …"); default "ids". */
  field?: string;
  /** "pmcid" reads bare digits as PMCIDs. */
  hint?: "pmid" | "pmcid";
}

export abstract class Eutils {
  /** One E-utilities request; the reply checked (./detect.ts) but not parsed. */
  abstract request(utility: Utility, params: Params, opts?: CallOptions): Promise<EutilsResponse>;

  /** `request` for a reply another thread reads: its bytes, never decoded here nor cached. */
  abstract requestBytes(
    utility: Utility,
    params: Params,
    opts?: Omit<CallOptions, "noCache">,
  ): Promise<EutilsBytes>;

  /** One PMC ID Converter request (./idconv.ts builds and reads them). */
  abstract idconv(params: Params, opts?: CallOptions): Promise<IdconvResponse>;

  /** `request`, parsed by `parser`. Callers must not mutate the value: a cache may share it. */
  async requestParsed<T>(
    utility: Utility,
    params: Params,
    parser: BodyParser<T>,
    opts: CallOptions = {},
  ): Promise<ParsedResponse<T>> {
    const res = await this.request(utility, params, opts);
    return { value: await parser.parse(res.body), ...reply(res) };
  }

  /** ESearch: the count, ids, query translation, history keys and NCBI's warnings. */
  async esearch(params: ESearchParams, opts?: CallOptions): Promise<ParsedResponse<ESearchResult>> {
    return this.read("esearch", { ...params }, parseESearch, opts);
  }

  /** ESummary version 2.0 of PubMed records: brief summaries, and NCBI's per-uid errors. */
  async esummary(
    pmids: readonly string[],
    opts?: CallOptions,
  ): Promise<ParsedResponse<ESummaryResult>> {
    const params = { db: "pubmed", id: [...pmids], version: "2.0" };
    return this.read("esummary", params, parseESummary, opts);
  }

  /** ESummary version 2.0 of MeSH records (db=mesh uids, from an ESearch of db=mesh). */
  async meshSummary(
    uids: readonly string[],
    opts: MeshSummaryOptions = {},
  ): Promise<ParsedResponse<MeshSummary>> {
    const { maxEntryTerms, ...call } = opts;
    const params = { db: "mesh", id: [...uids], version: "2.0" };
    return this.read("esummary", params, (body) => parseMeshSummary(body, { maxEntryTerms }), call);
  }

  /**
   * EFetch of PubMed records as articles (parseEFetch, a long reply maybe in another thread:
   * ./articles.ts), the parse kept with the cached body by EutilsClient.
   */
  async efetchArticles(
    target: EFetchTarget,
    opts?: CallOptions,
  ): Promise<ParsedResponse<Article[]>> {
    return this.requestParsed("efetch", efetchParams(target, "xml"), EFETCH_ARTICLES, opts);
  }

  /** EFetch of PubMed records as NCBI's own text: the PubmedArticleSet XML, or MEDLINE. */
  async efetchText(
    target: EFetchTarget,
    format: "xml" | "medline",
    opts?: CallOptions,
  ): Promise<EutilsResponse> {
    return this.request("efetch", efetchParams(target, format === "xml" ? "xml" : "text"), opts);
  }

  /** EFetch of PubMed records' XML as bytes, for another thread to read (readEFetchArticles). */
  async efetchBytes(
    target: EFetchTarget,
    opts?: Omit<CallOptions, "noCache">,
  ): Promise<EutilsBytes> {
    return this.requestBytes("efetch", efetchParams(target, "xml"), opts);
  }

  /**
   * EFetch db=pmc for PMCIDs ("PMC3040717", "pmc3040717" or "3040717"): the JATS
   * `<pmc-articleset>`, as text. JATS is read by src/jats (a part above this one: Europe PMC
   * serves it too).
   */
  async efetchPmc(pmcids: string | readonly string[], opts?: CallOptions): Promise<EutilsResponse> {
    const list = typeof pmcids === "string" ? [pmcids] : [...pmcids];
    const id = list.map(pmcDigits).join(",");
    return this.request("efetch", { db: "pmc", id, retmode: "xml" }, opts);
  }

  /** ELink between PubMed records: the link sets by link name, with scores when asked. */
  async elink(query: ELinkQuery, opts?: CallOptions): Promise<ParsedResponse<ELinkResult>> {
    const { ids, linkname, cmd } = query;
    const params = { dbfrom: "pubmed", db: "pubmed", id: ids.join(","), linkname, cmd };
    return this.read("elink", params, parseELink, opts);
  }

  /** ESpell of a PubMed query: NCBI's corrected query (empty when it has none). */
  async espell(term: string, opts?: CallOptions): Promise<ParsedResponse<ESpellResult>> {
    return this.read("espell", { db: "pubmed", term }, parseESpell, opts);
  }

  /** ECitMatch: one answer line per citation, by the citation's key. */
  async ecitmatch(
    citations: readonly ECitMatchCitation[],
    opts?: CallOptions,
  ): Promise<ParsedResponse<ECitMatchLine[]>> {
    const params = { db: "pubmed", retmode: "xml", bdata: formatECitMatchBdata(citations) };
    return this.read("ecitmatch", params, parseECitMatch, opts);
  }

  /** EInfo of a database: its count, last update, search fields and link names. */
  async einfo(db = "pubmed", opts?: CallOptions): Promise<ParsedResponse<EInfoResult>> {
    return this.read("einfo", { db }, parseEInfo, opts);
  }

  /**
   * The PMC ID Converter for up to 200 identifiers of any mix of types: classified (VALIDATION
   * for unreadable ones, all named at once), grouped one request per type, and answered per id in
   * the caller's order (duplicates once). Ids the converter cannot convert carry status "error".
   */
  async convertIds(
    ids: readonly (string | number)[],
    opts: ConvertOptions = {},
  ): Promise<ConvertedId[]> {
    return this.convertClassified(classifyIds(ids, opts.field, opts.hint), opts.signal);
  }

  /** As convertIds, for ids already classified (./idconv.ts classifyIds). */
  async convertClassified(
    ids: readonly ClassifiedId[],
    signal?: AbortSignal,
  ): Promise<ConvertedId[]> {
    const answers = new Map<ClassifiedId, ConvertedId>();
    for (const request of groupIdconvRequests(ids)) {
      const res = await this.idconv(request.params, { signal });
      const records = parseIdconvReply(res.body, request.ids);
      request.ids.forEach((id, i) => {
        const record = records[i];
        if (record) answers.set(id, record);
      });
    }
    return ids.map(
      (id) => answers.get(id) ?? { input: id.input, status: "error", errmsg: "not converted" },
    );
  }

  /** `request`, read by `parse` on this thread (a reply of a few kB). */
  private async read<T>(
    utility: Utility,
    params: Params,
    parse: (body: string) => T,
    opts?: CallOptions,
  ): Promise<ParsedResponse<T>> {
    const res = await this.request(utility, params, opts);
    return { value: parse(res.body), ...reply(res) };
  }
}

function reply(res: EutilsResponse): Omit<ParsedResponse<unknown>, "value"> {
  return { url: res.url, method: res.method, fromCache: res.fromCache };
}

/** EFetch db=pubmed parameters; `retmode` "text" is MEDLINE. */
function efetchParams(target: EFetchTarget, retmode: "xml" | "text"): Params {
  const base = { db: "pubmed", retmode, ...(retmode === "text" ? { rettype: "medline" } : {}) };
  if ("pmids" in target) return { ...base, id: [...target.pmids] };
  return {
    ...base,
    WebEnv: target.webEnv,
    query_key: target.queryKey,
    retstart: target.retstart,
    retmax: target.retmax,
  };
}

/** "PMC3040717", "pmc3040717" or "3040717" → "3040717" (EFetch db=pmc takes the digits). */
function pmcDigits(pmcid: string): string {
  const normal = normalizePmcid(pmcid);
  if (normal === null) {
    throw new ValidationError(
      `${quoted(pmcid)} is not a PMCID: "PMC" + digits, e.g. "PMC3040717".`,
    );
  }
  return normal.slice("PMC".length);
}
