/**
 * The synthetic literature services beside E-utilities, answering from the synthetic corpus in
 * the shapes the real services document (project-written replies): the PMC ID Converter (JSON),
 * Europe PMC REST (search, fullTextXML, MED citations/references), Unpaywall v2 and PubTator3's
 * BioC JSON export. Paths are those below each service's base URL; SYNTH_BASES gives where the
 * synthetic server mounts each one.
 */
import { europePmcArticleXml } from "./synth-jats.js";
import type { SynthCorpus, SynthRecord } from "./synth.js";

export interface LiteratureReply {
  status?: number;
  body: string;
  contentType?: string;
}

/** Mount points on the synthetic server, shaped like the real base URLs' paths. */
export const SYNTH_BASES = {
  idconv: "/pmc/tools/idconv/api/v1/articles/",
  europepmc: "/europepmc/webservices/rest/",
  unpaywall: "/v2/",
  pubtator: "/research/pubtator3-api/",
} as const;

const JSON_TYPE = "application/json;charset=UTF-8";
const json = (value: unknown, status = 200): LiteratureReply => ({
  status,
  body: JSON.stringify(value),
  contentType: JSON_TYPE,
});

const SPECIES: Record<string, string> = { D006801: "9606", D051379: "10090", D051381: "10116" };

export function synthLiterature(corpus: SynthCorpus) {
  let byDoi: Map<string, string> | undefined;
  const pmidOfDoi = (doi: string): string | undefined => {
    if (!byDoi) {
      byDoi = new Map();
      for (let i = 0; i < corpus.size; i++) {
        const r = corpus.recordAt(i);
        if (r.doi) byDoi.set(r.doi.toLowerCase(), r.pmid);
      }
    }
    return byDoi.get(doi.toLowerCase());
  };
  /** A record by PMID, PMCID (PMC + 8,000,000 + index) or DOI. */
  const find = (id: string, type?: string): SynthRecord | undefined => {
    const pmc = /^PMC(\d+)(?:\.\d+)?$/i.exec(id)?.[1] ?? (type === "pmcid" ? id : undefined);
    if (pmc !== undefined) {
      const r = corpus.record(corpus.pmidOf(Number(pmc) - 8_000_000));
      return r?.pmcid?.toUpperCase() === `PMC${pmc}` ? r : undefined;
    }
    if (/^\d+$/.test(id) && type !== "doi") return corpus.record(id);
    const pmid = pmidOfDoi(id);
    return pmid === undefined ? undefined : corpus.record(pmid);
  };

  const idconv = (p: Record<string, string>): LiteratureReply => {
    const ids = (p.ids ?? "").split(",").filter(Boolean);
    if (ids.length === 0) return json({ status: "error", message: "No ids given" }, 400);
    const records = ids.map((id) => {
      const r = find(id, p.idtype);
      if (!r?.pmcid) {
        return { "requested-id": id, status: "error", errmsg: "Identifier not found in PMC" };
      }
      return { "requested-id": id, pmcid: r.pmcid, pmid: r.pmid, ...(r.doi ? { doi: r.doi } : {}) };
    });
    return json({ status: "ok", responseDate: corpus.now.toISOString(), records });
  };

  const hit = (r: SynthRecord, core: boolean) => ({
    id: r.pmid,
    source: "MED",
    pmid: r.pmid,
    ...(r.pmcid ? { pmcid: r.pmcid } : {}),
    ...(r.doi ? { doi: r.doi } : {}),
    title: r.title,
    authorString: `${r.authors.map((a) => a.collectiveName ?? `${a.lastName} ${a.initials}`).join(", ")}.`,
    journalTitle: r.citation.journal.iso,
    pubYear: String(r.citation.pubDate.year),
    firstPublicationDate: new Date(r.pdat).toISOString().slice(0, 10),
    isOpenAccess: r.pmcid ? "Y" : "N",
    inEPMC: r.pmcid ? "Y" : "N",
    citedByCount: corpus.citedByOf(r.pmid).length,
    pubType: r.retraction
      ? "retracted publication; journal article"
      : r.publicationTypes.map((t) => t.name.toLowerCase()).join("; "),
    ...(core ? { abstractText: r.abstract.map((s) => s.text).join(" ") } : {}),
  });

  /** Words of a Europe PMC query, SRC: limits and EXT_ID:/PMCID:/DOI: lookups; other syntax is not modelled. */
  const search = (p: Record<string, string>): LiteratureReply => {
    const query = p.query ?? "";
    const sources = [...query.matchAll(/SRC:\s*"?(\w+)"?/gi)].map((m) => m[1]!.toUpperCase());
    const exact = /(?:EXT_ID|PMCID|DOI):\s*"?([^\s")]+)"?/i.exec(query)?.[1];
    const words = query
      .replace(/\b(?:SRC|EXT_ID|PMCID|DOI):\s*"?[^\s")]+"?/gi, " ")
      .replace(/\b(?:AND|OR|NOT)\b|[()"]/g, " ")
      .toLowerCase()
      .split(/\s+/)
      .filter(Boolean);
    let found: SynthRecord[] = [];
    if (sources.length === 0 || sources.includes("MED") || sources.includes("PMC")) {
      if (exact !== undefined) {
        const r = find(exact);
        found = r ? [r] : [];
      } else if (words.length > 0) {
        const indices = corpus.indicesFor(words.join(" "));
        const all = indices.length > 0 ? indices : [...Array(corpus.size).keys()];
        found = all
          .map((i) => corpus.recordAt(i))
          .filter(
            (r) =>
              indices.length > 0 ||
              words.every((w) =>
                `${r.title} ${r.abstract.map((s) => s.text).join(" ")}`.toLowerCase().includes(w),
              ),
          );
      }
      if (!sources.includes("MED") && sources.includes("PMC")) found = found.filter((r) => r.pmcid);
    }
    const start = /^synth-(\d+)$/.exec(p.cursorMark ?? "")?.[1];
    const from = start === undefined ? 0 : Number(start);
    const size = Math.min(Math.max(Number(p.pageSize) || 25, 1), 1000);
    const page = found.slice(from, from + size);
    const next =
      from + page.length < found.length ? `synth-${from + page.length}` : (p.cursorMark ?? "*");
    return json({
      version: "6.9",
      hitCount: found.length,
      nextCursorMark: next,
      request: {
        queryString: query,
        resultType: p.resultType ?? "lite",
        cursorMark: p.cursorMark ?? "*",
        pageSize: size,
      },
      resultList: { result: page.map((r) => hit(r, p.resultType === "core")) },
    });
  };

  const links = (pmid: string, kind: string): LiteratureReply => {
    const r = corpus.record(pmid);
    if (!r) return json({ version: "6.9", hitCount: 0 });
    const ids = kind === "citations" ? corpus.citedByOf(pmid) : r.references.map((x) => x.pmid);
    const items = corpus.records(ids).map((x) => ({
      id: x.pmid,
      source: "MED",
      title: x.title,
      authorString: `${x.authors.map((a) => a.collectiveName ?? `${a.lastName} ${a.initials}`).join(", ")}.`,
      journalAbbreviation: x.citation.journal.iso,
      pubYear: String(x.citation.pubDate.year),
    }));
    return kind === "citations"
      ? json({ version: "6.9", hitCount: items.length, citationList: { citation: items } })
      : json({ version: "6.9", hitCount: items.length, referenceList: { reference: items } });
  };

  const europepmc = (path: string, p: Record<string, string>): LiteratureReply | undefined => {
    if (path === "search") return search(p);
    const full = /^(PMC\d+)\/fullTextXML$/i.exec(path)?.[1];
    if (full !== undefined) {
      const r = find(full);
      // Europe PMC answers an article it has no full text for with 404 and an empty body.
      return r
        ? { body: europePmcArticleXml(r), contentType: "application/xml" }
        : { status: 404, body: "" };
    }
    const link = /^MED\/(\d+)\/(citations|references)$/.exec(path);
    return link ? links(link[1]!, link[2]!) : undefined;
  };

  const unpaywall = (doi: string, p: Record<string, string>): LiteratureReply => {
    if (!p.email) {
      return json(
        {
          HTTP_status_code: 422,
          error: true,
          message: "Please add your email to your request: ?email=you@example.com",
        },
        422,
      );
    }
    const r = find(doi, "doi");
    if (!r?.doi)
      return json(
        { HTTP_status_code: 404, error: true, message: `'${doi}' isn't in Unpaywall.` },
        404,
      );
    const gold = !r.pmcid && Number(r.pmid) % 3 === 0;
    const location = r.pmcid
      ? {
          url: `https://www.ncbi.nlm.nih.gov/pmc/articles/${r.pmcid}/`,
          url_for_pdf: null,
          url_for_landing_page: `https://www.ncbi.nlm.nih.gov/pmc/articles/${r.pmcid}/`,
          license: "cc-by",
          version: "publishedVersion",
          host_type: "repository",
          repository_institution: "National Institutes of Health - PubMed Central",
          is_best: true,
        }
      : gold
        ? {
            url: `https://doi.org/${r.doi}`,
            url_for_pdf: null,
            url_for_landing_page: `https://doi.org/${r.doi}`,
            license: "cc-by",
            version: "publishedVersion",
            host_type: "publisher",
            repository_institution: null,
            is_best: true,
          }
        : null;
    return json({
      doi: r.doi.toLowerCase(),
      title: r.title,
      year: r.citation.pubDate.year,
      is_oa: location !== null,
      oa_status: r.pmcid ? "green" : gold ? "gold" : "closed",
      best_oa_location: location,
    });
  };

  /** PubTator-like annotations: the record's MeSH descriptors where its text names them. */
  const annotate = (text: string, offset: number, r: SynthRecord) => {
    const out: unknown[] = [];
    const lower = text.toLowerCase();
    for (const h of r.mesh) {
      const at = lower.indexOf(h.name.toLowerCase());
      if (at === -1) continue;
      const taxon = SPECIES[h.ui];
      out.push({
        id: String(out.length),
        infons: taxon
          ? { identifier: taxon, type: "Species", database: "ncbi_taxonomy" }
          : { identifier: `MESH:${h.ui}`, type: "Disease", database: "ncbi_mesh", name: h.name },
        text: text.slice(at, at + h.name.length),
        locations: [{ offset: offset + at, length: h.name.length }],
      });
    }
    for (const m of text.matchAll(/\bpatients\b/gi)) {
      out.push({
        id: String(out.length),
        infons: { identifier: "9606", type: "Species", database: "ncbi_taxonomy" },
        text: m[0],
        locations: [{ offset: offset + m.index, length: m[0].length }],
      });
    }
    return out;
  };

  const pubtator = (path: string, p: Record<string, string>): LiteratureReply | undefined => {
    if (path !== "publications/export/biocjson") return undefined;
    const docs = corpus.records((p.pmids ?? "").split(",").filter(Boolean)).map((r) => {
      const abstract = r.abstract.map((s) => s.text).join(" ");
      return {
        _id: `${r.pmid}|None`,
        id: r.pmid,
        infons: {},
        passages: [
          {
            infons: { type: "title" },
            offset: 0,
            text: r.title,
            annotations: annotate(r.title, 0, r),
          },
          {
            infons: { type: "abstract" },
            offset: r.title.length + 1,
            text: abstract,
            annotations: annotate(abstract, r.title.length + 1, r),
          },
        ],
      };
    });
    return json({ PubTator3: docs });
  };

  /** The reply for a path on the synthetic server, or undefined when it is no service's. */
  return (pathname: string, params: Record<string, string>): LiteratureReply | undefined => {
    const below = (base: string) =>
      pathname.startsWith(base) ? decodeURIComponent(pathname.slice(base.length)) : undefined;
    if (below(SYNTH_BASES.idconv) !== undefined) return idconv(params);
    const epmc = below(SYNTH_BASES.europepmc);
    if (epmc !== undefined) return europepmc(epmc, params);
    const doi = below(SYNTH_BASES.unpaywall);
    if (doi !== undefined) return unpaywall(doi, params);
    const pt = below(SYNTH_BASES.pubtator);
    return pt === undefined ? undefined : pubtator(pt, params);
  };
}
