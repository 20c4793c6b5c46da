/**
 * The reading tools' service calls in one place (NCBI: services-ncbi.ts; Europe PMC, Unpaywall,
 * PubTator: services-web.ts). Each goes through its service's polite client and returns what the
 * phase-1 parsers read from the reply.
 */
export {
  convertClassified,
  convertIds,
  fetchPmcJats,
  meshLookup,
  type ConvertOptions,
  type MeshLookup,
  type MeshOptions,
} from "./services-ncbi.js";
export {
  EUROPE_PMC_SOURCES,
  PUBTATOR_MAX_PMIDS,
  UNPAYWALL_SKIPPED,
  europePmcFullTextXml,
  europePmcLinks,
  europePmcSearch,
  pubtatorExport,
  unpaywallLookup,
  type EuropePmcSearchOptions,
  type EuropePmcSource,
} from "./services-web.js";
