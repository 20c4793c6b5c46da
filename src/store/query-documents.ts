/**
 * Which records each synced query key stored (query_documents): a sync writes the PMIDs of every
 * batch it stores (src/corpus/sync.ts), and the review source "corpus" adds a key's records from
 * the local store without asking NCBI.
 */
import { sql, type Kysely } from "kysely";
import type { Author } from "../ncbi/types.js";
import { normaliseDoi, normalisePmcid } from "./review-keys.js";
import type { CandidateRecord, ReviewAuthor } from "./review-types.js";
import { arrayParam } from "./params.js";
import { decodeRecord } from "./record-codec.js";
import type { Database } from "./schema.js";
import { storeCall } from "./store-errors.js";

type Db = Kysely<Database>;

/** Records that `queryKey` stored these PMIDs: one statement; pairs already known stay. */
export async function recordQueryDocuments(
  db: Db,
  queryKey: string,
  pmids: readonly string[],
): Promise<void> {
  if (pmids.length === 0) return;
  await storeCall("recording a query's records", () =>
    sql`insert into query_documents (query_key, pmid)
      select ${queryKey}::text, p from unnest(${arrayParam(pmids)}::text[]) as p
      on conflict do nothing`.execute(db),
  );
}

const author = (a: Author): ReviewAuthor | null => {
  if (a.lastName) {
    const given = a.firstName ?? a.initials;
    return given ? { family: a.lastName, given } : { family: a.lastName };
  }
  return a.collectiveName ? { family: a.collectiveName } : null;
};

/**
 * Up to `limit` of the query key's stored records as review candidates, from `offset` on, in PMID
 * order (as text); hitKey "pmid:<pmid>". The columns give most fields; the stored record
 * (decoded) the authors, volume, issue and pages.
 */
export async function candidatesFromCorpus(
  db: Db,
  queryKey: string,
  limit: number,
  offset = 0,
): Promise<(CandidateRecord & { hitKey: string })[]> {
  const rows = await storeCall("reading a query's records", () =>
    db
      .selectFrom("query_documents as q")
      .innerJoin("documents as d", "d.pmid", "q.pmid")
      .select([
        "d.pmid",
        "d.title",
        "d.abstract",
        "d.journal",
        "d.doi",
        "d.pmcid",
        "d.pdat_year",
        "d.mesh",
        "d.pub_types",
        "d.notices",
        "d.record",
      ])
      .where("q.query_key", "=", queryKey)
      .orderBy("q.pmid")
      .limit(limit)
      .offset(offset)
      .execute(),
  );
  return rows.map((r) => {
    // A record stored before the parser kept every field reads with that field missing.
    const { authors = [], journalInfo } = decodeRecord(r.record);
    const doi = normaliseDoi(r.doi);
    const pmcid = normalisePmcid(r.pmcid);
    const c: CandidateRecord & { hitKey: string } = {
      hitKey: `pmid:${r.pmid}`,
      pmid: r.pmid,
      ...(doi && { doi }),
      ...(pmcid && { pmcid }),
      title: r.title,
      abstract: r.abstract,
      ...(r.journal && { journal: r.journal }),
      ...(r.pdat_year !== null && { year: r.pdat_year }),
      ...(journalInfo?.volume && { volume: journalInfo.volume }),
      ...(journalInfo?.issue && { issue: journalInfo.issue }),
      ...(journalInfo?.pages && { pages: journalInfo.pages }),
      authors: authors.map(author).filter((a): a is ReviewAuthor => a !== null),
      mesh: r.mesh,
      pubTypes: r.pub_types,
      notices: r.notices ?? [],
    };
    return c;
  });
}
