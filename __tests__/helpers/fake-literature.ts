/**
 * A fake of the literature services for tests — NCBI's PMC ID Converter, Europe PMC REST,
 * Unpaywall v2 and PubTator3 — on one loopback port, each under the path its real address has, so
 * `env` points the four base URLs at it. Plain node:http, like fake-eutils.ts (whose reply options
 * and `send` it shares). Every request is recorded with the service it was for.
 *
 *   const lit = await startFakeLiterature({ routes: recordedLiteratureRoutes() });
 *   const h = await startHarness({ env: { ...lit.env, UNPAYWALL_EMAIL: "dev@example.org" } });
 *   lit.failNext(2, { status: 503, body: "busy" }, "europepmc");
 *   expect(lit.requests.map((r) => r.service)).toEqual(["europepmc", "europepmc", "europepmc"]);
 *
 * Answering order: queued failNext replies for the request's service, then routes (route()'d
 * first, then opts.routes); a request nothing answers gets HTTP 404 naming it (NCBI's efetch
 * db=pmc is E-utilities: serve it from fake-eutils with `pmcEfetchRoute()`).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cassetteReply } from "./cassette.js";
import {
  later,
  maxInWindow,
  send,
  type FakeReply,
  type FakeRequest,
  type Route,
} from "./fake-eutils.js";
import { literatureFixture } from "./paths.js";

export type LiteratureService = "idconv" | "europepmc" | "unpaywall" | "pubtator";

export interface LiteratureRequest {
  /** "" for a path no service has. */
  service: LiteratureService | "";
  /** The path below the service's base URL, decoded: "search", "PMC3040717/fullTextXML", "10.1038/ng.590". */
  path: string;
  params: Record<string, string>;
  method: string;
  /** ms epoch when the request's headers arrived. */
  at: number;
}

export type LiteratureRoute = (
  req: LiteratureRequest,
) => FakeReply | undefined | Promise<FakeReply | undefined>;

/** Each service's base path, shaped like its real base URL. */
const BASES: [LiteratureService, string][] = [
  ["idconv", "/pmc/tools/idconv/api/v1/articles/"],
  ["europepmc", "/europepmc/webservices/rest/"],
  ["unpaywall", "/v2/"],
  ["pubtator", "/research/pubtator3-api/"],
];

export interface FakeLiterature {
  origin: string;
  /** NCBI_IDCONV_BASE_URL, EUROPEPMC_BASE_URL, UNPAYWALL_BASE_URL, PUBTATOR_BASE_URL (no email). */
  env: Record<string, string>;
  requests: LiteratureRequest[];
  route(r: LiteratureRoute): void;
  /** The next `n` requests (to `service`, or to any) get `reply`, whatever the routes say. */
  failNext(n: number, reply: FakeReply, service?: LiteratureService): void;
  reset(): void;
  close(): Promise<void>;
  /** The most requests to `service` (or to any) within any sliding window of `ms` (default 1000). */
  maxInAnyWindow(service?: LiteratureService, ms?: number): number;
}

export async function startFakeLiterature(
  opts: { routes?: LiteratureRoute[] } = {},
): Promise<FakeLiterature> {
  let added: LiteratureRoute[] = [];
  let forced: { reply: FakeReply; service?: LiteratureService }[] = [];
  const requests: LiteratureRequest[] = [];

  const answer = async (req: LiteratureRequest): Promise<FakeReply> => {
    const i = forced.findIndex((f) => f.service === undefined || f.service === req.service);
    if (i !== -1) return forced.splice(i, 1)[0]!.reply;
    for (const r of [...added, ...(opts.routes ?? [])]) {
      const reply = await r(req);
      if (reply) return reply;
    }
    const query = new URLSearchParams(req.params).toString();
    return {
      status: 404,
      body: `fake-literature: no route answers ${req.method} ${req.service || "?"} ${req.path}?${query}`,
      contentType: "text/plain",
    };
  };

  const server = createServer((inc, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    inc.on("data", (c: Buffer) => chunks.push(c));
    inc.on("end", () => {
      const url = new URL(inc.url ?? "/", "http://fake");
      const params = Object.fromEntries(url.searchParams);
      const body = Buffer.concat(chunks).toString("utf8");
      if (body) Object.assign(params, Object.fromEntries(new URLSearchParams(body)));
      const base = BASES.find(([, b]) => url.pathname.startsWith(b));
      const req: LiteratureRequest = {
        service: base?.[0] ?? "",
        path: decodeURIComponent(url.pathname.slice(base ? base[1].length : 0)),
        params,
        method: inc.method ?? "GET",
        at,
      };
      requests.push(req);
      answer(req).then(
        (reply) => later(reply.delayMs ?? 0, res, () => send(res, reply)),
        (err: unknown) => send(res, { status: 500, body: `fake-literature: ${String(err)}` }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const at = (s: LiteratureService) => `${origin}${BASES.find(([n]) => n === s)![1]}`;
  return {
    origin,
    env: {
      NCBI_IDCONV_BASE_URL: at("idconv"),
      EUROPEPMC_BASE_URL: at("europepmc").replace(/\/$/, ""),
      UNPAYWALL_BASE_URL: at("unpaywall").replace(/\/$/, ""),
      PUBTATOR_BASE_URL: at("pubtator").replace(/\/$/, ""),
    },
    requests,
    route: (r) => void added.unshift(r),
    failNext: (n, reply, service) => {
      for (let i = 0; i < n; i++) forced.push({ reply, service });
    },
    reset: () => {
      requests.length = 0;
      forced = [];
      added = [];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
    maxInAnyWindow: (service, ms = 1000) =>
      maxInWindow(
        requests.filter((r) => service === undefined || r.service === service),
        ms,
      ),
  };
}

const json = (body: string, status = 200): FakeReply => ({
  status,
  body,
  contentType: "application/json;charset=UTF-8",
});
const xml = (body: string, status = 200): FakeReply => ({
  status,
  body,
  contentType: "application/xml;charset=UTF-8",
});
const cassette = (path: string): FakeReply => {
  const r = cassetteReply(literatureFixture(path));
  return { status: r.status, body: r.body };
};

const UNPAYWALL_CASSETTES =
  "researcher-metadata/spec/fixtures/vcr_cassettes/UnpaywallPublicationImporter/_import_before";

/**
 * Routes answering with the recorded replies of ../shared/fixtures/literature (read on each
 * request, so a suite skipped for want of them never reads them):
 * - ID Converter: ids holding 10.1038/ng.590 → the rcrossref recording; ids=28371833&idtype=doi →
 *   its recorded HTTP 404 "ID type mismatch".
 * - Unpaywall: the five DOIs recorded by researcher-metadata (green, closed, bracketed DOI, no OA
 *   location, and 10.000/nodata → 404).
 * - Europe PMC search: `EXT_ID:20516115` (biomcp) and `cancer` lite/core (pyEuropePMC).
 *   fullTextXML for PMC3040717 serves PMC's recorded JATS of that article (pmc_oa/pmc3040717.1.xml,
 *   the same JATS Europe PMC mirrors; no recorded fullTextXML reply exists).
 * - PubTator: exports of 22663011 and 20516115, several PMIDs merged into one PubTator3 reply.
 */
export function recordedLiteratureRoutes(): LiteratureRoute[] {
  const unpaywall: Record<string, () => FakeReply> = {
    "10.1103/physrevlett.80.3915": () =>
      json(literatureFixture("researcher-metadata/spec/fixtures/unpaywall1.json")),
    "10.1016/s0962-1849(05)80014-9": () =>
      json(literatureFixture("researcher-metadata/spec/fixtures/unpaywall2.json")),
    "10.000/nodata": () =>
      cassette(
        `${UNPAYWALL_CASSETTES}/when_an_existing_publication_s_DOI_does_not_return_usable_data/does_not_raise_an_error.yml`,
      ),
    "10.1641/0006-3568(2005)055[0851:potapf]2.0.co;2": () =>
      cassette(
        `${UNPAYWALL_CASSETTES}/when_an_existing_publication_has_a_DOI_that_corresponds_to_an_available_article_listed_with_Unpaywall/when_the_publication_DOI_has_brackets/assigns_the_metadata_from_Unpaywall_to_the_new_open_access_location.yml`,
      ),
    "10.1001/jamadermatol.2015.3091": () =>
      cassette(
        `${UNPAYWALL_CASSETTES}/when_an_existing_publication_has_a_DOI_that_corresponds_to_an_available_article_listed_with_Unpaywall/when_the_publication_has_no_open_access_locations/assigns_the_metadata_from_Unpaywall_to_the_new_open_access_location.yml`,
      ),
  };
  const pubtator: Record<string, string> = {
    "22663011": "biomcp/testdata/sources/pubtator/export_22663011.json",
    "20516115": "biomcp/testdata/sources/pubtator/export_20516115.json",
  };
  return [
    (req) => {
      if (req.service !== "idconv") return undefined;
      const ids = (req.params.ids ?? "").toLowerCase();
      if (ids.includes("10.1038/ng.590"))
        return cassette("rcrossref/tests/fixtures/id_converter.yml");
      if (ids === "28371833" && req.params.idtype === "doi")
        return cassette("rcrossref/tests/fixtures/id_converter_fails_type_param_bad.yml");
      return undefined;
    },
    (req) => {
      if (req.service !== "unpaywall") return undefined;
      return unpaywall[req.path.toLowerCase()]?.();
    },
    (req) => {
      if (req.service !== "europepmc") return undefined;
      if (req.path === "PMC3040717/fullTextXML")
        return xml(literatureFixture("biomcp/testdata/sources/pmc_oa/pmc3040717.1.xml"));
      if (req.path !== "search") return undefined;
      const query = req.params.query ?? "";
      if (query.includes("EXT_ID:20516115"))
        return json(
          literatureFixture("biomcp/testdata/sources/europepmc/search_pmid_20516115.json"),
        );
      if (query === "cancer") {
        const core = req.params.resultType === "core";
        return json(
          literatureFixture(
            `pyEuropePMC/tests/fixtures/${core ? "search_cancer_core" : "search_cancer"}.json`,
          ),
        );
      }
      return undefined;
    },
    (req) => {
      if (req.service !== "pubtator" || req.path !== "publications/export/biocjson")
        return undefined;
      const pmids = (req.params.pmids ?? "").split(",");
      if (!pmids.every((p) => pubtator[p])) return undefined;
      const docs = pmids.flatMap(
        (p) => (JSON.parse(literatureFixture(pubtator[p]!)) as { PubTator3: unknown[] }).PubTator3,
      );
      return json(JSON.stringify({ PubTator3: docs }));
    },
  ];
}

/** Recorded EFetch db=pmc replies by PMC id (digits), for fake-eutils. */
const PMC_EFETCH: Record<string, string> = {
  "3040717": "biomcp/testdata/sources/ncbi_efetch/pmc3040717.xml",
  "6329583": "biomcp/testdata/sources/ncbi_efetch/pmc6329583.xml",
  "3299399": "eutils/tests/data/efetch_db-pmc_id-3299399.xml",
  // A correction notice: front matter, no <body>.
  "8435807": "biopython/Tests/Entrez/efetch_pmc.xml",
};

/** A fake-eutils route answering EFetch db=pmc for one recorded PMC id with its recorded JATS. */
export function pmcEfetchRoute(): Route {
  return (req: FakeRequest) => {
    if (req.utility !== "efetch" || req.params.db !== "pmc") return undefined;
    const path = PMC_EFETCH[(req.params.id ?? "").replace(/^PMC/i, "")];
    return path ? xml(literatureFixture(path)) : undefined;
  };
}
