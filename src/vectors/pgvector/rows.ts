/**
 * Rows of the pgvector adapter as the rest of the corpus sees them: search hits with their
 * payload, and chunks as the in-memory lexical index holds them.
 */
import { sql } from "kysely";
import { packPostings, type LexicalRow } from "../memory/lexical-index.js";
import { payloadFromRow, type PayloadRow } from "../payload-row.js";
import type { ChunkPoint, Hit } from "../vector-store.js";

export interface HitRow extends PayloadRow {
  id: string;
  pmid: string;
  score: number | string;
}

export const PAYLOAD_COLUMNS = sql`v.title, v.text, v.quality, v.retracted, v.pdat_year, v.version,
  v.notices`;

export function toHits(rows: HitRow[]): Hit[] {
  return rows.map((r) => ({
    id: r.id,
    pmid: r.pmid,
    score: Number(r.score),
    payload: payloadFromRow(r),
  }));
}

export function lexicalRow(p: ChunkPoint): LexicalRow {
  return {
    id: p.id,
    pmid: p.pmid,
    retracted: p.payload.retracted,
    quality: p.payload.quality,
    postings: packPostings(p.sparse),
  };
}
