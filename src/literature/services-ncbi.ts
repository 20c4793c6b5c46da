/**
 * The NCBI calls of the reading tools, each through the one E-utilities client (getEutils(): NCBI's
 * limiter, retries, deadline and cache) and read by the phase-1 parsers:
 *
 *   convertIds(["10.1038/ng.590", "PMC3040717"], { signal })  → ConvertedId[] (input order, per-id errors)
 *   fetchPmcJats("PMC3040717", signal)                         → JatsDocument (EFetch db=pmc JATS)
 *   meshLookup("asthma", { signal })                           → MeshLookup (ESearch + ESummary db=mesh v2.0)
 *
 * Services never know about MCP; errors are the typed ones of src/errors.ts.
 */
import { ValidationError } from "../errors.js";
import { quoted } from "../excerpt.js";
import { parseESearch } from "../ncbi/parse/esearch.js";
import { liveThread } from "../live/live-thread.js";
import { getEutils } from "../state.js";
import {
  classifyIds,
  groupIdconvRequests,
  parseIdconvReply,
  type ClassifiedId,
  type ConvertedId,
} from "../ncbi/idconv.js";
import type { JatsDocument } from "./fulltext-types.js";
import { meshSearchTerm, parseMeshSummary, type MeshSummary } from "./mesh.js";

export interface ConvertOptions {
  signal?: AbortSignal;
  /** Named in validation messages ("pmcids[2] …"); default "ids". */
  field?: string;
  /** "pmcid" reads bare digits as PMCIDs. */
  hint?: "pmid" | "pmcid";
}

/**
 * PMC ID Converter for up to 200 identifiers of any mix of types: classified (VALIDATION for
 * unreadable ones, all named at once), grouped one request per type, and answered per id in the
 * caller's order (duplicates once). Ids the converter cannot convert carry status "error".
 */
export async function convertIds(
  ids: readonly (string | number)[],
  opts: ConvertOptions = {},
): Promise<ConvertedId[]> {
  return convertClassified(classifyIds(ids, opts.field, opts.hint), opts.signal);
}

/** As convertIds, for ids already classified (src/ncbi/idconv.ts classifyIds). */
export async function convertClassified(
  ids: readonly ClassifiedId[],
  signal?: AbortSignal,
): Promise<ConvertedId[]> {
  const answers = new Map<ClassifiedId, ConvertedId>();
  for (const request of groupIdconvRequests(ids)) {
    const reply = await getEutils().idconv(request.params, { signal });
    const records = parseIdconvReply(reply.body, request.ids);
    request.ids.forEach((id, i) => {
      const record = records[i];
      if (record) answers.set(id, record);
    });
  }
  return ids.map(
    (id) => answers.get(id) ?? { input: id.input, status: "error", errmsg: "not converted" },
  );
}

/** "PMC3040717", "pmc3040717" or "3040717" → "3040717" (EFetch db=pmc takes the digits). */
function pmcDigits(pmcid: string): string {
  const m = /^(?:PMC)?(\d+)(?:\.\d+)?$/i.exec(pmcid.trim());
  if (!m?.[1]) {
    throw new ValidationError(
      `${quoted(pmcid)} is not a PMCID: "PMC" + digits, e.g. "PMC3040717".`,
    );
  }
  return m[1];
}

/**
 * EFetch db=pmc for one or more PMCIDs: the JATS `<pmc-articleset>` read into articles (with
 * `notFullText` set when the body is missing or withheld) and PMC's per-id `<error>`s.
 */
export async function fetchPmcJats(
  pmcids: string | readonly string[],
  signal?: AbortSignal,
): Promise<JatsDocument> {
  const list = typeof pmcids === "string" ? [pmcids] : [...pmcids];
  const id = list.map(pmcDigits).join(",");
  const reply = await getEutils().request("efetch", { db: "pmc", id, retmode: "xml" }, { signal });
  return liveThread().parseJats(reply.body, "PMC", signal);
}

export interface MeshLookup extends MeshSummary {
  /** Descriptors ESearch found for the term (records holds at most `maxRecords` of them). */
  totalFound: number;
  /** How NCBI read the term, when it says. */
  queryTranslation?: string;
  /** NCBI's warnings (e.g. a phrase not found). */
  warnings: string[];
}

export interface MeshOptions {
  signal?: AbortSignal;
  /** Records described (ESummary ids), 1–20; default 5. */
  maxRecords?: number;
  maxEntryTerms?: number;
}

/**
 * MeSH by term or UI: ESearch db=mesh finds the UIDs (a UI searches [mhui]), ESummary db=mesh
 * version=2.0 describes them. No ESummary call when nothing is found.
 */
export async function meshLookup(term: string, opts: MeshOptions = {}): Promise<MeshLookup> {
  const eutils = getEutils();
  const retmax = Math.min(Math.max(opts.maxRecords ?? 5, 1), 20);
  const search = parseESearch(
    (
      await eutils.request(
        "esearch",
        { db: "mesh", term: meshSearchTerm(term), retmax },
        { signal: opts.signal },
      )
    ).body,
  );
  const base = {
    totalFound: search.count,
    warnings: search.warnings,
    ...(search.queryTranslation ? { queryTranslation: search.queryTranslation } : {}),
  };
  if (search.ids.length === 0) return { ...base, records: [], errors: [] };
  const summary = await eutils.request(
    "esummary",
    { db: "mesh", id: search.ids, version: "2.0" },
    { signal: opts.signal },
  );
  return { ...base, ...parseMeshSummary(summary.body, { maxEntryTerms: opts.maxEntryTerms }) };
}
