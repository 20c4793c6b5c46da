/**
 * pubmed_export in the corpus worker: every record of a PubMed search (through the history server)
 * or of a PMID list, written in an export format batch by batch. An export larger than the inline
 * budget is kept in the store's `exports` table for a day and read whole through
 * resource://pubmed/export/{export_id} (docs/reviews.md, "Export").
 */
import { ValidationError } from "../errors.js";
import { readEFetchArticles } from "../ncbi/parse/efetch.js";
import type { EFetchTarget } from "../ncbi/eutils.js";
import type { Article } from "../ncbi/types.js";
import { saveExport } from "../store/exports.js";
import { ADD_BATCH, HISTORY_REACH, type AddContext } from "./add.js";
import { exportWriter } from "./export.js";
import { articleCandidate } from "./records.js";
import type { ExportFormat, ReviewRecord } from "../store/review-types.js";

export interface PubmedExportInput {
  term?: string;
  pmids?: string[];
  format: ExportFormat;
  maxRecords: number;
  inlineBytes: number;
}

export interface PubmedExportResult {
  records: number;
  /** Records the search has beyond max_records. */
  remaining?: number;
  bytes: number;
  text?: string;
  exportId?: string;
}

/** The EFetch requests of the input: history batches of a search, or id batches. */
async function batches(
  ctx: AddContext,
  input: PubmedExportInput,
): Promise<{ targets: EFetchTarget[]; total: number; count: number }> {
  if (input.pmids) {
    const ids = [...new Set(input.pmids)];
    const targets = [];
    for (let i = 0; i < ids.length; i += 200) targets.push({ pmids: ids.slice(i, i + 200) });
    return { targets, total: ids.length, count: ids.length };
  }
  const { value: search } = await ctx.eutils.esearch(
    { db: "pubmed", term: input.term ?? "", usehistory: "y", retmax: 0 },
    { signal: ctx.signal, noCache: true },
  );
  const total = Math.min(search.count, input.maxRecords, HISTORY_REACH);
  const targets = [];
  for (let at = 0; at < total; at += ADD_BATCH) {
    targets.push({
      webEnv: search.webEnv ?? "",
      queryKey: search.queryKey ?? "",
      retstart: at,
      retmax: Math.min(ADD_BATCH, total - at),
    });
  }
  return { targets, total, count: search.count };
}

export async function exportPubmed(
  ctx: AddContext,
  input: PubmedExportInput,
): Promise<PubmedExportResult> {
  const { targets, total, count } = await batches(ctx, input);
  if (total === 0) {
    throw new ValidationError(
      input.pmids
        ? "None of the PMIDs was found in PubMed."
        : `The search finds no records: check the term with pubmed_search or pubmed_spell.`,
    );
  }
  const writer = exportWriter(input.format);
  const parts = [writer.header()];
  let records = 0;
  for (const target of targets) {
    const reply = await ctx.eutils.efetchBytes(target, { signal: ctx.signal });
    const batch: ReviewRecord[] = [];
    readEFetchArticles(reply.bytes, (a: Article) => {
      const { hitKey, ...c } = articleCandidate(a);
      batch.push({ ...c, id: hitKey, seq: records + batch.length, sources: [] });
    });
    records += batch.length;
    parts.push(writer.write(batch));
    await ctx.progress?.(records, total, `exported ${records} of ${total}`);
  }
  parts.push(writer.footer());
  const text = parts.join("");
  const bytes = Buffer.byteLength(text);
  const remaining = input.pmids ? 0 : Math.max(0, Math.min(count, HISTORY_REACH) - total);
  const base = { records, bytes, ...(remaining > 0 ? { remaining } : {}) };
  if (bytes <= input.inlineBytes) return { ...base, text };
  const exportId = await saveExport(ctx.store.db, input.format, text);
  return { ...base, exportId };
}
