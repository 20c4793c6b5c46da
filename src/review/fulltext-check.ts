/**
 * Whether a report can be retrieved, for PRISMA's "reports not retrieved" (docs/reviews.md): the
 * full-text chain of pubmed_fulltext (PMC, Europe PMC, Unpaywall) asked for each record at the
 * full-text stage, once. A service failure leaves the record unchecked (asked again next time);
 * only "no tier has it" counts as not retrieved.
 */
import { AppError } from "../errors.js";
import { FULLTEXT_MAX_IDS, readFullText } from "../literature/fulltext-chain.js";
import type { RequestedId } from "../literature/identity.js";

export interface Availability {
  id: string;
  available: boolean;
  source?: string;
  url?: string;
}

/** The smallest answer the chain gives: the outline of a few characters. */
const PROBE = { mode: "outline", maxCharacters: 200 } as const;

export async function fullTextAvailability(
  records: ReadonlyArray<{ id: string; pmid?: string; doi?: string }>,
  signal: AbortSignal,
): Promise<Availability[]> {
  const asked = records.flatMap((r): { id: string; req: RequestedId }[] =>
    r.pmid
      ? [{ id: r.id, req: { type: "pmid", value: r.pmid } }]
      : r.doi
        ? [{ id: r.id, req: { type: "doi", value: r.doi } }]
        : [],
  );
  const out: Availability[] = [];
  // readFullText takes one identifier type per call.
  for (const type of ["pmid", "doi"] as const) {
    const ofType = asked.filter((a) => a.req.type === type);
    for (let i = 0; i < ofType.length; i += FULLTEXT_MAX_IDS) {
      const group = ofType.slice(i, i + FULLTEXT_MAX_IDS);
      let results: Awaited<ReturnType<typeof readFullText>>;
      try {
        results = await readFullText(
          group.map((g) => g.req),
          PROBE,
          signal,
        );
      } catch (err) {
        if (signal.aborted || !(err instanceof AppError)) throw err;
        // Every tier failed for every record: "not found" is an answer, a service failure is not.
        if (err.code === "NOT_FOUND")
          out.push(...group.map((g) => ({ id: g.id, available: false })));
        continue;
      }
      group.forEach((g, k) => {
        const r = results[k];
        if (!r) return;
        if (r.source) {
          out.push({
            id: g.id,
            available: true,
            source: r.source,
            ...(r.link ? { url: r.link.url } : {}),
          });
        } else if (!r.tried?.some((t) => t.code !== undefined)) {
          out.push({ id: g.id, available: false });
        }
      });
    }
  }
  return out;
}
