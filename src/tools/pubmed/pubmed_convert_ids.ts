import { z } from "zod";
import { MAX_IDS_PER_CALL, convertedIdSchema, doiOf } from "../../ncbi/idconv.js";
import { convertIds } from "../../literature/reading.js";
import { MAX_ID_CHARS, READ_ONLY_LIVE, maxChars, textOrNumber } from "../params.js";
import { arrayPages, sameArguments } from "../answer.js";
import { defineTool } from "../tool.js";

/** A number, or a string of ids separated by commas or spaces (one DOI stays whole), is a list. */
function oneOrList(value: unknown): unknown {
  if (typeof value === "number") return [value];
  if (typeof value !== "string") return value;
  return doiOf(value) !== null ? [value] : value.split(/[\s,]+/).filter(Boolean);
}

export const pubmedConvertIds = defineTool({
  name: "pubmed_convert_ids",
  description:
    "Convert article identifiers with NCBI's PMC ID Converter: PMIDs, PMCIDs, DOIs and author " +
    "manuscript ids (NIHMS…, EMS…) in, any mix, and every identifier known for each out (pmid, " +
    "pmcid, doi, mid). Use it to find whether a paper is in PMC (has a pmcid) before " +
    "pubmed_fulltext, or the PMID of a DOI. Only articles in PMC are known to the converter: " +
    'others come back with status "error" and errmsg, without failing the call. Up to 200 ids. ' +
    'Example: {"ids": ["20516115", "PMC3040717", "10.1038/ng.590"]}.',
  toolset: "reading",
  annotations: { title: "Convert article ids", ...READ_ONLY_LIVE },
  parameters: z.object({
    ids: z
      .preprocess(
        oneOrList,
        z
          .array(textOrNumber(z.string().max(MAX_ID_CHARS, maxChars(MAX_ID_CHARS)).trim()))
          .min(1, { error: "must list at least one identifier" })
          .max(MAX_IDS_PER_CALL, {
            error: `must list at most ${MAX_IDS_PER_CALL} identifiers; split the list`,
          }),
      )
      .describe('PMIDs, PMCIDs, DOIs or manuscript ids, e.g. ["20516115", "10.1038/ng.590"].'),
  }),
  output: z.object({ records: z.array(convertedIdSchema) }),
  pages: arrayPages("records", (args, omitted) =>
    sameArguments(args, { ids: omitted.map((r) => (r as { input: string }).input) }),
  ),
  execute: async (args, { signal }) => ({
    records: await convertIds(args.ids, { signal }),
  }),
});
