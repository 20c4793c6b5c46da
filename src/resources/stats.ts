/**
 * resource://pubmed/stats — PubMed's own description of itself from EInfo (db=pubmed): record
 * count, last update, searchable fields (the [tags] a query can use) and link names (what
 * pubmed_related can follow). The E-utilities client caches EInfo for 24 h, so repeated reads
 * cost NCBI nothing; the resources test checks the fake NCBI sees one request for two reads.
 */
import { getEutils } from "../state.js";
import { defineResource } from "./resource.js";

export const statsResource = defineResource({
  uri: "resource://pubmed/stats",
  name: "stats",
  description:
    "PubMed database statistics from NCBI EInfo as JSON: record count, last update, search fields " +
    "(name, full name, description — the [tags] usable in queries) and link names. Cached for a day.",
  mimeType: "application/json",
  read: async () => {
    // The client's own deadline (NCBI_DEADLINE_MS) applies, registered with the limiter so a long
    // NCBI pause fails the read at once with RATE_LIMIT.
    const { value: info } = await getEutils().einfo("pubmed");
    return JSON.stringify(
      {
        dbName: info.dbName,
        description: info.description,
        count: info.count,
        lastUpdate: info.lastUpdate,
        fields: info.fields,
        links: info.links,
      },
      null,
      2,
    );
  },
});
