/**
 * resource://pubmed/paper/{pmid} — one synced paper, the same JSON rag_get returns. Unknown or
 * unsynced PMIDs are MCP's -32002 with a message saying how to get them.
 */
import { getPaper, pmidsStartingWith } from "../worker/corpus-api.js";
import { NotFoundError } from "../errors.js";
import { defineResourceTemplate } from "./resource.js";

export const paperResource = defineResourceTemplate({
  uriTemplate: "resource://pubmed/paper/{pmid}",
  name: "paper",
  description:
    "A paper of the local corpus as JSON, identical to rag_get's result: title, abstract, journal, " +
    "publication types, dates, PMC id, quality score, version and integrity notices (absent when " +
    "none is known). Only synced papers exist here.",
  mimeType: "application/json",
  toolset: "corpus",
  arguments: [{ name: "pmid", description: 'PubMed ID of a synced paper, e.g. "31452104".' }],
  complete: (_argument, value, limit) => pmidsStartingWith(value.trim(), limit),
  read: async ({ pmid = "" }) => {
    if (!/^\d{1,9}$/.test(pmid)) {
      throw new NotFoundError(
        `Resource resource://pubmed/paper/${pmid} not found: {pmid} must be digits, e.g. resource://pubmed/paper/31452104.`,
      );
    }
    try {
      return JSON.stringify(await getPaper(pmid));
    } catch (err) {
      if (err instanceof NotFoundError) {
        throw new NotFoundError(
          `Resource resource://pubmed/paper/${pmid} not found: ${err.message}`,
        );
      }
      throw err;
    }
  },
});
