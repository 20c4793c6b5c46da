/**
 * A stand-in NCBI that serves a given set of records (a systematic review's candidates, say the
 * labelled screening sets of the screening benchmark: bench/README.md), for the review
 * benchmark, tests and the demo.
 * Real HTTP on loopback; point NCBI_EUTILS_BASE_URL at `baseUrl`.
 *
 *   const ncbi = await startRecordNcbi(records, { sets: { adhd: records.map((r) => r.pmid) } });
 *
 * ESearch (db=pubmed): a term equal to a set name (case and outer spaces ignored) returns that
 * set, in its order. Any other term is a bag of words: field tags ("[tiab]"), parentheses, quotes
 * and AND are dropped, top-level " OR " splits it into clauses, and a record matches a clause
 * holding every one of its words among its title, abstract, MeSH headings and PMID (words are
 * runs of letters and digits, lower-cased). Matches come in the order the records were given.
 * Date limits and sort are ignored. retstart/retmax, rettype=count, usehistory=y (WebEnv +
 * QueryKey) and PubMed's reach behave as at NCBI: of a result set only the first 9,999 records
 * are handed out, and retstart past 9,998 on a bigger set is refused with NCBI's own message, on
 * ESearch and on EFetch from the history server.
 * EFetch (db=pubmed, XML): by WebEnv + query_key + retstart + retmax, or by id (GET or form POST);
 * unknown PMIDs are left out, as NCBI does; rettype=uilist gives the ids as text.
 * The XML is the synthetic generator's (./synth-xml.ts), of ./review-ncbi-record.ts's record.
 * EInfo answers with the database's record count; ELink with empty link sets.
 * `maxRps` refuses requests past that many in a sliding second with NCBI's 429 body.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { PUBMED_REACH, REACH_ERROR, SynthHistory } from "./synth-esearch.js";
import { synthRecordOf, type StandInRecord } from "./review-ncbi-record.js";
import { hashString } from "./synth-random.js";
import { einfoXml, elinkXml, entrezErrorXml, esearchXml } from "./synth-replies.js";
import { articleSetOf, articleXml } from "./synth-xml.js";

export type { StandInRecord } from "./review-ncbi-record.js";

export interface RecordNcbiOptions {
  /** Named result sets: PMIDs in reply order (PMIDs not among the records are left out). */
  sets?: Record<string, readonly string[]>;
  /** Each reply leaves this long after its request arrived (NCBI answers in 100–500 ms). */
  latencyMs?: number;
  /** Requests past this many in a sliding second get HTTP 429, as at NCBI. */
  maxRps?: number;
  host?: string;
  port?: number;
}

export interface RecordNcbi {
  /** …/entrez/eutils, as NCBI's. */
  baseUrl: string;
  /** Requests received, refused ones included. */
  readonly requests: number;
  /** Requests refused with 429. */
  readonly refused: number;
  /** Requests received per utility ("esearch", "efetch", …). */
  readonly byUtility: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

interface Reply {
  status: number;
  body: string;
  contentType: string;
}

const XML = "text/xml; charset=UTF-8";
const xml = (body: string): Reply => ({ status: 200, body, contentType: XML });
const fail = (root: string, message: string) => xml(entrezErrorXml(root, message));
const int = (raw: string | undefined, fallback: number) =>
  raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw) : fallback;

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The E-utilities requests a review makes, answered from `records`. */
export function recordHandler(
  records: readonly StandInRecord[],
  opts: Pick<RecordNcbiOptions, "sets"> = {},
): (utility: string, p: Record<string, string>) => Reply | undefined {
  const byPmid = new Map(records.map((r, i) => [r.pmid, { r, i }]));
  const words = records.map(
    (r) => new Set(wordsOf(`${r.pmid} ${r.title} ${r.abstract} ${r.mesh.join(" ")}`)),
  );
  const sets = new Map(
    Object.entries(opts.sets ?? {}).map(([name, ids]) => [
      name.trim().toLowerCase(),
      ids.filter((id) => byPmid.has(id)),
    ]),
  );
  const rendered = new Map<string, string>();
  const render = (pmid: string) => {
    let out = rendered.get(pmid);
    const known = byPmid.get(pmid);
    if (out === undefined && known)
      rendered.set(pmid, (out = articleXml(synthRecordOf(known.r, known.i))));
    return out;
  };
  const history = new SynthHistory(hashString(records.map((r) => r.pmid).join(",")));

  const search = (term: string): string[] => {
    const named = sets.get(term.trim().toLowerCase());
    if (named) return named;
    const clauses = term
      .replace(/\[[^\]]*\]/g, " ")
      .split(/\s+OR\s+/)
      .map((c) => wordsOf(c).filter((w) => w !== "and"))
      .filter((c) => c.length > 0);
    return records
      .filter((_, i) => clauses.some((c) => c.every((w) => words[i]?.has(w))))
      .map((r) => r.pmid);
  };

  const badDb = (p: Record<string, string>, root: string, name = "db") => {
    const db = p[name];
    return db !== undefined && db !== "" && db.toLowerCase() !== "pubmed"
      ? fail(root, `Invalid db name specified: ${db}`)
      : undefined;
  };

  const esearch = (p: Record<string, string>): Reply => {
    const root = "eSearchResult";
    if (!p.term?.trim()) return fail(root, "Empty term and query_key - nothing todo");
    const found = search(p.term);
    const count = found.length;
    const kept = p.usehistory === "y" ? history.store(found, p.WebEnv || undefined) : undefined;
    if (p.rettype === "count")
      return xml(
        esearchXml({ count, retStart: 0, ids: [], queryTranslation: "", countOnly: true }),
      );
    const retStart = int(p.retstart, 0);
    if (retStart > PUBMED_REACH - 1 && count > PUBMED_REACH) return fail(root, REACH_ERROR);
    const end = Math.min(retStart + int(p.retmax, 20), PUBMED_REACH);
    const ids = found.slice(retStart, Math.max(retStart, end));
    const none =
      count === 0 ? { phrasesNotFound: [p.term], outputMessages: ["No items found."] } : {};
    return xml(esearchXml({ count, retStart, ids, queryTranslation: p.term, ...kept, ...none }));
  };

  const efetch = (p: Record<string, string>): Reply => {
    const root = "eFetchResult";
    let ids: string[];
    if (p.WebEnv && p.query_key) {
      const stored = history.get(p.WebEnv, p.query_key);
      if (!stored) return fail(root, `Unable to obtain query #${p.query_key}`);
      const start = int(p.retstart, 0);
      if (start > PUBMED_REACH - 1 && stored.length > PUBMED_REACH) return fail(root, REACH_ERROR);
      const end = Math.min(start + int(p.retmax, PUBMED_REACH), PUBMED_REACH);
      ids = stored.slice(start, Math.max(start, end));
    } else {
      ids = (p.id ?? "").split(/[\s,]+/).filter((id) => id !== "");
      if (ids.length === 0) return fail(root, "Empty id list - nothing todo");
    }
    const known = ids.filter((id) => byPmid.has(id));
    if ((p.rettype ?? "").toLowerCase() === "uilist")
      return {
        status: 200,
        body: known.map((id) => `${id}\n`).join(""),
        contentType: "text/plain",
      };
    return xml(articleSetOf(known.flatMap((id) => render(id) ?? [])));
  };

  const elink = (p: Record<string, string>): Reply => {
    const ids = (p.id ?? "").split(/[\s,]+/).filter((id) => id !== "");
    if (ids.length === 0) return fail("eLinkResult", "Empty id list - nothing todo");
    return xml(elinkXml({ dbFrom: "pubmed", ids, linkSets: [] }));
  };

  const utilities: Record<string, [root: string, run: (p: Record<string, string>) => Reply]> = {
    esearch: ["eSearchResult", esearch],
    efetch: ["eFetchResult", efetch],
    elink: ["eLinkResult", elink],
    einfo: [
      "eInfoResult",
      (p) => xml(einfoXml(p.db ? { count: records.length, lastUpdate: new Date(0) } : null)),
    ],
  };
  return (utility, p) => {
    const entry = Object.hasOwn(utilities, utility) ? utilities[utility] : undefined;
    if (!entry) return undefined;
    const [root, run] = entry;
    return badDb(p, root, utility === "elink" ? "dbfrom" : "db") ?? run(p);
  };
}

export async function startRecordNcbi(
  records: readonly StandInRecord[],
  opts: RecordNcbiOptions = {},
): Promise<RecordNcbi> {
  const handle = recordHandler(records, opts);
  const state = { requests: 0, refused: 0, byUtility: {} as Record<string, number> };
  const starts: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const now = Date.now();
      const url = new URL(req.url ?? "/", "http://localhost");
      const params = Object.fromEntries(url.searchParams);
      Object.assign(
        params,
        Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString())),
      );
      const utility = (url.pathname.split("/").pop() ?? "").replace(/\.f?cgi$/, "").toLowerCase();
      state.requests++;
      state.byUtility[utility] = (state.byUtility[utility] ?? 0) + 1;
      while (starts.length > 0 && (starts[0] ?? 0) <= now - 1000) starts.shift();
      starts.push(now);
      let reply: Reply;
      if (opts.maxRps !== undefined && starts.length > opts.maxRps) {
        state.refused++;
        reply = {
          status: 429,
          body: '{"error":"API rate limit exceeded","count":"11"}',
          contentType: "application/json",
        };
      } else {
        reply = handle(utility, params) ?? {
          status: 404,
          body: `no such utility: ${utility}`,
          contentType: "text/plain",
        };
      }
      const wait = Math.max(0, (opts.latencyMs ?? 0) - (Date.now() - now));
      setTimeout(() => {
        res.writeHead(reply.status, { "Content-Type": reply.contentType });
        res.end(reply.body);
      }, wait);
    });
  });
  await new Promise<void>((resolve) =>
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve),
  );
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/entrez/eutils`,
    get requests() {
      return state.requests;
    },
    get refused() {
      return state.refused;
    },
    get byUtility() {
      return { ...state.byUtility };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
