/**
 * The synthetic NCBI's databases beside pubmed: db=pmc (EFetch → JATS <pmc-articleset>, for the
 * records with a PMCID) and db=mesh (ESearch by term or [mhui], ESummary version 2.0), answered
 * from the same synthetic corpus so PMIDs, PMCIDs, DOIs and MeSH headings agree everywhere.
 */
import { SynthMeshDb, meshSummaryXml } from "./synth-meshdb.js";
import { pmcArticleSetXml } from "./synth-jats.js";
import { entrezErrorXml, esearchXml } from "./synth-replies.js";
import { esc, escAttr } from "./synth-text.js";
import type { SynthCorpus, SynthRecord } from "./synth.js";

const XML = "text/xml; charset=UTF-8";

/** PMC ids are PMC + 8,000,000 + the record's index (synth-record.ts). */
const PMC_BASE = 8_000_000;

export function synthOtherDbs(corpus: SynthCorpus) {
  let mesh: SynthMeshDb | undefined;
  const meshDb = () => (mesh ??= new SynthMeshDb(corpus));

  const pmcRecord = (id: string): SynthRecord | undefined => {
    const digits = /^(?:PMC)?(\d+)$/i.exec(id.trim())?.[1];
    if (digits === undefined) return undefined;
    const r = corpus.record(corpus.pmidOf(Number(digits) - PMC_BASE));
    return r?.pmcid === `PMC${digits}` ? r : undefined;
  };

  const efetchPmc = (ids: string[]) => {
    const found = ids.map((id) => ({ id, record: pmcRecord(id) }));
    const records = found.flatMap((f) => (f.record ? [f.record] : []));
    const errors = found
      .filter((f) => !f.record)
      .map(
        (f) =>
          `<error id="${escAttr(f.id)}">The following PMCID is not available: ${esc(f.id)}</error>`,
      );
    const set = pmcArticleSetXml(records);
    return errors.length === 0
      ? set
      : set.replace("</pmc-articleset>", `${errors.join("")}</pmc-articleset>`);
  };

  /** The reply for db=pmc / db=mesh requests, or undefined for any other database. */
  return (
    utility: string,
    p: Record<string, string>,
  ): { body: string; contentType: string } | undefined => {
    const db = (p.db ?? "").toLowerCase();
    const ids = (p.id ?? "").split(/[\s,]+/).filter(Boolean);
    if (db === "pmc" && utility === "efetch") {
      if (ids.length === 0) {
        return {
          body: entrezErrorXml("eFetchResult", "Empty id list - nothing todo"),
          contentType: XML,
        };
      }
      return { body: efetchPmc(ids), contentType: XML };
    }
    if (db !== "mesh") return undefined;
    if (utility === "esearch") {
      const uids = meshDb().search(p.term ?? "");
      const retMax = Number(p.retmax) || 20;
      return {
        body: esearchXml({
          count: uids.length,
          retStart: 0,
          ids: uids.slice(0, retMax),
          queryTranslation: p.term ?? "",
          phrasesNotFound: uids.length === 0 && p.term ? [p.term] : [],
          outputMessages: uids.length === 0 ? ["No items found."] : [],
        }),
        contentType: XML,
      };
    }
    if (utility === "esummary") {
      return { body: meshSummaryXml(ids.map((id) => meshDb().byUid(id) ?? id)), contentType: XML };
    }
    return undefined;
  };
}
