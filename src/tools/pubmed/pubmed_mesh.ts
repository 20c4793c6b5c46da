import { z } from "zod";
import { meshLookup } from "../../literature/mesh.js";
import { meshRecordSchema, type MeshRecord } from "../../ncbi/parse/mesh.js";
import { count } from "../outputs.js";
import { READ_ONLY_LIVE, numeric, requiredText } from "../params.js";
import { defineTool } from "../tool.js";

const meshOutput = z.object({
  term: z.string(),
  totalFound: count,
  records: z.array(meshRecordSchema),
  queryTranslation: z.string().optional(),
  warnings: z.array(z.string()).optional(),
});

export const pubmedMesh = defineTool({
  name: "pubmed_mesh",
  description:
    "Look up MeSH headings (NCBI db=mesh) by name, synonym or UI: UI, preferred name, scope " +
    "note, tree numbers, entry terms, allowable qualifiers and a ready PubMed tag like " +
    '"Asthma"[Mesh] (add :NoExp to leave narrower headings out). Use it to make a pubmed_search ' +
    "precise, or when pubmed_search warns a phrase was not found. Exact matches come first. " +
    'Example: {"term": "heart attack"} or {"term": "D001249"}.',
  toolset: "reading",
  annotations: { title: "Look up MeSH headings", ...READ_ONLY_LIVE },
  parameters: z.object({
    // MeSH headings and entry terms run to about 100 characters.
    term: requiredText(500).describe(
      'A MeSH heading, entry term or UI, e.g. "asthma", "heart attack" or "D001249".',
    ),
    maxResults: numeric(z.int().min(1).max(20).default(3)).describe("Records to describe (1–20)."),
  }),
  narrower: "Ask for a smaller maxResults.",
  output: meshOutput,
  execute: async ({ term, maxResults }, { signal }) => {
    const found = await meshLookup(term, { signal, maxRecords: maxResults });
    const warnings = [
      ...found.warnings,
      ...found.errors.map((e) => `No MeSH summary for uid ${e.uid || "?"}: ${e.message}`),
    ];
    if (found.totalFound === 0) {
      warnings.push(
        `No MeSH record matches "${term}"; try a broader or differently spelled term (pubmed_spell).`,
      );
    }
    return {
      term,
      totalFound: found.totalFound,
      records: bestFirst(found.records, term),
      ...(found.queryTranslation ? { queryTranslation: found.queryTranslation } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    } satisfies z.output<typeof meshOutput>;
  },
});

/**
 * Records named exactly by the term (heading, entry term or UI) first, in NCBI's order otherwise:
 * ESearch db=mesh ranks "Asthma, Exercise-Induced" beside "Asthma" for "asthma".
 */
function bestFirst(records: MeshRecord[], term: string): MeshRecord[] {
  const wanted = term.trim().toLowerCase();
  const exact = (r: MeshRecord) =>
    r.ui?.toLowerCase() === wanted ||
    r.name.toLowerCase() === wanted ||
    (r.entryTerms ?? []).some((t) => t.toLowerCase() === wanted);
  return [...records.filter(exact), ...records.filter((r) => !exact(r))];
}
