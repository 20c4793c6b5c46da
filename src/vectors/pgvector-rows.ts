/**
 * Rows of the pgvector adapter as the rest of the corpus sees them: search hits with their
 * payload, and chunks as the in-memory lexical index holds them.
 */
import { sql } from "kysely";
import { packPostings, type LexicalRow } from "./lexical-index.js";
import type { ChunkPoint, Hit } from "./vector-store.js";

export interface HitRow {
  id: string;
  pmid: string;
  score: number | string;
  title: string;
  text: string;
  quality: number;
  retracted: boolean;
  pdat_year: number | null;
  version: number;
}

export const PAYLOAD_COLUMNS = sql`v.title, v.text, v.quality, v.retracted, v.pdat_year, v.version`;

export function toHits(rows: HitRow[]): Hit[] {
  return rows.map((r) => ({
    id: r.id,
    pmid: r.pmid,
    score: Number(r.score),
    payload: {
      title: r.title,
      text: r.text,
      quality: r.quality,
      retracted: r.retracted,
      pdatYear: r.pdat_year,
      version: r.version,
    },
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
